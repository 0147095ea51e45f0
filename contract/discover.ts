// POST /social/discover: an ad-hoc search over the corpus, one keyset-paginated page of posts at a time, with the top
// matching profiles on the first page (posts and authors as in social-posts.ts). Shared by the SPA and the server.
import * as z from 'zod/mini';
import { savedQueryFiltersSchema } from './saved-queries';
import { socialAuthorSchema, socialPostSchema } from './social-posts';
import { DISCOVER_SORTS } from './sorts';
import { workspaceIdSchema } from './workspaces';

export { DISCOVER_SORTS, type DiscoverSort } from './sorts';

const DISCOVER_PAGE_DEFAULT = 25;
const DISCOVER_PAGE_MAX = 100;
/** Profiles listed with the first page. */
export const DISCOVER_PROFILES = 10;
/** Cursors are short; anything longer is not one of ours. */
const DISCOVER_CURSOR_MAX = 512;

export const discoverBodySchema = z.strictObject({
  workspace_id: workspaceIdSchema,
  /** Any text: one that does not parse is a 400 `invalid_query` with each error's column. */
  query: z.string(),
  filters: z._default(savedQueryFiltersSchema, {}),
  sort: z._default(z.enum(DISCOVER_SORTS), 'recency'),
  /** next_cursor of the previous page, with the same query, filters and sort. */
  cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(DISCOVER_CURSOR_MAX))),
  limit: z._default(z.int().check(z.gte(1), z.lte(DISCOVER_PAGE_MAX)), DISCOVER_PAGE_DEFAULT),
});

const discoverProfileSchema = z.object({
  ...socialAuthorSchema.shape,
  /** Posts of this author among all matches (not only this page). */
  matching_posts: z.int(),
  /** Their engagement summed. */
  engagement: z.int(),
});
export type DiscoverProfile = z.infer<typeof discoverProfileSchema>;

export const discoverResponseSchema = z.object({
  posts: z.array(socialPostSchema),
  /** Null on the last page. */
  next_cursor: z.nullable(z.string()),
  /** The authors with the most matching posts, then the most followers; only on the first page (null after it). */
  profiles: z.nullable(z.array(discoverProfileSchema)),
  /** The workspace's IANA time zone, in which the SPA shows times and the range below is written. */
  time_zone: z.string(),
  /** The date range searched, ISO 8601 in UTC (from inclusive, to exclusive); the same on every page. */
  range: z.object({ from: z.string(), to: z.string() }),
  /** One sentence on exactly what was counted. */
  counted: z.string(),
});
export type DiscoverResponse = z.infer<typeof discoverResponseSchema>;
