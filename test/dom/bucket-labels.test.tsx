// The overview's buckets are written by the product's one date formatter (src/lib/date-time.ts), in the workspace's
// zone: an hour with the zone named ("3 Nov, 14:00 CET"), a day with its weekday ("Tue 3 Nov"), a week by its first
// day. Read in the chart's table (jsdom draws no canvas), the keyboard's way to every bucket.
import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import type { OverviewResponse } from '@contract/insights-responses';
import { overviewFor, visit } from '@test/support/dashboard-app';

const row = (start: string, local: string, mentions: number): OverviewResponse['over_time'][number] => ({
  start,
  local,
  mentions,
  engagement: 0,
  positive: 0,
  neutral: mentions,
  negative: 0,
  average_sentiment: null,
  spike: false,
});

async function labelsOf(bucket: OverviewResponse['bucket'], over: OverviewResponse['over_time']) {
  await visit('/workspace/w1/insight/overview?q=coffee&range=7d', (body) => ({
    status: 200,
    body: { ...overviewFor(body as { filters: { from: string; to: string } }, 3), bucket, over_time: over },
  }));
  // The app's first render (routes, session, workspace) can pass the default second on a loaded machine.
  const table = await screen.findByRole('table', { name: 'Mentions over time' }, { timeout: 10_000 });
  return [...table.querySelectorAll('tbody th')].map((cell) => cell.textContent);
}

describe('the overview over time', () => {
  it('names each hour with its zone', async () => {
    expect(
      await labelsOf('hour', [
        row('2026-11-03T13:00:00Z', '2026-11-03T14:00:00', 1),
        row('2026-11-03T14:00:00Z', '2026-11-03T15:00:00', 2),
      ]),
    ).toEqual(['3 Nov, 14:00 CET', '3 Nov, 15:00 CET']);
  });

  it('writes days with their weekday, in the zone', async () => {
    // 23:00 UTC on the 2nd is already the 3rd in Berlin.
    expect(await labelsOf('day', [row('2026-11-02T23:00:00Z', '2026-11-03T00:00:00', 1)])).toEqual([
      'Tue 3 Nov',
    ]);
  });

  it('writes weeks by their first day', async () => {
    expect(await labelsOf('week', [row('2026-11-01T23:00:00Z', '2026-11-02T00:00:00', 1)])).toEqual([
      'Week of Mon 2 Nov',
    ]);
  });
});
