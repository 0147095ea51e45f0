// The overview's By category card (CategoryBreakdown.tsx) through the real app against a fake backend: it asks POST
// /social/insights/categories with the view's body and the first category, draws a bar a tag with its name and count as
// text and "Untagged" apart; the select asks again for another category; a tag's button, pressed from the keyboard,
// opens its posts refined to the tag, whose chip names it ("Topic › Drinks"); a workspace without categories says so,
// with a link to Settings › Categories for an owner only; the rows download as CSV; a category deleted meanwhile
// (404 category_not_found) makes the card read the list again and show the first left. A `tag` chip names an unknown
// tag "a tag", never its id.
import { describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { CategoryBreakdownResponse } from '@contract/insights-categories';
import type { TagCategoriesResponse } from '@contract/tags';
import { overviewFor, visit } from '@test/support/dashboard-app';

const TOPIC = '10000000-0000-4000-8000-000000000001';
const PRODUCT = '10000000-0000-4000-8000-000000000002';
const DRINKS = '20000000-0000-4000-8000-000000000001';
const FOOD = '20000000-0000-4000-8000-000000000002';
const MUSIC = '20000000-0000-4000-8000-000000000003';
const APP = '20000000-0000-4000-8000-000000000004';

const tag = (id: string, categoryId: string, name: string) => ({
  id,
  category_id: categoryId,
  name,
  rules: [],
  posts: 99,
});

const categories: TagCategoriesResponse = {
  categories: [
    {
      id: TOPIC,
      name: 'Topic',
      tags: [tag(DRINKS, TOPIC, 'Drinks'), tag(FOOD, TOPIC, 'Food'), tag(MUSIC, TOPIC, 'Music')],
    },
    { id: PRODUCT, name: 'Product line', tags: [tag(APP, PRODUCT, 'App')] },
  ],
};

function breakdown(body: Record<string, unknown>): CategoryBreakdownResponse {
  const filters = body.filters as { from: string; to: string };
  const base = {
    time_zone: 'Europe/Berlin',
    range: { from: filters.from, to: filters.to },
    query: 'coffee',
    posts: 40,
  };
  return body.category_id === TOPIC
    ? {
        ...base,
        counted: 'Posts matching "coffee", per tag of Topic.',
        category: { id: TOPIC, name: 'Topic' },
        tags: [
          { id: DRINKS, name: 'Drinks', posts: 12, share: 0.3 },
          { id: FOOD, name: 'Food', posts: 6, share: 0.15 },
          { id: MUSIC, name: 'Music', posts: 0, share: 0 },
        ],
        tagged: 16,
        untagged: 24,
      }
    : {
        ...base,
        counted: 'Posts matching "coffee", per tag of Product line.',
        category: { id: PRODUCT, name: 'Product line' },
        tags: [{ id: APP, name: 'App', posts: 7, share: 0.175 }],
        tagged: 7,
        untagged: 33,
      };
}

async function openOverview(backend: Parameters<typeof visit>[2] & { gone?: string } = {}, refine = '') {
  const asked: Array<Record<string, unknown>> = [];
  const opened = await visit(
    `/workspace/w1/insight/overview?q=coffee&range=7d${refine}`,
    (body) => ({ status: 200, body: overviewFor(body as never, 40) }),
    {
      ...backend,
      social: (path, body) => {
        if (path !== '/social/insights/categories') return undefined;
        asked.push(body);
        if (body.category_id === backend.gone) {
          return { status: 404, body: { error: 'category_not_found', message: 'No such category.' } };
        }
        return { status: 200, body: breakdown(body) };
      },
    },
  );
  const card = (await screen.findByRole('heading', { name: 'By category' })).closest('section')!;
  return { ...opened, asked, card };
}

describe('the By category card', () => {
  it('draws the first category’s tags, asks again for another, and opens a tag’s posts', async () => {
    const { asked, card, history } = await openOverview({ tagCategories: categories });
    const bars = await within(card).findByRole('list', { name: 'Posts per tag of Topic' });
    expect(asked[0]).toMatchObject({ workspace_id: 'w1', query: 'coffee', category_id: TOPIC });
    const rows = within(bars).getAllByRole('listitem');
    expect(rows.map((row) => row.textContent)).toEqual([
      'Drinks12 posts (30%)',
      'Food6 posts (15%)',
      'Music0 posts (0%)',
    ]);
    // A tag without posts opens nothing.
    expect(within(rows[2]!).queryByRole('button')).toBeNull();
    const untagged = within(card).getByRole('button', { name: 'Untagged: posts without a tag of Topic' });
    expect(untagged.closest('p')!.textContent).toBe('Untagged24 posts (60%)');
    expect(card.textContent).toContain('With a tag of Topic: 16 of 40 posts.');
    expect(card.textContent).toContain('Posts matching "coffee", per tag of Topic.');

    await userEvent.selectOptions(within(card).getByRole('combobox', { name: 'Category' }), 'Product line');
    const product = await within(card).findByRole('list', { name: 'Posts per tag of Product line' });
    expect(asked.at(-1)).toMatchObject({ query: 'coffee', category_id: PRODUCT });
    expect(
      within(product)
        .getAllByRole('listitem')
        .map((row) => row.textContent),
    ).toEqual(['App7 posts (17.5%)']);

    await userEvent.selectOptions(within(card).getByRole('combobox', { name: 'Category' }), 'Topic');
    const drinks = await within(card).findByRole('button', { name: 'Posts tagged Topic › Drinks' });
    drinks.focus();
    await userEvent.keyboard('{Enter}');
    await waitFor(() => expect(history.location.pathname).toBe('/workspace/w1/insight/filtered-posts'));
    expect(new URLSearchParams(history.location.search).get('refine')).toBe(`tag:${DRINKS}`);
    const chips = await screen.findByRole('group', { name: 'Drill-down refinements' });
    await within(chips).findByText('Tag: only Topic › Drinks');
    expect(chips.textContent).not.toContain(DRINKS);
  });

  it('keeps the chosen category in the address, and opens it from there', async () => {
    const { asked, card, history } = await openOverview({ tagCategories: categories });
    await within(card).findByRole('list', { name: 'Posts per tag of Topic' });
    await userEvent.selectOptions(within(card).getByRole('combobox', { name: 'Category' }), 'Product line');
    await waitFor(() => expect(new URLSearchParams(history.location.search).get('category')).toBe(PRODUCT));
    cleanup();
    const again = await openOverview({ tagCategories: categories }, `&category=${PRODUCT}`);
    await within(again.card).findByRole('list', { name: 'Posts per tag of Product line' });
    expect(again.asked.at(-1)).toMatchObject({ category_id: PRODUCT });
    expect(asked.length).toBeGreaterThan(0);
  });

  it('opens the posts carrying none of the category’s tags from "Untagged"', async () => {
    const { card, history } = await openOverview({ tagCategories: categories });
    await userEvent.click(
      await within(card).findByRole('button', { name: 'Untagged: posts without a tag of Topic' }),
    );
    await waitFor(() => expect(history.location.pathname).toBe('/workspace/w1/insight/filtered-posts'));
    expect(new URLSearchParams(history.location.search).get('refine')).toBe(
      `!tag:${DRINKS},${FOOD},${MUSIC}`,
    );
    const chips = await screen.findByRole('group', { name: 'Drill-down refinements' });
    await within(chips).findByText('Tag: not Topic › Drinks or Topic › Food or Topic › Music');
  });

  it('downloads its rows as CSV: each tag by its label, then Untagged, with posts and share', async () => {
    const { card } = await openOverview({ tagCategories: categories });
    await within(card).findByRole('list', { name: 'Posts per tag of Topic' });
    let saved: Blob | undefined;
    URL.createObjectURL ??= () => '';
    URL.revokeObjectURL ??= () => {};
    vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
      saved = blob as Blob;
      return 'blob:csv';
    });
    await userEvent.click(within(card).getByRole('button', { name: 'Download CSV' }));
    await waitFor(() => expect(saved).toBeDefined());
    const text = await saved!.text();
    expect(text).toContain('# Counted: Posts matching "coffee", per tag of Topic.');
    expect(text.split('\r\n').filter((line) => line && !line.startsWith('#'))).toEqual([
      'Tag,Posts,Share of posts',
      'Topic › Drinks,12,0.3',
      'Topic › Food,6,0.15',
      'Topic › Music,0,0',
      'Untagged,24,0.6',
    ]);
  });

  it('reads the categories again when the chosen one was deleted meanwhile, and shows the first left', async () => {
    let reads = 0;
    const listed = () =>
      reads++ === 0 ? categories : { categories: categories.categories.filter((c) => c.id !== TOPIC) };
    const { card } = await openOverview({ tagCategories: listed, gone: TOPIC });
    await within(card).findByRole('list', { name: 'Posts per tag of Product line' });
    expect(reads).toBe(2);
    expect(within(card).getByRole('combobox', { name: 'Category' }).textContent).toBe('Product line');
  });

  it('says a workspace has no categories, linking an owner to Settings › Categories', async () => {
    const { card, asked } = await openOverview();
    await within(card).findByText(/This workspace has no categories of tags yet/);
    const link = within(card).getByRole('link', { name: 'Settings › Categories' });
    expect(link.getAttribute('href')).toBe('/workspace/w1/settings/categories');
    expect(within(card).queryByRole('combobox')).toBeNull();
    expect(asked).toEqual([]);
  });

  it('gives a viewer the sentence without the link', async () => {
    const { card } = await openOverview({ privilege: 'viewer' });
    const sentence = await within(card).findByText(/This workspace has no categories of tags yet/);
    expect(sentence.textContent).toContain('Owners and managers create them.');
    expect(within(card).queryByRole('link')).toBeNull();
  });
});

describe('a tag refinement’s chip', () => {
  it('names a tag the workspace does not have "a tag", never by its id', async () => {
    const unknown = '30000000-0000-4000-8000-000000000009';
    await openOverview({ tagCategories: categories }, `&refine=tag:${DRINKS};!tag:${unknown}`);
    const chips = await screen.findByRole('group', { name: 'Drill-down refinements' });
    await within(chips).findByText('Tag: only Topic › Drinks');
    expect(within(chips).getByText('Tag: not a tag')).toBeTruthy();
    expect(chips.textContent).not.toContain(unknown);
  });
});
