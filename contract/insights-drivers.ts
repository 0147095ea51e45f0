// "Why this spike" (POST /social/insights/drivers): for a window of the overview's chart (a spike's bucket, or any range
// a person selects), what accounts for its posts beyond its baseline, counted exactly. Every driver is a value of one
// of the dimensions below, with its posts in the window, its posts in the baseline, the count expected from the
// baseline, its lift and its share of the window's excess, ranked by the log-likelihood statistic G². Shared by the
// SPA and the server; server/social/insights/drivers.ts states the rule.
import * as z from 'zod/mini';
import { insightsBodySchema, type Refine } from './insights';
import { answerBase, insightPostSchema } from './insights-responses';

/** The dimensions a driver is a value of; each is a drill-down refinement of the same name (contract/insights.ts). */
export const DRIVER_KINDS = [
  'term',
  'hashtag',
  'mention',
  'author',
  'domain',
  'platform',
  'language',
  'sentiment',
] as const;
export type DriverKind = (typeof DRIVER_KINDS)[number];

const DRIVERS_LIMIT = { default: 10, max: 30 } as const;

/**
 * The overview's body with `filters.from` and `filters.to` naming the window (the spike's bucket, or the selected
 * range): the query, platforms, languages and refinements are the overview's.
 */
export const driversBodySchema = z.extend(insightsBodySchema, {
  limit: z._default(z.int().check(z.gte(1), z.lte(DRIVERS_LIMIT.max)), DRIVERS_LIMIT.default),
});

const rangeSchema = z.object({ from: z.string(), to: z.string() });
const driverSchema = z.object({
  kind: z.enum(DRIVER_KINDS),
  /**
   * The refinement's value: a word, a hashtag without '#', a handle without '@', a domain, a platform, a language
   * code, a sentiment label (or not_rated); for an author, the profile's id as text.
   */
  value: z.string(),
  /** How the app shows it: "outage", "#outage", "@techdaily_news", "x", "en", "negative". */
  label: z.string(),
  /** Posts of the window with it. */
  posts: z.int(),
  /** Posts of the baseline's windows with it, all together. */
  baseline_posts: z.int(),
  /** baseline_posts ÷ the number of baseline windows: the posts the window would have if it were like them. */
  expected: z.number(),
  /** posts ÷ expected; null when the baseline has none. */
  lift: z.nullable(z.number()),
  /** (posts − expected) ÷ (the window's posts − the expected posts); null when the window has no excess. */
  excess_share: z.nullable(z.number()),
  /** Share of the window's posts with it. */
  share: z.number(),
  /** Dunning's log-likelihood G² of its posts against the rest, window against baseline. */
  g2: z.number(),
});
export type Driver = z.infer<typeof driverSchema>;

export const driversResponseSchema = z.object({
  /** `range` is the window. */
  ...answerBase,
  baseline: z.object({
    /**
     * same_hours: the same wall-clock hours of the preceding days in the workspace's zone; previous: the range of
     * equal length just before.
     */
    kind: z.enum(['same_hours', 'previous']),
    /** The baseline's windows, newest first. */
    windows: z.array(rangeSchema),
    rule: z.string(),
  }),
  posts: z.object({
    /** Posts of the window. */
    window: z.int(),
    /** Posts of the baseline's windows, all together. */
    baseline: z.int(),
    /** baseline ÷ the number of windows. */
    expected: z.number(),
    /** window − expected (negative when the window had fewer than expected). */
    excess: z.number(),
  }),
  /** Ranked: highest G² first, then most posts, then kind and value. Only values over-represented in the window. */
  drivers: z.array(driverSchema),
  /** The first driver's posts in the window: most engagement first (its drill-down lists them all). */
  top_posts: z.array(insightPostSchema),
});
export type DriversResponse = z.infer<typeof driversResponseSchema>;

/** A driver as the drill-down refinement that lists its posts (over the same window). */
export function driverRefine(driver: Pick<Driver, 'kind' | 'value'>): Refine {
  switch (driver.kind) {
    case 'author':
      return { field: 'author', values: [Number(driver.value)] };
    case 'sentiment':
      return { field: 'sentiment', values: [driver.value as 'positive' | 'neutral' | 'negative'] };
    case 'platform':
      return { field: 'platform', values: [driver.value as never] };
    default:
      return { field: driver.kind, values: [driver.value] } as Refine;
  }
}

const whole = (n: number) => Math.round(n).toLocaleString('en-US');
const percent = (share: number) => `${Math.round(share * 100)} %`;

/**
 * The drivers in one sentence, as an alert and the app say them: "+1,240 posts against 310 expected: 71 % of them with
 * outage, 38 % from 3 accounts led by @techdaily_news." The first driver that is not an author, and the authors among
 * the first drivers (at most 3) with the share of the window's posts they wrote.
 */
export function driversSentence(answer: Pick<DriversResponse, 'posts' | 'drivers'>): string {
  const { window, expected, excess } = answer.posts;
  if (excess <= 0)
    return (
      `${whole(window)} posts against ${whole(expected)} expected: no excess to explain` +
      (answer.drivers.length ? '; these values still took a larger share of the posts.' : '.')
    );
  if (!answer.drivers.length)
    return `+${whole(excess)} posts against ${whole(expected)} expected: no value stands out.`;
  const parts: string[] = [];
  const value = answer.drivers.find((d) => d.kind !== 'author');
  if (value) parts.push(`${percent(value.share)} of them with ${value.label}`);
  const authors = answer.drivers.filter((d) => d.kind === 'author').slice(0, 3);
  if (authors.length) {
    const share = percent(authors.reduce((sum, d) => sum + d.posts, 0) / window);
    parts.push(
      authors.length === 1
        ? `${share} from ${authors[0]!.label}`
        : `${share} from ${authors.length} accounts led by ${authors[0]!.label}`,
    );
  }
  return `+${whole(excess)} posts against ${whole(expected)} expected: ${parts.join(', ')}.`;
}
