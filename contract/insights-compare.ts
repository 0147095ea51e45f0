// The Compare dashboard (POST /social/insights/compare): 2 to 5 saved queries of a workspace side by side over one
// range, one set of filters and one set of refinements (a tag's among them) — share of voice over time, each query's
// mentions against the previous period, its sentiment, platforms and top authors, and the overlap (posts matching
// more than one). Every figure of a query is the one that query's own overview gives for the same range, filters and
// refinements. Shared by the SPA and the server.
import * as z from 'zod/mini';
import { BUCKET_VALUES, refinesSchema } from './insights';
import { socialAuthorSchema } from './social-posts';
import { PLATFORM_VALUES, queryFiltersSchema } from './social-scope';
import { workspaceIdSchema } from './workspaces';

export const COMPARE_MIN = 2;
export const COMPARE_MAX = 5;
/** Top authors listed per query. */
export const COMPARE_TOP_AUTHORS = 5;

export const compareBodySchema = z.object({
  workspace_id: workspaceIdSchema,
  /** The saved queries compared, in the order they are shown; each at most once. */
  saved_query_ids: z.array(z.uuid()).check(
    z.minLength(COMPARE_MIN, { error: `Compare at least ${COMPARE_MIN} saved queries` }),
    z.maxLength(COMPARE_MAX, { error: `Compare at most ${COMPARE_MAX} saved queries` }),
    z.refine((ids) => new Set(ids).size === ids.length, { error: 'A saved query is compared once' }),
  ),
  /** The range and filters every query is read with (overriding each saved query's own, key by key). */
  filters: z.optional(queryFiltersSchema),
  /** The dashboards' drill-down refinements (a tag's too), applied to every query, its overlap included. */
  refine: z.optional(refinesSchema),
});
export type CompareBody = z.input<typeof compareBodySchema>;

const rangeSchema = z.object({ from: z.string(), to: z.string() });
const change = z.object({ value: z.number(), previous: z.number(), change_pct: z.nullable(z.number()) });

export const compareResponseSchema = z.object({
  time_zone: z.string(),
  range: rangeSchema,
  previous_range: rangeSchema,
  bucket: z.enum(BUCKET_VALUES),
  counted: z.string(),
  /** As dashboards say it when the plan's history moved the range's start (see insights-responses.ts). */
  history_clip: z.optional(z.nullable(z.object({ requested_from: z.string(), history_days: z.int() }))),
  queries: z.array(
    z.object({
      saved_query_id: z.string(),
      name: z.string(),
      /** The query as understood (canonical text); null for every post. */
      query: z.nullable(z.string()),
      mentions: change,
      /** Its mentions ÷ the sum of every compared query's mentions (0 when that sum is 0). */
      share: z.number(),
      sentiment: z.object({
        positive: z.int(),
        neutral: z.int(),
        negative: z.int(),
        /** As the overview's sentiment: the split over rated posts, not_rated apart (absent from older servers). */
        not_rated: z.optional(z.int()),
        average: z.nullable(z.number()),
      }),
      platforms: z.array(z.object({ platform: z.enum(PLATFORM_VALUES), mentions: z.int() })),
      top_authors: z.array(z.object({ ...socialAuthorSchema.shape, mentions: z.int(), engagement: z.int() })),
    }),
  ),
  /** Every bucket of the range: each query's mentions in it, in the order of `queries`. */
  over_time: z.array(z.object({ start: z.string(), local: z.string(), mentions: z.array(z.int()) })),
  overlap: z.object({
    /** Posts matching two or more of the queries. */
    posts: z.int(),
    /** Per pair of queries (indexes into `queries`, a < b): the posts matching both. */
    pairs: z.array(z.object({ a: z.int(), b: z.int(), posts: z.int() })),
  }),
});
export type CompareResponse = z.infer<typeof compareResponseSchema>;
