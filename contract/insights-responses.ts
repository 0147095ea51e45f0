// The insights dashboards' responses (POST /social/insights/*), shared by the SPA and the server; the requests are in
// insights.ts, posts and authors in social-posts.ts. Response shapes avoid transforms: the server encodes responses
// through them.
import * as z from 'zod/mini';
import { PLATFORM_VALUES } from './social-scope';
import { BUCKET_VALUES, POST_SORTS, PROFILE_SORTS } from './insights';
import { MEDIA_VALUES, POST_KIND_VALUES, socialAuthorSchema, socialPostSchema } from './social-posts';
import { sentimentRescanSchema } from './sentiment-rescan';

const platform = z.enum(PLATFORM_VALUES);
/** ISO 8601 instants in UTC: `from` inclusive, `to` exclusive. */
const rangeSchema = z.object({ from: z.string(), to: z.string() });

export const answerBase = {
  /** The workspace's IANA time zone: buckets, days and hours are counted in it. */
  time_zone: z.string(),
  range: rangeSchema,
  /** The query as understood (canonical text); null for every post. */
  query: z.nullable(z.string()),
  /** One plain sentence on exactly what was counted. */
  counted: z.string(),
  /**
   * Set when the range asked for reached further back than the plan's history: `range.from` was moved to the oldest
   * day the plan keeps; `requested_from` is the start asked for.
   */
  history_clip: z.optional(z.nullable(z.object({ requested_from: z.string(), history_days: z.int() }))),
  /**
   * Set when a read replica that is behind the primary computed the answer (DATABASE_READ_URL, docs/replicas.md): the
   * instant (ISO 8601) up to which its posts are complete; newer posts are not counted yet.
   */
  data_as_of: z.optional(z.nullable(z.string())),
};

/** A post of a list or of the top posts: with sort `overperformance`, its engagement ÷ its author's average. */
export const insightPostSchema = z.object({
  ...socialPostSchema.shape,
  /** With sort `overperformance` only (see server/social/insights/README.md); null otherwise. */
  overperformance: z.nullable(z.number()),
});
export type InsightPost = z.infer<typeof insightPostSchema>;

/** An author with their matching posts ("mentions") and the engagement of those posts. */
const insightPersonSchema = z.object({
  ...socialAuthorSchema.shape,
  mentions: z.int(),
  engagement: z.int(),
});
export type InsightPerson = z.infer<typeof insightPersonSchema>;

const change = z.object({ value: z.number(), previous: z.number(), change_pct: z.nullable(z.number()) });

export const overviewResponseSchema = z.object({
  ...answerBase,
  previous_range: rangeSchema,
  bucket: z.enum(BUCKET_VALUES),
  totals: z.object({
    mentions: change,
    unique_authors: change,
    engagement: change,
    reach: change,
    mentions_per_day: z.number(),
  }),
  over_time: z.array(
    z.object({
      /** The bucket's first instant (ISO 8601, UTC) and its wall-clock start in time_zone. */
      start: z.string(),
      local: z.string(),
      mentions: z.int(),
      engagement: z.int(),
      positive: z.int(),
      neutral: z.int(),
      negative: z.int(),
      /** Posts with too little text to rate: not in positive, neutral nor negative (absent from older servers). */
      not_rated: z.optional(z.int()),
      /** Over the rated posts (positive + neutral + negative); null when none. */
      average_sentiment: z.nullable(z.number()),
      spike: z.boolean(),
    }),
  ),
  spikes: z.object({
    rule: z.string(),
    mean: z.number(),
    stddev: z.number(),
    threshold: z.number(),
    min_count: z.int(),
  }),
  /**
   * The split over the rated posts, and `not_rated` apart (docs/sentiment.md, "Not rated"): positive + neutral +
   * negative + not_rated = the mentions. The average is over the rated posts; null when none.
   */
  sentiment: z.object({
    positive: z.int(),
    neutral: z.int(),
    negative: z.int(),
    /** Posts with too little text to rate: not in positive, neutral nor negative (absent from older servers). */
    not_rated: z.optional(z.int()),
    average: z.nullable(z.number()),
  }),
  /**
   * Only while the corpus is rescanned to a new sentiment model: which model(s) counted the posts (corpus-wide, per
   * version) and how far the rescan is. Absent once every post is scored by the server's model.
   */
  sentiment_rescan: z.optional(sentimentRescanSchema),
  platforms: z.array(z.object({ platform, mentions: z.int(), share: z.number() })),
  top_posts: z.array(insightPostSchema),
  top_people: z.array(insightPersonSchema),
});
export type OverviewResponse = z.infer<typeof overviewResponseSchema>;

export const postsResponseSchema = z.object({
  ...answerBase,
  sort: z.enum(POST_SORTS),
  /** Posts matching the scope and refinements (all pages). */
  total: z.int(),
  posts: z.array(insightPostSchema),
  next_cursor: z.nullable(z.string()),
});
export type PostsResponse = z.infer<typeof postsResponseSchema>;

export const profilesResponseSchema = z.object({
  ...answerBase,
  sort: z.enum(PROFILE_SORTS),
  /** Distinct authors of the matching posts (all pages). */
  total: z.int(),
  profiles: z.array(insightPersonSchema),
  next_cursor: z.nullable(z.string()),
});
export type ProfilesResponse = z.infer<typeof profilesResponseSchema>;

export const peopleResponseSchema = z.object({
  ...answerBase,
  unique_authors: z.int(),
  average_mentions_per_author: z.nullable(z.number()),
  by_mentions: z.array(insightPersonSchema),
  by_followers: z.array(insightPersonSchema),
  by_engagement: z.array(insightPersonSchema),
});
export type PeopleResponse = z.infer<typeof peopleResponseSchema>;

const metrics = {
  posts: z.int(),
  likes: z.int(),
  comments: z.int(),
  shares: z.int(),
  /** Summed over the posts whose platform reports views. */
  views: z.int(),
  engagement: z.int(),
  average_engagement: z.nullable(z.number()),
  /** Per post, engagement ÷ the author's followers, averaged over posts whose author has followers. */
  engagement_rate: z.nullable(z.number()),
};

export const performanceResponseSchema = z.object({
  ...answerBase,
  totals: z.object({
    ...metrics,
    /** Over the rated posts (a post with too little text to rate is left out); null when none. */
    average_sentiment: z.nullable(z.number()),
  }),
  by_platform: z.array(z.object({ platform, ...metrics })),
  by_media: z.array(z.object({ media: z.enum(MEDIA_VALUES), ...metrics })),
  by_kind: z.array(z.object({ kind: z.enum(POST_KIND_VALUES), ...metrics })),
  /** 7 × 24 cells, Monday (1) to Sunday (7), hours 0–23 of time_zone. */
  best_time: z.array(
    z.object({
      day: z.int(),
      hour: z.int(),
      posts: z.int(),
      average_engagement: z.nullable(z.number()),
    }),
  ),
});
export type PerformanceResponse = z.infer<typeof performanceResponseSchema>;

const counted = z.object({ value: z.string(), posts: z.int() });

export const conversationResponseSchema = z.object({
  ...answerBase,
  previous_range: rangeSchema,
  hashtags: z.array(counted),
  mentions: z.array(counted),
  domains: z.array(counted),
  terms: z.array(z.object({ value: z.string(), posts: z.int(), average_sentiment: z.number() })),
  emerging: z.array(
    z.object({ value: z.string(), posts: z.int(), previous_posts: z.int(), ratio: z.number() }),
  ),
  emerging_rule: z.string(),
  /**
   * Posts of each period (`estimated` when the period was sampled: scaled from the sample), and how many of them
   * words were counted in (every one below about 2 × `cap`, else about `cap`).
   */
  words_sample: z.object({
    current: z.object({ posts: z.int(), sampled: z.int(), estimated: z.boolean() }),
    previous: z.object({ posts: z.int(), sampled: z.int(), estimated: z.boolean() }),
    cap: z.int(),
  }),
  /** As the overview's: only while the corpus is rescanned to a new sentiment model (the words' sentiment). */
  sentiment_rescan: z.optional(sentimentRescanSchema),
});
export type ConversationResponse = z.infer<typeof conversationResponseSchema>;
