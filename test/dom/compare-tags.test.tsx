// Compare's two modes through the real app against a fake backend: the choice "Compare saved queries | Compare tags"
// (a labelled radio group, changed from the keyboard), the mode and the tags in the address (a reload keeps them),
// what tags mode asks the server (the tags, and the saved query they are compared in or none for every post; never
// saved_query_ids), the labelled tag picker and the scope picked, the answer's columns named by their tags and
// drilling down to the scope's posts carrying the tag, and back to saved queries.
import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { CompareResponse } from '@contract/insights-compare';
import type { TagCategoriesResponse } from '@contract/tags';
import { savedQueryFixture } from '@test/support/contract.fixtures';
import { visit } from '@test/support/dashboard-app';

const QUERIES = ['00000000-0000-4000-8000-00000000000a', '00000000-0000-4000-8000-00000000000b'];
const saved = QUERIES.map((id, i) => savedQueryFixture(id, 'w1', { name: `Brand ${i + 1}` }));
const [DRINKS, FOOD, PRAISE] = [1, 2, 3].map((n) => `20000000-0000-4000-8000-00000000000${n}`) as [
  string,
  string,
  string,
];
const tag = (id: string, category: string, name: string) => ({
  id,
  category_id: category,
  name,
  rules: [],
  posts: 0,
});
const categories: TagCategoriesResponse = {
  categories: [
    { id: 'c1', name: 'Topic', tags: [tag(DRINKS, 'c1', 'Drinks'), tag(FOOD, 'c1', 'Food')] },
    { id: 'c2', name: 'Tone', tags: [tag(PRAISE, 'c2', 'Praise')] },
  ],
};
const NAMES: Record<string, string> = {
  [DRINKS]: 'Topic › Drinks',
  [FOOD]: 'Topic › Food',
  [PRAISE]: 'Tone › Praise',
};

/** An answer for the body: its tags as columns (or its saved queries), each with `10 × (its place + 1)` mentions. */
function compareFor(body: Record<string, unknown>): CompareResponse {
  const filters = body.filters as { from: string; to: string };
  const tags = body.tag_ids as string[] | undefined;
  const columns = tags ?? (body.saved_query_ids as string[]);
  return {
    time_zone: 'Europe/Berlin',
    range: { from: filters.from, to: filters.to },
    previous_range: { from: filters.from, to: filters.to },
    bucket: 'day',
    counted: 'Compared.',
    mode: tags ? 'tags' : 'saved_queries',
    queries: columns.map((id, i) => ({
      saved_query_id: tags ? ((body.saved_query_id as string | undefined) ?? null) : id,
      ...(tags && { tag_id: id }),
      name: tags ? NAMES[id]! : saved.find((q) => q.id === id)!.name,
      query: 'coffee',
      mentions: { value: 10 * (i + 1), previous: 0, change_pct: null },
      share: 1 / columns.length,
      sentiment: { positive: 1, neutral: 0, negative: 0, average: 0.5 },
      platforms: [{ platform: 'x', mentions: 10 * (i + 1) }],
      top_authors: [],
    })),
    over_time: [],
    overlap: { posts: 0, pairs: [] },
  };
}

async function open(url: string) {
  const bodies: Array<Record<string, unknown>> = [];
  const opened = await visit(url, () => ({ status: 500, body: {} }), {
    savedQueries: saved,
    tagCategories: categories,
    social: (path, body) => {
      if (path !== '/social/insights/compare') return undefined;
      bodies.push(body);
      return { status: 200, body: compareFor(body) };
    },
  });
  const search = () => new URLSearchParams(opened.history.location.search);
  return { ...opened, bodies, search };
}

/** The mode's radio group (a fieldset, its legend its name). */
const modeChoice = () => screen.findByRole('group', { name: 'What to compare' });

describe("Compare's mode", () => {
  it('switches to tags from the keyboard, keeps the mode in the address and asks for the tags', async () => {
    const { bodies, search } = await open(
      `/workspace/w1/insight/compare?compare=${QUERIES.join(',')}&range=7d`,
    );
    await waitFor(() => expect(bodies.at(-1)?.saved_query_ids).toEqual(QUERIES));
    const choice = await modeChoice();
    const queriesRadio = within(choice).getByRole<HTMLInputElement>('radio', {
      name: 'Compare saved queries',
    });
    const tagsRadio = within(choice).getByRole<HTMLInputElement>('radio', { name: 'Compare tags' });
    expect(queriesRadio.checked).toBe(true);
    tagsRadio.focus();
    await userEvent.keyboard(' ');
    await waitFor(() => expect(search().get('mode')).toBe('tags'));
    expect(tagsRadio.checked).toBe(true);
    // The saved queries' choice stays in the address for the way back.
    expect(search().get('compare')).toBe(QUERIES.join(','));

    // The first two tags over every post (the view has no saved query), by default.
    await waitFor(() => expect(bodies.at(-1)?.tag_ids).toEqual([DRINKS, FOOD]));
    expect(bodies.at(-1)).not.toHaveProperty('saved_query_ids');
    expect(bodies.at(-1)).not.toHaveProperty('saved_query_id');
    expect(screen.getByRole<HTMLSelectElement>('combobox', { name: 'Within' }).value).toBe('');
    const picker = await screen.findByRole('group', { name: 'Tags compared' });
    const box = (name: string) => within(picker).getByRole<HTMLInputElement>('checkbox', { name });
    expect([
      box('Topic › Drinks').checked,
      box('Topic › Food').checked,
      box('Tone › Praise').checked,
    ]).toEqual([true, true, false]);
    // Checked from the keyboard: the address and the request follow, in the order checked.
    box('Tone › Praise').focus();
    await userEvent.keyboard(' ');
    await waitFor(() => expect(search().get('tags')).toBe([DRINKS, FOOD, PRAISE].join(',')));
    await waitFor(() => expect(bodies.at(-1)?.tag_ids).toEqual([DRINKS, FOOD, PRAISE]));

    // Another saved query to compare them in.
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Within' }), 'Brand 2');
    await waitFor(() => expect(bodies.at(-1)).toMatchObject({ saved_query_id: QUERIES[1] }));
    expect(search().get('mode')).toBe('tags');
    expect(search().get('tags')).toBe([DRINKS, FOOD, PRAISE].join(','));

    // Another range keeps the choice.
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Date range' }), 'Last 30 days');
    await waitFor(() => expect(search().get('range')).toBe(null));
    expect([search().get('mode'), search().get('tags'), search().get('compare')]).toEqual([
      'tags',
      [DRINKS, FOOD, PRAISE].join(','),
      QUERIES.join(','),
    ]);
  });

  it('opens in tags mode from the address (a reload), names the columns by their tags and drills into them', async () => {
    const { bodies, history } = await open(
      `/workspace/w1/insight/compare?mode=tags&tags=${PRAISE},${DRINKS}&query=${QUERIES[1]}&range=7d`,
    );
    await waitFor(() =>
      expect(bodies.at(-1)).toMatchObject({ saved_query_id: QUERIES[1], tag_ids: [PRAISE, DRINKS] }),
    );
    const choice = await modeChoice();
    expect(within(choice).getByRole<HTMLInputElement>('radio', { name: 'Compare tags' }).checked).toBe(true);
    expect(screen.getByRole<HTMLSelectElement>('combobox', { name: 'Within' }).value).toBe(QUERIES[1]);
    const card = (
      await screen.findByRole('heading', { name: 'Mentions against the previous period' })
    ).closest('section')!;
    const table = within(card).queryByRole('button', { name: 'Table' });
    if (table) await userEvent.click(table);
    expect(within(card).getByRole('columnheader', { name: 'Tag' })).toBeTruthy();
    await userEvent.click(within(card).getByRole('button', { name: 'Posts of Tone › Praise' }));
    await waitFor(() => expect(history.location.pathname).toBe('/workspace/w1/insight/filtered-posts'));
    const params = new URLSearchParams(history.location.search);
    expect(params.get('query')).toBe(QUERIES[1]);
    expect(params.get('refine')).toBe(`tag:${PRAISE}`);
  });

  it('drills into every post carrying a tag when the tags are compared over every post', async () => {
    const { bodies, history } = await open(`/workspace/w1/insight/compare?mode=tags&range=7d`);
    await waitFor(() => expect(bodies.at(-1)?.tag_ids).toEqual([DRINKS, FOOD]));
    const card = (
      await screen.findByRole('heading', { name: 'Mentions against the previous period' })
    ).closest('section')!;
    const table = within(card).queryByRole('button', { name: 'Table' });
    if (table) await userEvent.click(table);
    await userEvent.click(within(card).getByRole('button', { name: 'Posts of Topic › Food' }));
    await waitFor(() => expect(history.location.pathname).toBe('/workspace/w1/insight/filtered-posts'));
    const params = new URLSearchParams(history.location.search);
    expect(params.has('query')).toBe(false);
    expect(params.get('refine')).toBe(`tag:${FOOD}`);
  });

  it('goes back to saved queries, leaving the mode out of the address', async () => {
    const { bodies, search } = await open(`/workspace/w1/insight/compare?mode=tags&range=7d`);
    await waitFor(() => expect(bodies.at(-1)).toHaveProperty('tag_ids'));
    await userEvent.click(within(await modeChoice()).getByRole('radio', { name: 'Compare saved queries' }));
    await waitFor(() => expect(search().has('mode')).toBe(false));
    await waitFor(() => expect(bodies.at(-1)?.saved_query_ids).toEqual(QUERIES));
    expect(await screen.findByRole('group', { name: 'Saved queries compared' })).toBeTruthy();
  });
});
