// The scraping area's corpus totals: its day columns are written by the product's one date formatter
// (src/lib/date-time.ts) as the days they are ("5 Nov"), with the day itself in the time element for machines.
import { afterEach, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { TotalsTable } from '@/features/scraping/CorpusTotals';

afterEach(cleanup);

it('heads each day column with the day as every screen writes one, whatever the reader’s zone', () => {
  render(
    <TotalsTable
      data={{
        days: ['2026-10-31', '2026-11-01', '2026-11-05'],
        platforms: [{ platform: 'mastodon', posts: [1, 0, 2], total: 3 }],
        all_time: [{ platform: 'mastodon', posts: 40 }],
      }}
    />,
  );
  const heads = screen.getAllByRole('columnheader').map((cell) => cell.textContent);
  expect(heads).toEqual(['Platform', '31 Oct', '1 Nov', '5 Nov', 'All time']);
  expect(screen.getByText('5 Nov').getAttribute('datetime')).toBe('2026-11-05');
});
