// Tagging a post by hand from its card: owners and managers open "Tags" by keyboard, see each category's tags checked
// as the post carries them, and check or uncheck one (set or removed by hand); viewers see no control. Every member
// reads the tags a card's post carries as chips under its text, from the list's answer and then after each change.
import { afterEach, describe, expect, it } from 'vitest';
import {
  RouterProvider,
  createMemoryHistory,
  createRootRouteWithContext,
  createRouter,
} from '@tanstack/react-router';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Privilege } from '@contract/workspaces';
import type { TagCategoryResponse } from '@contract/tags';
import type { Api } from '@/api/api';
import { PostTagChips, PostTagList, PostTags } from '@/components/PostTags';
import type { RouterContext } from '@/router-context';
import { socialPostFixture } from '@test/support/contract.fixtures';

afterEach(cleanup);

const categories: TagCategoryResponse[] = [
  {
    id: 'c1',
    name: 'Topic',
    tags: [
      { id: 't1', category_id: 'c1', name: 'Coffee', rules: [] },
      { id: 't2', category_id: 'c1', name: 'Tea', rules: [] },
    ],
  },
  { id: 'c2', name: 'Empty', tags: [] },
];

function show(privilege: Privilege, shown: 'control' | 'list' | 'card' = 'control') {
  const post = {
    ...socialPostFixture(7, 'Flat white is the best coffee'),
    // As a list's answer gives it: set by a rule there.
    tags: [{ tag_id: 't1', name: 'Coffee', category_id: 'c1', category: 'Topic', set_by: 'rule' as const }],
  };
  const carried = new Set(['t1']);
  const sent: Array<{ path: string; body: unknown }> = [];
  const api = {
    getWorkspace: async () => ({ id: 'w1', name: 'Acme', privilege }),
    send: async (
      path: string,
      schema: { parse: (value: unknown) => unknown },
      init: { method: string; body?: unknown },
    ) => {
      if (path === 'workspaces/w1/tag-categories') return schema.parse({ categories });
      if (path === 'workspaces/w1/posts/7/tags') {
        const tags = [...carried].map((id) => {
          const tag = categories[0]!.tags.find((t) => t.id === id)!;
          return { tag_id: id, name: tag.name, category_id: 'c1', category: 'Topic', set_by: 'manual' };
        });
        return schema.parse({ post_id: 7, tags });
      }
      const set = /^workspaces\/w1\/tags\/(\w+)\/posts$/.exec(path);
      if (set && init.method === 'POST') {
        sent.push({ path, body: init.body });
        const { tagged } = init.body as { tagged: boolean };
        if (tagged) carried.add(set[1]!);
        else carried.delete(set[1]!);
        return schema.parse({ changed: 1 });
      }
      throw new Error(`Unexpected call ${init.method} ${path}`);
    },
  } as unknown as Api;
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const root = createRootRouteWithContext<RouterContext>()({
    component: () => (
      <footer>
        {shown === 'list' ? <PostTagList postId={post.id} workspaceId="w1" /> : null}
        {shown === 'card' ? <PostTagChips post={post} workspaceId="w1" /> : null}
        {shown !== 'list' ? <PostTags post={post} workspaceId="w1" /> : null}
      </footer>
    ),
  });
  const router = createRouter({
    routeTree: root,
    history: createMemoryHistory(),
    context: { api, queryClient } as unknown as RouterContext,
  });
  render(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return { sent, queryClient };
}

describe('tags on a post card', () => {
  it('a manager sets and removes tags by keyboard', async () => {
    const user = userEvent.setup();
    const { sent } = show('manager');
    const toggle = await screen.findByRole('button', { name: 'Tags' });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    await user.tab();
    expect(document.activeElement).toBe(toggle);
    await user.keyboard('{Enter}');
    const group = await screen.findByRole('group', { name: /^Tags of the post by @/ });
    const topic = within(group).getByRole('group', { name: 'Topic' });
    const coffee = await within(topic).findByRole('checkbox', { name: 'Coffee' });
    const tea = within(topic).getByRole('checkbox', { name: 'Tea' });
    expect([(coffee as HTMLInputElement).checked, (tea as HTMLInputElement).checked]).toEqual([true, false]);
    expect(within(group).queryByRole('group', { name: 'Empty' })).toBeNull();
    await user.tab();
    expect(document.activeElement).toBe(coffee);
    await user.tab();
    expect(document.activeElement).toBe(tea);
    await user.keyboard(' ');
    await waitFor(() => expect((tea as HTMLInputElement).checked).toBe(true));
    await user.click(coffee);
    await waitFor(() => expect((coffee as HTMLInputElement).checked).toBe(false));
    expect(sent).toEqual([
      { path: 'workspaces/w1/tags/t2/posts', body: { post_ids: [7], tagged: true } },
      { path: 'workspaces/w1/tags/t1/posts', body: { post_ids: [7], tagged: false } },
    ]);
  });

  it('a viewer sees no control', async () => {
    const { queryClient } = show('viewer');
    await waitFor(() => expect(queryClient.getQueryData(['workspaces', 'w1'])).toBeTruthy());
    await screen.findByRole('contentinfo');
    expect(screen.queryByRole('button', { name: 'Tags' })).toBeNull();
    expect(screen.queryByRole('checkbox')).toBeNull();
  });

  it('every member reads the tags a post carries on its page', async () => {
    show('viewer', 'list');
    expect((await screen.findByText(/^Tags:/)).textContent).toBe('Tags: Topic › Coffee (by hand)');
  });

  const chips = async () =>
    within(await screen.findByRole('list', { name: 'Tags' }))
      .getAllByRole('listitem')
      .map((chip) => chip.textContent);

  it("every member reads a card's tags as chips, as the list gave them and after a change by hand", async () => {
    show('viewer', 'card');
    expect(await chips()).toEqual(['Topic › Coffee']);
    cleanup();
    const user = userEvent.setup();
    show('manager', 'card');
    expect(await chips()).toEqual(['Topic › Coffee']);
    await user.click(await screen.findByRole('button', { name: 'Tags' }));
    const group = await screen.findByRole('group', { name: /^Tags of the post by @/ });
    await user.click(await within(group).findByRole('checkbox', { name: 'Tea' }));
    // The post's own tags, read again after the change (this fake server says each is set by hand).
    await waitFor(async () =>
      expect(await chips()).toEqual(['Topic › Coffee (set by hand)', 'Topic › Tea (set by hand)']),
    );
  });

  it("names a card's tags as the page last read them: a rename is seen over the list's answer", async () => {
    const { queryClient } = show('viewer', 'card');
    expect(await chips()).toEqual(['Topic › Coffee']);
    queryClient.setQueryData(['workspaces', 'w1', 'tag-categories'], {
      categories: [
        { ...categories[0]!, name: 'Drinks', tags: [{ ...categories[0]!.tags[0]!, name: 'Flat white' }] },
      ],
    });
    await waitFor(async () => expect(await chips()).toEqual(['Drinks › Flat white']));
  });
});
