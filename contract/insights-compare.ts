// The Compare dashboard (POST /social/insights/compare), in one of two modes:
// - saved queries: 2 to 5 saved queries of a workspace side by side over one range, one set of filters and one set
//   of refinements (a tag's among them);
// - tags: 2 to 5 tags of the workspace's categories side by side within one saved query, or within every post of the
//   workspace (the scope), over one range, the filters and the refinements: each tag a column, its posts those the
//   scope's overview counts with that tag as one more refinement.
// Either way each column (a `queries` entry) has share of voice over time, its mentions against the previous period,
// its sentiment, platforms and top authors, and the overlap (posts in more than one column). Every figure of a column
// is the one that column's own overview gives for the same range, filters and refinements (its tag's among them).
// Shared by the SPA and the server.
import * as z from 'zod/mini';
import { BUCKET_VALUES, INSIGHT_LIMITS, refinesSchema } from './insights';
import { socialAuthorSchema } from './social-posts';
import { PLATFORM_VALUES, queryFiltersSchema } from './social-scope';
import { workspaceIdSchema } from './workspaces';

export const COMPARE_MIN = 2;
export const COMPARE_MAX = 5;
/** Top authors listed per query. */
export const COMPARE_TOP_AUTHORS = 5;

/** What Compare puts side by side. */
export const COMPARE_MODES = ['saved_queries', 'tags'] as const;
export type CompareMode = (typeof COMPARE_MODES)[number];

/** 2 to 5 ids, each once. */
const comparedIds = (what: string, once: string) =>
  z.array(z.uuid()).check(
    z.minLength(COMPARE_MIN, { error: `Compare at least ${COMPARE_MIN} ${what}` }),
    z.maxLength(COMPARE_MAX, { error: `Compare at most ${COMPARE_MAX} ${what}` }),
    z.refine((ids) => new Set(ids).size === ids.length, { error: once }),
  );

/** A Compare request without its workspace (a share link's view is one, share-links.ts). */
export const compareViewShape = {
  /** Saved queries mode: the saved queries compared, in the order they are shown; each at most once. */
  saved_query_ids: z.optional(comparedIds('saved queries', 'A saved query is compared once')),
  /** Tags mode: the saved query whose posts the tags are compared in; absent, every post of the workspace. */
  saved_query_id: z.optional(z.uuid()),
  /** Tags mode: the tags compared (ids from GET /workspaces/{id}/tag-categories), in the order shown; each once. */
  tag_ids: z.optional(comparedIds('tags', 'A tag is compared once')),
  /** The range and filters every column is read with (overriding the saved queries' own, key by key). */
  filters: z.optional(queryFiltersSchema),
  /** The dashboards' drill-down refinements (a tag's too), applied to every column, its overlap included. */
  refine: z.optional(refinesSchema),
};

type ModeFields = {
  saved_query_ids?: string[];
  saved_query_id?: string;
  tag_ids?: string[];
  refine?: unknown[];
};

/** Which mode a request is in (the body has passed compareModeCheck). */
export const compareModeOf = (body: ModeFields): CompareMode => (body.tag_ids ? 'tags' : 'saved_queries');

/**
 * Exactly one mode: saved_query_ids alone, or tag_ids (with saved_query_id or not). In tags mode a column is its
 * scope's overview with the tag as one more refinement, so the refinements leave room for it.
 */
export const compareModeCheck = z.superRefine((body: ModeFields, ctx) => {
  const issue = (message: string, path: string[] = []) =>
    ctx.addIssue({ code: 'custom', message, path, input: body });
  if (body.saved_query_ids && body.tag_ids) {
    issue('Compare either saved queries (saved_query_ids) or tags (tag_ids), not both');
  } else if (!body.saved_query_ids && !body.tag_ids) {
    issue(
      'Give saved_query_ids (the saved queries to compare) or tag_ids (the tags to compare, within the saved ' +
        'query saved_query_id names, or every post without it)',
    );
  } else if (body.saved_query_ids && body.saved_query_id !== undefined) {
    issue('saved_query_id is the scope of the tags compared (tag_ids); leave it out with saved_query_ids', [
      'saved_query_id',
    ]);
  } else if (body.tag_ids && (body.refine?.length ?? 0) >= INSIGHT_LIMITS.refineItems) {
    issue(
      `Tags are compared with at most ${INSIGHT_LIMITS.refineItems - 1} refinements: each tag is one more ` +
        `(at most ${INSIGHT_LIMITS.refineItems})`,
      ['refine'],
    );
  }
});

export const compareBodySchema = z
  .object({ workspace_id: workspaceIdSchema, ...compareViewShape })
  .check(compareModeCheck);
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
  /** What the columns are: saved queries, or tags within one scope (absent from older servers: saved queries). */
  mode: z.optional(z.enum(COMPARE_MODES)),
  /** The columns, in the body's order: each saved query, or each tag. */
  queries: z.array(
    z.object({
      /** The saved query compared; in tags mode, the scope's (the same for every column), null for every post. */
      saved_query_id: z.nullable(z.string()),
      /** Tags mode: the tag of this column (its posts are the saved query's posts carrying it). */
      tag_id: z.optional(z.string()),
      /** The saved query's name; in tags mode, the tag's "Category › Tag". */
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
  /** Every bucket of the range: each column's mentions in it, in the order of `queries`. */
  over_time: z.array(z.object({ start: z.string(), local: z.string(), mentions: z.array(z.int()) })),
  overlap: z.object({
    /** Posts in two or more of the columns (matching two or more queries, or carrying two or more tags). */
    posts: z.int(),
    /** Per pair of columns (indexes into `queries`, a < b): the posts in both. */
    pairs: z.array(z.object({ a: z.int(), b: z.int(), posts: z.int() })),
  }),
});
export type CompareResponse = z.infer<typeof compareResponseSchema>;
