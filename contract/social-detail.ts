// A post's page and a profile's page (POST /social/posts/detail, POST /social/profiles/detail): one post with the
// terms of the view's query it matched, and one author with their posts per day in the view's scope. Shared by the
// SPA and the server; posts and authors as in social-posts.ts, the scope as the dashboards' (insights.ts).
import * as z from 'zod/mini';
import { insightsBodySchema } from './insights';
import { socialAuthorSchema, socialPostSchema } from './social-posts';
import { workspaceIdSchema } from './workspaces';

/** Post and profile ids are PostgreSQL bigints handed out by a sequence: whole numbers from 1, exact in a double. */
const corpusIdSchema = z
  .int({ error: 'An id is a whole number' })
  .check(z.gte(1, { error: 'An id is a whole number from 1' }), z.lte(Number.MAX_SAFE_INTEGER));

export const postDetailBodySchema = z.strictObject({
  workspace_id: workspaceIdSchema,
  post_id: corpusIdSchema,
  /** The view's scope, for the terms it matched: a saved query of the workspace or an ad-hoc query (or neither). */
  saved_query_id: z.optional(z.uuid()),
  query: z.optional(z.string()),
});
export type PostDetailBody = z.infer<typeof postDetailBodySchema>;

const matchedTermSchema = z.object({
  /** A leaf of the query as its canonical text: a word, "a phrase", prefix*, #tag, @mention, field:value, or a NEAR. */
  term: z.string(),
  /** Under a NOT: the post matching it counts against the query. */
  negated: z.boolean(),
  /** Whether the post matches the term, as the search matches it (the same SQL). */
  matched: z.boolean(),
});

export const postDetailResponseSchema = z.object({
  post: socialPostSchema,
  /** The workspace's IANA time zone, in which the SPA shows the post's time. */
  time_zone: z.string(),
  /**
   * The query's terms and whether the post matches each and the whole query (its text, hashtags, mentions and
   * fields; not the date range or filters); null without a query or for an empty one.
   */
  matched: z.nullable(
    z.object({
      /** The query as understood (canonical text). */
      query: z.string(),
      matches: z.boolean(),
      terms: z.array(matchedTermSchema),
    }),
  ),
});
export type PostDetailResponse = z.infer<typeof postDetailResponseSchema>;

export const profileDetailBodySchema = z.object({
  ...insightsBodySchema.shape,
  profile_id: corpusIdSchema,
});

const profileSchema = z.object({
  ...socialAuthorSchema.shape,
  /** The profile's id on its platform. */
  external_id: z.string(),
  following: z.int(),
  bio: z.string(),
});

export const profileDetailResponseSchema = z.object({
  profile: profileSchema,
  /** The workspace's IANA time zone: days are its days. */
  time_zone: z.string(),
  range: z.object({ from: z.string(), to: z.string() }),
  /** The query as understood (canonical text); null for every post. */
  query: z.nullable(z.string()),
  /** One plain sentence on exactly what was counted. */
  counted: z.string(),
  /** As the dashboards': set when the range was moved to the oldest day the plan keeps. */
  history_clip: z.optional(z.nullable(z.object({ requested_from: z.string(), history_days: z.int() }))),
  /** The profile's posts in the scope and their engagement. */
  totals: z.object({ posts: z.int(), engagement: z.int() }),
  /** Every day of the range (the first and last may be partial), zero-filled, oldest first. */
  days: z.array(
    z.object({
      /** The day's first instant (ISO 8601, UTC) and the day itself (YYYY-MM-DD) in time_zone. */
      start: z.string(),
      day: z.string(),
      posts: z.int(),
      engagement: z.int(),
    }),
  ),
});
export type ProfileDetailResponse = z.infer<typeof profileDetailResponseSchema>;
