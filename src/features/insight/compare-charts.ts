// The charts of the compare dashboard (ComparePage.tsx), built from its answer alone: share of voice over time
// (stacked counts or percentages), each query's mentions against the previous period, its sentiment as shares, and
// its mentions per platform.
import type { ChartConfiguration } from 'chart.js';
import type { CompareResponse } from '@contract/insights-compare';
import { platformName } from '@/lib/platforms';
import { COLORS } from './charts/colors';
import { formatBucket } from './insight-format';

type Bucket = CompareResponse['over_time'][number];

export const SENTIMENTS = ['positive', 'neutral', 'negative'] as const;
export const SENTIMENT_LABELS = { positive: 'Positive', neutral: 'Neutral', negative: 'Negative' } as const;
export const colorOf = (index: number) => COLORS.series[index % COLORS.series.length]!;
export const totalOf = (row: Bucket) => row.mentions.reduce((sum, n) => sum + n, 0);
/** A bucket's start as the answer's zone and bucket size show it. */
export const bucketLabel = (data: CompareResponse, row: Bucket) =>
  formatBucket(row.start, data.bucket, data.time_zone);

/**
 * A query's share of a bucket's mentions (0–1); null for a bucket without any (an empty bucket, such as the current
 * one before its first post): there is no share to speak of, rather than 0 % for every query.
 */
export const shareIn = (row: Bucket, index: number): number | null => {
  const total = totalOf(row);
  return total ? (row.mentions[index] ?? 0) / total : null;
};

/**
 * Each query's mentions per bucket, stacked; as a share of the bucket's mentions when `percent`, where a bucket
 * without mentions is a gap in every line (null, not spanned), not a fall to 0 %.
 */
export function shareOfVoiceChart(data: CompareResponse, percent: boolean): ChartConfiguration {
  return {
    type: 'line',
    data: {
      labels: data.over_time.map((row) => bucketLabel(data, row)),
      datasets: data.queries.map((query, i) => ({
        label: query.name,
        data: data.over_time.map((row) => {
          if (!percent) return row.mentions[i] ?? 0;
          const share = shareIn(row, i);
          return share === null ? null : share * 100;
        }),
        spanGaps: false,
        borderColor: colorOf(i),
        backgroundColor: `${colorOf(i)}55`,
        fill: i === 0 ? 'origin' : '-1',
        tension: 0,
        pointRadius: 2,
      })),
    },
    options: {
      scales: {
        y: {
          stacked: true,
          beginAtZero: true,
          ...(percent ? { max: 100, ticks: { callback: (v) => `${v}%` } } : {}),
        },
      },
      interaction: { mode: 'nearest', intersect: false },
    },
  };
}

/** Each query's mentions beside the previous period's. */
export function mentionsChart(data: CompareResponse): ChartConfiguration {
  return {
    type: 'bar',
    data: {
      labels: data.queries.map((q) => q.name),
      datasets: [
        {
          label: 'Mentions',
          data: data.queries.map((q) => q.mentions.value),
          backgroundColor: data.queries.map((_, i) => colorOf(i)),
        },
        {
          label: 'Previous period',
          data: data.queries.map((q) => q.mentions.previous),
          backgroundColor: '#c9c7d6',
        },
      ],
    },
    options: { scales: { y: { beginAtZero: true } } },
  };
}

/** Each query's positive, neutral and negative posts as shares of its rated posts (0 each when it has none). */
export function sentimentChart(data: CompareResponse): ChartConfiguration {
  return {
    type: 'bar',
    data: {
      labels: data.queries.map((q) => q.name),
      datasets: SENTIMENTS.map((s) => ({
        label: SENTIMENT_LABELS[s],
        data: data.queries.map((q) => {
          const total = q.sentiment.positive + q.sentiment.neutral + q.sentiment.negative;
          return total ? (q.sentiment[s] / total) * 100 : 0;
        }),
        backgroundColor: COLORS[s],
      })),
    },
    options: {
      indexAxis: 'y',
      scales: { x: { stacked: true, max: 100, ticks: { callback: (v) => `${v}%` } }, y: { stacked: true } },
    },
  };
}

export interface PlatformRow {
  platform: CompareResponse['queries'][number]['platforms'][number]['platform'];
  /** Per query, in the answer's order (0 where the query has none on the platform). */
  mentions: number[];
}

/** Every platform any query has posts on (first seen first), with each query's mentions there. */
export function platformRowsOf(data: CompareResponse): PlatformRow[] {
  const platforms = [...new Set(data.queries.flatMap((q) => q.platforms.map((p) => p.platform)))];
  return platforms.map((platform) => ({
    platform,
    mentions: data.queries.map((q) => q.platforms.find((p) => p.platform === platform)?.mentions ?? 0),
  }));
}

export function platformsChart(data: CompareResponse, rows: readonly PlatformRow[]): ChartConfiguration {
  return {
    type: 'bar',
    data: {
      labels: rows.map((row) => platformName(row.platform)),
      datasets: data.queries.map((query, i) => ({
        label: query.name,
        data: rows.map((row) => row.mentions[i] ?? 0),
        backgroundColor: colorOf(i),
      })),
    },
    options: { scales: { y: { beginAtZero: true } } },
  };
}
