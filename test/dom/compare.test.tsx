// The Compare tab through the real app against a fake backend: which saved queries it compares (the address's, else the
// first ones), what it asks the server, the address following the checkboxes, the limits of the picker, and what it
// says with fewer than two saved queries. Its figures against the real server's are in
// test/browser/real-server-compare.test.ts.
import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { CompareResponse } from '@contract/insights-compare';
import { COMPARE_MAX } from '@contract/insights-compare';
import { savedQueryFixture } from '@test/support/contract.fixtures';
import { visit } from '@test/support/dashboard-app';

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

async function open(url: string, savedQueries = saved) {
  const asked: string[][] = [];
  const opened = await visit(url, () => ({ status: 500, body: {} }), {
    savedQueries,
    social: (path, body) => {
      if (path !== '/social/insights/compare') return undefined;
      asked.push(body.saved_query_ids as string[]);
      return { status: 200, body: compareFor(body) };
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
