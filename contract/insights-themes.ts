// Themes of a range (POST /social/insights/themes): the range's frequent words grouped by how they occur together in
// its posts (a co-occurrence graph and a community detection), each theme with its words, its posts, their volume over
// time, their sentiment, its top posts and its rise against the range before, counted exactly. Shared by the SPA and
// the server; server/social/insights/themes.ts states the rule.
import * as z from 'zod/mini';
import { BUCKET_VALUES, insightsBodySchema, type Refine } from './insights';
import { answerBase, insightPostSchema } from './insights-responses';

const THEMES_LIMIT = { default: 8, max: 20 } as const;

/** The overview's body (query, filters and range, refinements) and the number of themes listed. */
export const themesBodySchema = z.extend(insightsBodySchema, {
  limit: z._default(z.int().check(z.gte(1), z.lte(THEMES_LIMIT.max)), THEMES_LIMIT.default),
});

const rangeSchema = z.object({ from: z.string(), to: z.string() });

const themeSchema = z.object({
  /** Its words, most posts of the range first, then in code-point order: each with its posts in the range. */
  terms: z.array(z.object({ value: z.string(), posts: z.int() })),
  /** Posts of the range with any of its words (its drill-down's posts). */
  posts: z.int(),
  /** Posts of the range before (equal length, just before) with any of its words. */
  previous_posts: z.int(),
  /** posts ÷ previous_posts; null when the range before has none. */
  rise: z.nullable(z.number()),
  /** Its posts per bucket of the range (the overview's buckets), every bucket listed. */
  over_time: z.array(z.object({ start: z.string(), local: z.string(), posts: z.int() })),
  /** As the overview counts it (the workspace's corrections counted): rated posts per label, not rated apart. */
  sentiment: z.object({
    positive: z.int(),
    neutral: z.int(),
    negative: z.int(),
    not_rated: z.int(),
    /** Over the rated posts; null when none is. */
    average: z.nullable(z.number()),
  }),
  /** Its posts of the range with the most engagement, then the higher id. */
  top_posts: z.array(insightPostSchema),
});
export type Theme = z.infer<typeof themeSchema>;

export const themesResponseSchema = z.object({
  ...answerBase,
  previous_range: rangeSchema,
  bucket: z.enum(BUCKET_VALUES),
  /** Posts of the range, and the words counted in them (the most frequent, each in enough posts). */
  posts: z.int(),
  words: z.int(),
  /** Word pairs kept as edges of the graph. */
  edges: z.int(),
  /** Most posts first, then the first word in code-point order. */
  themes: z.array(themeSchema),
});
export type ThemesResponse = z.infer<typeof themesResponseSchema>;

/** A theme as the drill-down refinement that lists its posts: any of its words. */
export const themeRefine = (theme: Pick<Theme, 'terms'>): Refine => ({
  field: 'term',
  values: theme.terms.map((t) => t.value),
});
