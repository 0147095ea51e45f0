// The 503 every figure's call answers while no analytics store can answer it (dashboards, Compare, the post and
// profile pages, discover, the query check's count, saved queries' volume, the corpus totals, shared views), and the
// words the SPA says meanwhile. `figures_preparing`: the store is opening, rebuilding, restarting or applying the
// change feed, and answers once it is done (Retry-After says when to ask again, `progress` how far it is);
// `figures_unavailable`: it is down, turned off or out of reach, and waiting is not known to help.
import * as z from 'zod/mini';

export const FIGURES_PREPARING = 'figures_preparing';
export const FIGURES_UNAVAILABLE = 'figures_unavailable';

/** What a number of the progress is when the server does not know it yet: null. */
const unknown = <T extends z.ZodMiniType>(schema: T) => z.nullable(schema);

export const figuresProgressSchema = z.object({
  phase: z.enum(['opening', 'rebuilding', 'restarting', 'applying']),
  done: unknown(z.number().check(z.gte(0))),
  total: unknown(z.number().check(z.gte(0))),
  /** Of the phase, a whole number 0..100. */
  percent: unknown(z.int().check(z.gte(0), z.lte(100))),
  /** The time the phase still needs, as the server measures it. */
  eta_seconds: unknown(z.number().check(z.gte(0))),
});

/** The body of the 503 (its Retry-After, 1..60 seconds, is a header). */
export const figuresWaitSchema = z.object({
  error: z.enum([FIGURES_PREPARING, FIGURES_UNAVAILABLE]),
  /** A sentence for people. */
  message: z.string(),
  progress: z.optional(figuresProgressSchema),
});

export type FiguresProgress = z.infer<typeof figuresProgressSchema>;
export type FiguresWait = z.infer<typeof figuresWaitSchema>;

/** A wait in words people use: "less than a minute", "about 1 minute", "about 4 minutes", "about 2 hours". */
export function humaneDuration(seconds: number): string {
  if (seconds < 60) return 'less than a minute';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `about ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}`;
  const hours = Math.round(seconds / 3600);
  return `about ${hours} ${hours === 1 ? 'hour' : 'hours'}`;
}

/**
 * The wait as the page says it: "Preparing figures: 43 %, about 4 minutes left" with what is known (the percent, the
 * time left, or both), "Preparing figures…" when neither is.
 */
export function figuresWaitText(progress: FiguresProgress | null | undefined): string {
  const parts: string[] = [];
  if (progress?.percent != null) parts.push(`${progress.percent} %`);
  if (progress?.eta_seconds != null) parts.push(`${humaneDuration(progress.eta_seconds)} left`);
  return parts.length ? `Preparing figures: ${parts.join(', ')}` : 'Preparing figures…';
}
