// POST /social/discover: an ad-hoc search over the corpus, one keyset-paginated page of posts at a time, with the top
// matching profiles on the first page. Shared by the SPA and the server.
import * as z from 'zod/mini';
import { savedQueryFiltersSchema } from './saved-queries';
import { PLATFORM_VALUES } from './social-scope';
import { workspaceIdSchema } from './workspaces';

export const DISCOVER_SORTS = ['recency', 'engagement'] as const;
export type DiscoverSort = (typeof DISCOVER_SORTS)[number];

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

const platform = z.enum(PLATFORM_VALUES);

const discoverAuthorSchema = z.object({
  id: z.number(),
  platform,
  handle: z.string(),
  display_name: z.string(),
  followers: z.int(),
  verified: z.boolean(),
  avatar_url: z.nullable(z.string()),
  /** ISO 3166-1 alpha-2; null when unknown. */
  country: z.nullable(z.string()),
});

const discoverPostSchema = z.object({
  id: z.number(),
  platform,
  external_id: z.string(),
  url: z.nullable(z.string()),
  text: z.string(),
  language: z.nullable(z.string()),
  /** ISO 8601 in UTC; show it in the response's time_zone. */
  posted_at: z.string(),
  kind: z.enum(['original', 'reply', 'repost', 'quote']),
  media: z.enum(['text', 'image', 'video', 'link']),
  likes: z.int(),
  comments: z.int(),
  shares: z.int(),
  /** Null where the platform does not report views. */
  views: z.nullable(z.number()),
  /** likes + comments + shares. */
  engagement: z.int(),
  hashtags: z.array(z.string()),
  mentions: z.array(z.string()),
  /** An estimate in [-1, 1] from a lexicon, not a judgement. */
  sentiment: z.number(),
  sentiment_label: z.enum(['positive', 'neutral', 'negative']),
  author: discoverAuthorSchema,
});
export type DiscoverPost = z.infer<typeof discoverPostSchema>;

const discoverProfileSchema = z.object({
  ...discoverAuthorSchema.shape,
  /** Posts of this author among all matches (not only this page). */
  matching_posts: z.int(),
  /** Their engagement summed. */
  engagement: z.int(),
});
export type DiscoverProfile = z.infer<typeof discoverProfileSchema>;

export const discoverResponseSchema = z.object({
  posts: z.array(discoverPostSchema),
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
