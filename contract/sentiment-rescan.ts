// The rescan of the corpus to a new sentiment model (server/social/corpus/rescan.ts): its progress on the scraping
// area (staff only, GET /api/scraping/sentiment-rescan) and, while it runs, on the sentiment figures' answers (the
// overview's `sentiment_rescan`), with the sentences the SPA shows for it.
import * as z from 'zod/mini';

export const sentimentRescanSchema = z.object({
  /** The version the corpus is being brought to (the server's model). */
  model: z.string(),
  /** Posts rescored so far, of `total` that needed it. */
  rescanned: z.int(),
  total: z.int(),
  /** Whole percent of `total` rescanned (rounded down: 100 only when finished). */
  percent: z.int(),
  /** At the rate so far; null before a rate is known. */
  seconds_left: z.nullable(z.int()),
  /**
   * Posts of the whole corpus per scorer version that counted them, at most a few seconds old: while the rescan runs,
   * the sentiment figures count each post with the label of the version beside it.
   */
  models: z.record(z.string(), z.int()),
  started_at: z.string(),
  /** Null while it runs. */
  finished_at: z.nullable(z.string()),
});
export type SentimentRescan = z.infer<typeof sentimentRescanSchema>;

export const sentimentRescanStatusSchema = z.object({
  /** The server's sentiment model version (what posts scored now record). */
  model: z.string(),
  /** The rescan to it; null when none was ever needed (every post scored by it from the start). */
  rescan: z.nullable(sentimentRescanSchema),
});
export type SentimentRescanStatus = z.infer<typeof sentimentRescanStatusSchema>;

const count = (n: number) => n.toLocaleString('en-US');

/** "about 4 minutes left", "about 1 minute left", "less than a minute left", "about 2 hours left". */
function timeLeft(seconds: number): string {
  if (seconds < 60) return 'less than a minute left';
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `about ${minutes} minute${minutes === 1 ? '' : 's'} left`;
  const hours = Math.round(minutes / 60);
  return `about ${hours} hours left`;
}

/** The internal screen's line: "Rescanning sentiment with model m: 43 % (430,000 of 1,000,000), about 4 minutes left". */
export function rescanLine(rescan: SentimentRescan): string {
  if (rescan.finished_at)
    return `Sentiment: every post scored by model ${rescan.model} (${count(rescan.rescanned)} rescanned).`;
  const left = rescan.seconds_left === null ? '' : `, ${timeLeft(rescan.seconds_left)}`;
  return (
    `Rescanning sentiment with model ${rescan.model}: ${rescan.percent} % ` +
    `(${count(rescan.rescanned)} of ${count(rescan.total)})${left}`
  );
}

const NUMBER_WORDS = ['no', 'one', 'two', 'three', 'four', 'five'];

/**
 * The sentiment panel's note while a rescan runs: "Counted by two models until the rescan ends: 43 % rescanned". A
 * rescan while every post is of one model is rating the posts stored before ratings were recorded (migration 0041):
 * until it ends, some of those too short to rate still count as rated (docs/sentiment.md, "Not rated").
 */
export function rescanNote(rescan: SentimentRescan): string {
  const models = Object.keys(rescan.models).length;
  if (models === 1)
    return `Some posts too short to rate may count as rated until the rescan ends: ${rescan.percent} % rescanned`;
  const word = NUMBER_WORDS[models] ?? String(models);
  return `Counted by ${word} model${models === 1 ? '' : 's'} until the rescan ends: ${rescan.percent} % rescanned`;
}
