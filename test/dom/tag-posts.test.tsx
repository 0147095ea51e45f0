// Tagging several posts of a list at once (TagPosts.tsx) through the real app against a fake backend: an owner asks to
// tag several posts, checks two of the page's posts, chooses a tag of the workspace's categories and sets it on them
// in one call (the list is asked again); then all of the page, and the tag removed from them. Every post of the list,
// beyond its page: confirmed by its count and the tag, sent as the list's request, its progress read; an answer that
// breaks off says how far it went. A viewer, or a workspace without tags, is offered nothing.
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
        { id: DRINKS, category_id: 'c1', name: 'Drinks', rules: [] },
        { id: FOOD, category_id: 'c1', name: 'Food', rules: [] },
      ],
    },
    { id: 'c2', name: 'Empty', tags: [] },
  ],
};

function postsFor(body: Record<string, unknown>, total = 3): PostsResponse {
  const filters = body.filters as { from: string; to: string };
  return {
    time_zone: 'Europe/Berlin',
    range: { from: filters.from, to: filters.to },
    query: 'coffee',
    counted: '3 posts counted.',
    sort: 'recency',
    total,
    next_cursor: null,
    posts: [11, 12, 13].map((id) => ({
      ...socialPostFixture(id, `Coffee post ${id}`),
      overperformance: null,
    })),
  };
}

/** The answer of POST /social/insights/tag-posts (NDJSON text), given its body. */
type TagListReply = (body: Record<string, unknown>) => {
  status: number;
  body: unknown;
  parts?: Array<{ text: string; delayMs: number }>;
};

async function openList(backend: DashboardBackend = {}, total = 3, tagList?: TagListReply) {
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
        if (path === '/social/insights/tag-posts' && tagList) {
          sent.push({ key: path, body });
          return tagList(body);
        }
        if (path !== '/social/insights/filtered-posts') return undefined;
        lists += 1;
        return { status: 200, body: postsFor(body, total) };
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

  it('tags every post of the list after a confirmation naming the count and the tag', async () => {
    const ndjson = (...lines: object[]) => lines.map((line) => `${JSON.stringify(line)}\n`).join('');
    const { sent, lists } = await openList({ tagCategories: categories }, 4812, () => ({
      status: 200,
      body: ndjson(
        { done: 0, total: 4812, changed: 0 },
        { done: 1000, total: 4812, changed: 1000 },
        { done: 4812, total: 4812, changed: 4700 },
      ),
    }));
    await userEvent.click(await screen.findByRole('button', { name: 'Tag several posts' }));
    const panel = screen.getByRole('group', { name: 'Tag several posts' });
    await userEvent.selectOptions(within(panel).getByRole('combobox', { name: 'Tag' }), 'Topic › Food');
    await userEvent.click(within(panel).getByRole('button', { name: 'Tag all 4,812 posts of the list' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Tag all 4,812 posts with Topic › Food?' });
    // Cancel has the focus; nothing is sent until the person confirms.
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(sent).toHaveLength(0);
    const before = lists();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Tag 4,812 posts' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).toMatchObject({ workspace_id: 'w1', query: 'coffee', tag_id: FOOD, tagged: true });
    expect(sent[0]!.body.filters).toBeTruthy();
    expect(
      await screen.findByText('Tagged Topic › Food on all 4,812 posts: 4,700 posts changed'),
    ).toBeTruthy();
    await waitFor(() => expect(lists()).toBeGreaterThan(before));
  });

  it('shows how many posts are done while the batches are written', async () => {
    const line = (done: number, changed: number) => `${JSON.stringify({ done, total: 4812, changed })}\n`;
    await openList({ tagCategories: categories }, 4812, () => ({
      status: 200,
      body: line(0, 0),
      parts: [
        { text: line(1000, 1000), delayMs: 50 },
        { text: line(4812, 4812), delayMs: 600 },
      ],
    }));
    await userEvent.click(await screen.findByRole('button', { name: 'Tag several posts' }));
    const panel = screen.getByRole('group', { name: 'Tag several posts' });
    await userEvent.click(within(panel).getByRole('button', { name: 'Tag all 4,812 posts of the list' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Tag all 4,812 posts with Topic › Drinks?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Tag 4,812 posts' }));
    const progress = await within(dialog).findByRole('progressbar', { name: 'Posts tagged' });
    await waitFor(() => expect(progress.getAttribute('value')).toBe('1000'));
    expect(progress.getAttribute('max')).toBe('4812');
    expect(dialog.textContent).toContain('1,000 of 4,812 posts');
    expect(within(dialog).getByRole('button', { name: 'Tagging…' })).toHaveProperty('disabled', true);
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
  });

  it('says how far the tagging went when the answer breaks off, and a refusal in words', async () => {
    let calls = 0;
    const { sent } = await openList({ tagCategories: categories }, 4812, () => {
      calls += 1;
      return calls === 1
        ? {
            status: 200,
            body: '{"done":0,"total":4812,"changed":0}\n{"done":1000,"total":4812,"changed":990}\n',
          }
        : {
            status: 409,
            body: {
              error: 'too_many_posts',
              message: 'This list has 200,000 posts; at most 100,000 are tagged at once.',
            },
          };
    });
    await userEvent.click(await screen.findByRole('button', { name: 'Tag several posts' }));
    const panel = screen.getByRole('group', { name: 'Tag several posts' });
    await userEvent.click(
      within(panel).getByRole('button', { name: 'Remove the tag from all 4,812 posts of the list' }),
    );
    const dialog = screen.getByRole('alertdialog', { name: 'Remove Topic › Drinks from all 4,812 posts?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Remove from 4,812 posts' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe(
      'Tagging stopped after 1,000 of 4,812 posts. The posts tagged stay tagged: try again to finish the list.',
    );
    expect(sent[0]!.body).toMatchObject({ tag_id: DRINKS, tagged: false });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Remove from 4,812 posts' }));
    await waitFor(() =>
      expect(within(dialog).getByRole('alert').textContent).toBe(
        'This list has 200,000 posts; at most 100,000 are tagged at once.',
      ),
    );
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
