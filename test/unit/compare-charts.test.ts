// The compare dashboard's charts from its answer alone (src/features/insight/compare-charts.ts): share of voice as
// counts and as percentages of each bucket, sentiment as shares of each query's posts, and the platforms any query
// has posts on, with zeros where a query has none.
import { describe, expect, it } from 'vitest';
import type { CompareResponse } from '@contract/insights-compare';
import {
  platformRowsOf,
  platformsChart,
  sentimentChart,
  shareOfVoiceChart,
} from '@/features/insight/compare-charts';

const change = (value: number) => ({ value, previous: 0, change_pct: null });
const answer: CompareResponse = {
  time_zone: 'UTC',
  range: { from: '2026-11-01T00:00:00.000Z', to: '2026-11-03T00:00:00.000Z' },
  previous_range: { from: '2026-10-30T00:00:00.000Z', to: '2026-11-01T00:00:00.000Z' },
  bucket: 'day',
  counted: 'Compared.',
  queries: [
    {
      saved_query_id: '00000000-0000-4000-8000-00000000000a',
      name: 'Coffee',
      query: 'coffee',
      mentions: change(4),
      share: 0.5,
      sentiment: { positive: 1, neutral: 2, negative: 1, average: 0 },
      platforms: [{ platform: 'x', mentions: 4 }],
      top_authors: [],
    },
    {
      saved_query_id: '00000000-0000-4000-8000-00000000000b',
      name: 'Tea',
      query: 'tea',
      mentions: change(4),
      share: 0.5,
      sentiment: { positive: 0, neutral: 0, negative: 0, average: 0 },
      platforms: [
        { platform: 'tiktok', mentions: 3 },
        { platform: 'x', mentions: 1 },
      ],
      top_authors: [],
    },
  ],
  over_time: [
    { start: '2026-11-01T00:00:00.000Z', local: '2026-11-01', mentions: [3, 1] },
    { start: '2026-11-02T00:00:00.000Z', local: '2026-11-02', mentions: [0, 0] },
  ],
  overlap: { posts: 0, pairs: [] },
};

describe('compare charts', () => {
  it('stacks each query’s mentions per bucket, and as percentages of the bucket (a gap, not 0 %, in an empty one)', () => {
    expect(shareOfVoiceChart(answer, false).data.datasets.map((d) => d.data)).toEqual([
      [3, 0],
      [1, 0],
    ]);
    expect(shareOfVoiceChart(answer, true).data.datasets.map((d) => d.data)).toEqual([
      [75, null],
      [25, null],
    ]);
  });

  it('gives sentiment as shares of each query’s posts, and zeros for a query without any', () => {
    expect(sentimentChart(answer).data.datasets.map((d) => [d.label, d.data])).toEqual([
      ['Positive', [25, 0]],
      ['Neutral', [50, 0]],
      ['Negative', [25, 0]],
    ]);
  });

  it('lists every platform a query has posts on, first seen first, with zeros where another has none', () => {
    const rows = platformRowsOf(answer);
    expect(rows).toEqual([
      { platform: 'x', mentions: [4, 1] },
      { platform: 'tiktok', mentions: [0, 3] },
    ]);
    expect(platformsChart(answer, rows).data.datasets.map((d) => [d.label, d.data])).toEqual([
      ['Coffee', [4, 0]],
      ['Tea', [1, 3]],
    ]);
  });
});
