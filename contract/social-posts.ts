// A post and its author as the social API returns them — discover's pages and profiles, the dashboards' top posts,
// lists and people — defined once, with the values of a post's kind, media type and sentiment label. Shared by the
// SPA and the server (server/social/post-rows.ts selects and maps them).
import * as z from 'zod/mini';
import { PLATFORM_VALUES } from './social-scope';

export const POST_KIND_VALUES = ['original', 'reply', 'repost', 'quote'] as const;
export const MEDIA_VALUES = ['text', 'image', 'video', 'link'] as const;
export const SENTIMENT_VALUES = ['positive', 'neutral', 'negative'] as const;

const platform = z.enum(PLATFORM_VALUES);

export const socialAuthorSchema = z.object({
  id: z.number(),
  platform,
  handle: z.string(),
  display_name: z.string(),
  followers: z.int(),
  verified: z.boolean(),
  avatar_url: z.nullable(z.string()),
  /** ISO 3166-1 alpha-2; null when unknown. */
  country: z.nullable(z.string()),
  /** The profile's language (a 2–3 letter code); null when unknown. */
  language: z.nullable(z.string()),
});
export type SocialAuthor = z.infer<typeof socialAuthorSchema>;

/** A person's correction of a post's sentiment in one workspace (contract/sentiment-corrections.ts). */
const sentimentCorrectionSchema = z.object({
  /** The lexicon's estimate the correction replaces. */
  estimated_label: z.enum(SENTIMENT_VALUES),
  estimated_sentiment: z.number(),
  /** The corrector's name or e-mail; null once they are no longer a user. */
  corrected_by: z.nullable(z.string()),
  /** ISO 8601, UTC. */
  corrected_at: z.string(),
  /**
   * The corrected post whose correction this post inherits, having the same text (a repost or a copy: other links,
   * mentions, case, punctuation or spacing); null or absent when this post itself was corrected.
   */
  inherited_from: z.optional(z.nullable(z.number())),
});
export type SentimentCorrection = z.infer<typeof sentimentCorrectionSchema>;

/**
 * Why the post has its estimated label (docs/sentiment.md#explanations), computed when the post is read: absent for a
 * corrected post (the team's label is not the model's) and from servers before issue 53's explanations.
 */
const sentimentExplanationSchema = z.object({
  /** False: too little text to tell (no word nor emoji, or under 3 of them and called neutral); show "not rated". */
  rated: z.boolean(),
  /** The model's probability of sentiment_label, 0–1; null where the word list scores the language. */
  confidence: z.nullable(z.number()),
  /** At most 5 words or emoji, strongest first; weight signed as the label reads (toward negative is negative). */
  signals: z.array(z.object({ text: z.string(), weight: z.number() })),
});

/** A tag the post carries in the workspace (docs/tags.md): `manual` when a person set it, else `rule`. */
export const postTagSchema = z.object({
  tag_id: z.string(),
  name: z.string(),
  category_id: z.string(),
  category: z.string(),
  set_by: z.enum(['manual', 'rule']),
});
export type PostTag = z.infer<typeof postTagSchema>;

export const socialPostSchema = z.object({
  id: z.number(),
  platform,
  /** The post's id on its platform. */
  external_id: z.string(),
  url: z.nullable(z.string()),
  text: z.string(),
  /** The post's detected language; null when unknown. */
  language: z.nullable(z.string()),
  /** ISO 8601 in UTC; show it in the response's time_zone. */
  posted_at: z.string(),
  kind: z.enum(POST_KIND_VALUES),
  media: z.enum(MEDIA_VALUES),
  likes: z.int(),
  comments: z.int(),
  shares: z.int(),
  /** Null where the platform does not report views. */
  views: z.nullable(z.number()),
  /** likes + comments + shares. */
  engagement: z.int(),
  hashtags: z.array(z.string()),
  mentions: z.array(z.string()),
  /** The hosts it links to (registrable host, lower case). */
  domains: z.array(z.string()),
  /** An estimate in [-1, 1] from a lexicon, not a judgement. */
  sentiment: z.number(),
  sentiment_label: z.enum(SENTIMENT_VALUES),
  /**
   * Set when someone in the workspace corrected the post's sentiment: sentiment_label is then the correction's and
   * sentiment its score (1, 0 or -1), in every figure of that workspace; the estimate is kept here.
   */
  sentiment_correction: z.optional(z.nullable(sentimentCorrectionSchema)),
  sentiment_explanation: z.optional(sentimentExplanationSchema),
  /**
   * The workspace's tags the post carries, by category then tag name: absent from servers before tags on post cards
   * and from shared views (a tag is the team's own word for a post, not part of what it shares).
   */
  tags: z.optional(z.array(postTagSchema)),
  author: socialAuthorSchema,
});
export type SocialPost = z.infer<typeof socialPostSchema>;
