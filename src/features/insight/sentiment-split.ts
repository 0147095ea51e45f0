// The overview's sentiment split: the rated posts' labels, and "not rated" apart (too little text to rate;
// docs/sentiment.md, "Not rated in the dashboards"), whose shares are of the rated posts. An older server's answer has
// no not_rated: none is shown then.
import type { OverviewResponse } from '@contract/insights-responses';

export const SENTIMENTS = ['positive', 'neutral', 'negative'] as const;
export const SENTIMENT_LABELS = {
  positive: 'Positive',
  neutral: 'Neutral',
  negative: 'Negative',
  not_rated: 'Not rated',
} as const;

export interface SplitRow {
  sentiment: keyof typeof SENTIMENT_LABELS;
  posts: number;
}

/** The split's rows with posts (not rated last), how many are not rated, and a row's share of the rated posts. */
export function sentimentSplit(sentiment: OverviewResponse['sentiment']) {
  const notRated = sentiment.not_rated ?? 0;
  const rows: SplitRow[] = [
    ...SENTIMENTS.map((label) => ({ sentiment: label, posts: sentiment[label] })),
    { sentiment: 'not_rated' as const, posts: notRated },
  ].filter((row) => row.posts > 0);
  const rated = sentiment.positive + sentiment.neutral + sentiment.negative;
  const shareOf = (row: SplitRow) => (row.sentiment === 'not_rated' || !rated ? null : row.posts / rated);
  return { rows, notRated, shareOf };
}
