// The Compare tab through the real app against a fake backend: which saved queries it compares (the address's, else the
// first ones), what it asks the server, the address following the checkboxes, the limits of the picker, and what it
// says with fewer than two saved queries. Its figures against the real server's are in
// test/browser/real-server-compare.test.ts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { CompareResponse } from '@contract/insights-compare';
import type { TagCategoriesResponse } from '@contract/tags';
import { COMPARE_MAX } from '@contract/insights-compare';
import { savedQueryFixture } from '@test/support/contract.fixtures';
import { visit } from '@test/support/dashboard-app';
import { shareOfVoiceChart } from '@/features/insight/compare-charts';

const ids = ['00000000-0000-4000-8000-00000000000a', '00000000-0000-4000-8000-00000000000b'];
const more = Array.from({ length: 5 }, (_, i) => `00000000-0000-4000-8000-00000000010${i}`);
const saved = [...ids, ...more].map((id, i) => savedQueryFixture(id, 'w1', { name: `Brand ${i + 1}` }));

/** An answer for the body's queries: each with `10 × (its place + 1)` mentions. */
function compareFor(body: Record<string, unknown>): CompareResponse {
  const asked = body.saved_query_ids as string[];
  const filters = body.filters as { from: string; to: string };
  const change = (value: number) => ({ value, previous: 0, change_pct: null });
  return {
    time_zone: 'Europe/Berlin',
    range: { from: filters.from, to: filters.to },
    previous_range: { from: filters.from, to: filters.to },
    bucket: 'day',
    counted: 'Compared.',
    queries: asked.map((id, i) => ({
      saved_query_id: id,
      name: saved.find((q) => q.id === id)!.name,
      query: 'coffee',
      mentions: change(10 * (i + 1)),
      share: (i + 1) / asked.reduce((sum, _, j) => sum + j + 1, 0),
      sentiment: { positive: 1, neutral: 0, negative: 0, average: 0.5 },
      platforms: [{ platform: 'x', mentions: 10 * (i + 1) }],
      top_authors: [],
    })),
    over_time: [],
    overlap: { posts: 0, pairs: [] },
  };
}

const DRINKS = '20000000-0000-4000-8000-000000000001';
const categories: TagCategoriesResponse = {
  categories: [
    {
      id: 'c1',
      name: 'Topic',
      tags: [{ id: DRINKS, category_id: 'c1', name: 'Drinks', rules: [] }],
    },
  ],
};

async function open(
  url: string,
  savedQueries = saved,
  overTime: CompareResponse['over_time'] = [],
  bodies: Array<Record<string, unknown>> = [],
) {
  const asked: string[][] = [];
  const opened = await visit(url, () => ({ status: 500, body: {} }), {
    savedQueries,
    tagCategories: categories,
    social: (path, body) => {
      if (path !== '/social/insights/compare') return undefined;
      asked.push(body.saved_query_ids as string[]);
      bodies.push(body);
      return { status: 200, body: { ...compareFor(body), over_time: overTime } };
    },
  });
  return { ...opened, asked };
}

describe('the Compare tab', () => {
  it('compares the queries the address names, and follows the checkboxes in the address', async () => {
    const { asked, history } = await open(`/workspace/w1/insight/compare?compare=${ids.join(',')}&range=7d`);
    await waitFor(() => expect(asked).toEqual([ids]));
    const picker = await screen.findByRole('group', { name: 'Saved queries compared' });
    const box = (name: string) => within(picker).getByRole<HTMLInputElement>('checkbox', { name });
    expect(box('Brand 1').checked).toBe(true);
    expect(box('Brand 2').checked).toBe(true);
    expect(box('Brand 3').checked).toBe(false);
    await userEvent.click(box('Brand 3'));
    await waitFor(() =>
      expect(new URLSearchParams(history.location.search).get('compare')).toBe([...ids, more[0]].join(',')),
    );
    await waitFor(() => expect(asked.at(-1)).toEqual([...ids, more[0]]));
  });

  it(`stops at ${COMPARE_MAX} queries: the others cannot be checked`, async () => {
    const five = [...ids, ...more.slice(0, 3)];
    await open(`/workspace/w1/insight/compare?compare=${five.join(',')}&range=7d`);
    await screen.findByRole('group', { name: 'Saved queries compared' });
    expect(screen.getByRole('checkbox', { name: 'Brand 6' })).toHaveProperty('disabled', true);
    expect(screen.getByRole('checkbox', { name: 'Brand 1' })).toHaveProperty('disabled', false);
  });

  it('compares the first saved queries without an address, and says what to do with fewer than two', async () => {
    const first = await open('/workspace/w1/insight/compare?range=7d');
    await waitFor(() => expect(first.asked).toEqual([ids]));
    first.app.session.actor.stop();

    const lonely = await open('/workspace/w1/insight/compare?range=7d', saved.slice(0, 1));
    await screen.findByText('Choose at least two saved queries');
    expect(
      screen.getByText('Compare needs two saved queries or more: save another query first.'),
    ).toBeTruthy();
    expect(lonely.asked).toEqual([]);
  });
});

describe("the view's refinements in Compare", () => {
  it('sends a tag refinement with the queries, names it in its chip, and keeps it in a drill-down', async () => {
    const bodies: Array<Record<string, unknown>> = [];
    const { history } = await open(
      `/workspace/w1/insight/compare?compare=${ids.join(',')}&range=7d&refine=tag:${DRINKS}`,
      saved,
      [],
      bodies,
    );
    await waitFor(() => expect(bodies.length).toBeGreaterThan(0));
    expect(bodies.at(-1)!.refine).toEqual([{ field: 'tag', values: [DRINKS] }]);
    const chips = await screen.findByRole('group', { name: 'Drill-down refinements' });
    await within(chips).findByText('Tag: only Topic › Drinks');
    expect(chips.textContent).not.toContain(DRINKS);

    const card = (
      await screen.findByRole('heading', { name: 'Mentions against the previous period' })
    ).closest('section')!;
    const table = within(card).queryByRole('button', { name: 'Table' });
    if (table) await userEvent.click(table);
    await userEvent.click(within(card).getByRole('button', { name: 'Posts of Brand 1' }));
    await waitFor(() => expect(history.location.pathname).toBe('/workspace/w1/insight/filtered-posts'));
    expect(new URLSearchParams(history.location.search).get('refine')).toBe(`tag:${DRINKS}`);
  });

  it('sends no refine without refinements', async () => {
    const bodies: Array<Record<string, unknown>> = [];
    await open(`/workspace/w1/insight/compare?compare=${ids.join(',')}&range=7d`, saved, [], bodies);
    await waitFor(() => expect(bodies.length).toBeGreaterThan(0));
    expect(bodies.at(-1)).not.toHaveProperty('refine');
  });
});

describe('share of voice over time', () => {
  // Two full days, then today: partial, and no post yet.
  const overTime: CompareResponse['over_time'] = [
    { start: '2026-11-01T23:00:00Z', local: '2026-11-02T00:00:00', mentions: [3, 1] },
    { start: '2026-11-02T23:00:00Z', local: '2026-11-03T00:00:00', mentions: [1, 1] },
    { start: '2026-11-03T23:00:00Z', local: '2026-11-04T00:00:00', mentions: [0, 0] },
  ];
  const answer = {
    ...compareFor({ saved_query_ids: ids, filters: { from: 'a', to: 'b' } }),
    over_time: overTime,
  };
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('leaves a gap for a bucket without posts instead of 0 % for every query', () => {
    const shares = shareOfVoiceChart(answer, true).data.datasets;
    expect(shares.map((set) => set.data)).toEqual([
      [75, 50, null],
      [25, 50, null],
    ]);
    // Not joined across the gap.
    expect(shares.map((set) => (set as { spanGaps?: boolean }).spanGaps)).toEqual([false, false]);
    // The stacked counts are counts: the empty bucket has 0 mentions.
    expect(shareOfVoiceChart(answer, false).data.datasets.map((set) => set.data)).toEqual([
      [3, 1, 0],
      [1, 1, 0],
    ]);
  });

  it('says "no posts" in the table and leaves the CSV fields empty for that bucket', async () => {
    await open(`/workspace/w1/insight/compare?compare=${ids.join(',')}&range=7d`, saved, overTime);
    // jsdom draws no canvas: the table is the card's view.
    const table = await screen.findByRole('table', { name: 'Share of voice over time' }, { timeout: 10_000 });
    const cells = [...table.querySelectorAll('tbody tr')].map((row) =>
      [...row.querySelectorAll('td.numeric')].map((cell) => cell.textContent),
    );
    expect(cells).toEqual([
      ['75%', '25%'],
      ['50%', '50%'],
      ['no posts', 'no posts'],
    ]);

    let saved_: Blob | undefined;
    URL.createObjectURL ??= () => '';
    URL.revokeObjectURL ??= () => {};
    vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
      saved_ = blob as Blob;
      return 'blob:csv';
    });
    await userEvent.click(screen.getByRole('button', { name: 'Download Share of voice over time as CSV' }));
    await waitFor(() => expect(saved_).toBeDefined());
    const records = (await saved_!.text()).split('\r\n').filter((line) => line && !line.startsWith('#'));
    expect(records.slice(-3).map((line) => line.split(',').slice(1))).toEqual([
      ['0.75', '0.25'],
      ['0.5', '0.5'],
      ['', ''],
    ]);
  });
});

describe('the Compare tab\'s sentiment with "not rated" posts', () => {
  it('gives them a column of their own and says what they are; none without them', async () => {
    const answer = (body: Record<string, unknown>) => {
      const base = compareFor(body);
      return {
        ...base,
        queries: base.queries.map((q, i) => ({
          ...q,
          sentiment: { positive: 6, neutral: 2, negative: 2, not_rated: i === 0 ? 4 : 0, average: 0.2 },
        })),
      };
    };
    await visit(
      `/workspace/w1/insight/compare?compare=${ids.join(',')}&range=7d`,
      () => ({ status: 500, body: {} }),
      {
        savedQueries: saved,
        social: (path, body) =>
          path === '/social/insights/compare' ? { status: 200, body: answer(body) } : undefined,
      },
    );
    const table = await screen.findByRole('table', { name: 'Sentiment' }, { timeout: 10_000 });
    const headers = [...table.querySelectorAll('thead th')].map((cell) => cell.textContent);
    expect(headers).toContain('Not rated');
    const rows = [...table.querySelectorAll('tbody tr')].map((row) =>
      [...row.querySelectorAll('td.numeric')].map((cell) => cell.textContent),
    );
    expect(rows).toEqual([
      ['6', '2', '2', '4'],
      ['6', '2', '2', '0'],
    ]);
    const section = table.closest('section')!;
    expect(section.textContent).toContain('Not rated: too little text to tell');
  });

  it('shows the three labels alone for an answer without not_rated', async () => {
    await open(`/workspace/w1/insight/compare?compare=${ids.join(',')}&range=7d`);
    const table = await screen.findByRole('table', { name: 'Sentiment' }, { timeout: 10_000 });
    expect([...table.querySelectorAll('thead th')].map((cell) => cell.textContent)).not.toContain(
      'Not rated',
    );
    expect(table.closest('section')!.textContent).not.toContain('too little text');
  });
});
