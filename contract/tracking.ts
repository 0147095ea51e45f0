// Tracking a saved query (issue 54): the sources a workspace may track a query on (names and how far back each
// reaches, never credentials), a saved query's tracking (on or off, its sources) and its coverage per source.
import * as z from 'zod/mini';

/** A source's key: bluesky, hackernews, reddit, youtube, x, feeds, or mastodon:<the instance's origin>. */
const sourceKeySchema = z.string().check(z.minLength(1), z.maxLength(300));

/** How a source collects: a stream (new posts as they are posted) or polling its search at a cadence. */
const sourceModes = ['stream', 'poll'] as const;

const trackingSourceSchema = z.object({
  key: sourceKeySchema,
  /** As shown: "Hacker News", "Mastodon (mastodon.social)". */
  label: z.string(),
  mode: z.enum(sourceModes),
  /** How far back its search reaches, in words. */
  reaches_back: z.string(),
});
export type TrackingSource = z.infer<typeof trackingSourceSchema>;

export const trackingSourcesResponseSchema = z.object({ sources: z.array(trackingSourceSchema) });
export type TrackingSourcesResponse = z.infer<typeof trackingSourcesResponseSchema>;

/** Why a source's coverage has a gap. */
export const GAP_REASONS = [
  'rate_limited',
  'quota_spent',
  'credentials_missing',
  'unreachable',
  'plan_limit',
  'no_search_words',
  'not_collected',
] as const;

const gapSchema = z.object({
  reason: z.enum(GAP_REASONS),
  /** The sentence shown: "Rate limited until 14:05 UTC". */
  message: z.string(),
  /** Unix seconds. */
  since: z.int(),
  /** Unix seconds; null when the end is not known. */
  until: z.nullable(z.int()),
});

/** A gap that has ended: what was not collected, why, and from when to when. */
const closedGapSchema = z.object({
  reason: z.enum(GAP_REASONS),
  message: z.string(),
  /** Unix seconds. */
  since: z.int(),
  /** Unix seconds: when the source answered again. */
  ended: z.int(),
});

const coverageSchema = z.object({
  source: sourceKeySchema,
  label: z.string(),
  mode: z.enum(sourceModes),
  /** Unix seconds. */
  tracking_since: z.int(),
  /** The oldest post time the backfill reached; null until the first search answered. */
  backfilled_to: z.nullable(z.int()),
  last_post_at: z.nullable(z.int()),
  last_poll_at: z.nullable(z.int()),
  /** Posts collected for the query today (UTC). */
  posts_today: z.int(),
  /** Posts collected per UTC day, the last 14 days that had any, oldest first. */
  per_day: z.array(z.object({ day: z.string(), posts: z.int() })),
  gap: z.nullable(gapSchema),
  /** The gaps that ended in the last 14 days, the latest first (at most 10). Optional: the panel works without it. */
  closed_gaps: z.optional(z.array(closedGapSchema)),
});
export type Coverage = z.infer<typeof coverageSchema>;

export const trackingResponseSchema = z.object({
  saved_query_id: z.string(),
  enabled: z.boolean(),
  sources: z.array(sourceKeySchema),
  /** Unix seconds: when tracking was last turned on; null when it never was. */
  tracking_since: z.nullable(z.int()),
  coverage: z.array(coverageSchema),
  /**
   * The plan's two tracking limits against the workspace's use (null limit: none), shown before they bite. Optional:
   * the panel works without it.
   */
  limits: z.optional(
    z.object({
      plan: z.string(),
      tracked_queries: z.object({ used: z.int(), limit: z.nullable(z.int()) }),
      posts_collected_per_month: z.object({ used: z.int(), limit: z.nullable(z.int()) }),
    }),
  ),
});
export type TrackingResponse = z.infer<typeof trackingResponseSchema>;

/** The span of a view (Unix seconds, `from` inclusive, `to` exclusive) whose collection gaps are asked for. */
export const trackingGapsQuerySchema = z
  .object({
    from: z.coerce.number().check(z.int(), z.gte(0)),
    to: z.coerce.number().check(z.int(), z.gte(0)),
  })
  .check(z.refine((q) => q.from < q.to, { error: '`from` must be before `to`', path: ['to'] }));

/**
 * A tracked query's gaps that overlap a span, open and ended, the latest first (at most 200): what a chart of the span
 * marks. A source this installation does not collect from ("not collected") is no span of missing posts: left out.
 */
export const trackingGapsResponseSchema = z.object({
  gaps: z.array(
    z.object({
      source: sourceKeySchema,
      label: z.string(),
      reason: z.enum(GAP_REASONS),
      message: z.string(),
      /** Unix seconds. */
      since: z.int(),
      /** Unix seconds: when it ended, or (open) when it is expected to; null when open with no known end. */
      until: z.nullable(z.int()),
      ended: z.boolean(),
    }),
  ),
});
export type TrackingGapsResponse = z.infer<typeof trackingGapsResponseSchema>;

const MAX_TRACKED_SOURCES = 50;

/** On with at least one source; off keeps the sources chosen for the next time. */
export const putTrackingBodySchema = z
  .strictObject({
    enabled: z.boolean(),
    sources: z.array(sourceKeySchema).check(
      z.maxLength(MAX_TRACKED_SOURCES, { error: `At most ${MAX_TRACKED_SOURCES} sources` }),
      z.refine((list) => new Set(list).size === list.length, { error: 'Each source once' }),
    ),
  })
  .check(
    z.refine((body) => !body.enabled || body.sources.length > 0, {
      error: 'Choose at least one source to track on',
      path: ['sources'],
    }),
  );
export type PutTrackingBody = z.infer<typeof putTrackingBodySchema>;
