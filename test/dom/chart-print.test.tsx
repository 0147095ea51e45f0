// Printing from the browser's menu before Chart.js's chunk has loaded: `beforeprint` cannot wait for the code, and the
// browser lays the printed page out as soon as its listeners return, so a chart that cannot be drawn in that task
// prints its card's table (the same rows) in its place instead of a blank box, and is a chart again after printing.
// Its own file: Chart.js must not have been loaded by another test of the module registry.
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import type { ChartConfiguration } from 'chart.js';
import { ChartCard } from '@/features/insight/ChartCard';

/** An observer that never reports a box near the viewport: every chart waits below the fold. */
class NeverNear {
  observe() {}
  unobserve() {}
  disconnect() {}
}

beforeAll(() => {
  vi.stubGlobal('IntersectionObserver', NeverNear);
});
afterAll(() => vi.unstubAllGlobals());
afterEach(cleanup);

const CONFIG: ChartConfiguration = {
  type: 'bar',
  data: { labels: ['a', 'b'], datasets: [{ data: [3, 5] }] },
};
const ROWS = [
  { name: 'alpha', posts: 3 },
  { name: 'beta', posts: 5 },
];

it('prints the table of a chart not drawn when printing starts, and shows the chart again after', () => {
  render(
    <ChartCard
      title="Platforms"
      dashboard="overview"
      meta={{
        query: 'coffee',
        range: { from: '2026-11-01T00:00:00Z', to: '2026-11-08T00:00:00Z' },
        timeZone: 'UTC',
        counted: '8 posts counted.',
      }}
      rows={ROWS}
      columns={[
        { label: 'Platform', value: (row) => row.name },
        { label: 'Posts', value: (row) => row.posts, numeric: true },
      ]}
      chart={{ config: CONFIG, summary: 'Posts per platform' }}
    />,
  );
  expect(screen.queryByRole('table')).toBeNull();
  expect(screen.getByRole('img', { name: 'Posts per platform' })).toBeTruthy();

  // The listeners run, and the page is laid out for print right after: no later task.
  window.dispatchEvent(new Event('beforeprint'));
  const table = screen.getByRole('table', { name: 'Platforms' });
  expect([...table.querySelectorAll('tbody th')].map((cell) => cell.textContent)).toEqual(['alpha', 'beta']);

  act(() => void window.dispatchEvent(new Event('afterprint')));
  expect(screen.queryByRole('table')).toBeNull();
  expect(screen.getByRole('img', { name: 'Posts per platform' })).toBeTruthy();
});
