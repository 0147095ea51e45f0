// Tagging several posts of a list at once (TagPosts.tsx) through the real app against a fake backend: an owner asks to
// tag several posts, checks two of the page's posts, chooses a tag of the workspace's categories and sets it on them
// in one call (the list is asked again); then all of the page, and the tag removed from them. A viewer, or a workspace
// without tags, is offered nothing.
import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { PostsResponse } from '@contract/insights-responses';
import type { TagCategoriesResponse } from '@contract/tags';
import { socialPostFixture } from '@test/support/contract.fixtures';
import { visit, type DashboardBackend } from '@test/support/dashboard-app';

const DRINKS = '20000000-0000-4000-8000-000000000001';
const FOOD = '20000000-0000-4000-8000-000000000002';
const categories: TagCategoriesResponse = {
  categories: [
    {
      id: 'c1',
      name: 'Topic',
      tags: [
        { id: DRINKS, category_id: 'c1', name: 'Drinks', rules: [], posts: 0 },
        { id: FOOD, category_id: 'c1', name: 'Food', rules: [], posts: 0 },
      ],
    },
    { id: 'c2', name: 'Empty', tags: [] },
  ],
};

function postsFor(body: Record<string, unknown>): PostsResponse {
  const filters = body.filters as { from: string; to: string };
  return {
    time_zone: 'Europe/Berlin',
    range: { from: filters.from, to: filters.to },
    query: 'coffee',
    counted: '3 posts counted.',
    sort: 'recency',
    total: 3,
    next_cursor: null,
    posts: [11, 12, 13].map((id) => ({
      ...socialPostFixture(id, `Coffee post ${id}`),
      overperformance: null,
    })),
  };
}

async function openList(backend: DashboardBackend = {}) {
  const sent: Array<{ key: string; body: Record<string, unknown> }> = [];
  let lists = 0;
  const opened = await visit(
    '/workspace/w1/insight/filtered-posts?q=coffee&range=7d',
    () => ({ status: 404 }),
    {
      ...backend,
      api: (key, body) => {
        if (!/^POST workspaces\/w1\/tags\/[\w-]+\/posts$/.test(key)) return undefined;
        sent.push({ key, body });
        return { status: 200, body: { changed: (body.post_ids as number[]).length } };
      },
      social: (path, body) => {
        if (path !== '/social/insights/filtered-posts') return undefined;
        lists += 1;
        return { status: 200, body: postsFor(body) };
      },
    },
  );
  await screen.findByRole('list', { name: '3 posts on this page' });
  return { ...opened, sent, lists: () => lists };
}

describe('tagging several posts at once', () => {
  it('sets a tag on the checked posts, then removes it from all of the page', async () => {
    const { sent, lists } = await openList({ tagCategories: categories });
    await userEvent.click(await screen.findByRole('button', { name: 'Tag several posts' }));
    const panel = screen.getByRole('group', { name: 'Tag several posts' });
    const tagButton = within(panel).getByRole('button', { name: 'Tag 0 posts' });
    expect((tagButton as HTMLButtonElement).disabled).toBe(true);

    await userEvent.click(screen.getByRole('checkbox', { name: 'Select post 1 (by @ferryfan)' }));
    expect(within(panel).getByRole('button', { name: 'Tag 1 post' })).toBeTruthy();
    await userEvent.click(screen.getByRole('checkbox', { name: 'Select post 3 (by @ferryfan)' }));
    const select = within(panel).getByRole('combobox', { name: 'Tag' });
    expect(
      within(select)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['Topic › Drinks', 'Topic › Food']);
    await userEvent.selectOptions(select, 'Topic › Food');
    const before = lists();
    await userEvent.click(within(panel).getByRole('button', { name: 'Tag 2 posts' }));
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]).toEqual({
      key: `POST workspaces/w1/tags/${FOOD}/posts`,
      body: { post_ids: [11, 13], tagged: true },
    });
    // The selection empties, and the list (which a tag may refine) is asked again.
    await waitFor(() => expect(within(panel).getByRole('button', { name: 'Tag 0 posts' })).toBeTruthy());
    await waitFor(() => expect(lists()).toBeGreaterThan(before));

    await userEvent.click(within(panel).getByRole('checkbox', { name: 'All 3 posts of this page' }));
    await userEvent.click(within(panel).getByRole('button', { name: 'Remove the tag from 3 posts' }));
    await waitFor(() => expect(sent).toHaveLength(2));
    expect(sent[1]).toEqual({
      key: `POST workspaces/w1/tags/${FOOD}/posts`,
      body: { post_ids: [11, 12, 13], tagged: false },
    });

    await userEvent.click(within(panel).getByRole('button', { name: 'Done' }));
    expect(screen.queryByRole('checkbox', { name: /^Select post/ })).toBeNull();
  });

  it('offers nothing to a viewer', async () => {
    await openList({ tagCategories: categories, privilege: 'viewer' });
    expect(screen.queryByRole('button', { name: 'Tag several posts' })).toBeNull();
  });

  it('offers nothing in a workspace without tags', async () => {
    const { server } = await openList({ tagCategories: { categories: [categories.categories[1]!] } });
    // The categories are read (for an owner), and none has a tag.
    await waitFor(() =>
      expect(server.calls.some((call) => call.path === '/api/workspaces/w1/tag-categories')).toBe(true),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(screen.queryByRole('button', { name: 'Tag several posts' })).toBeNull();
  });
});
