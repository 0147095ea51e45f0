// Settings › Categories through the real app against a stateful fake backend: a manager creates a category, a tag and
// a rule by keyboard, is told why a query is refused, sees the rule tagging past posts until it is done, and deletes a
// rule; a viewer sees the categories, tags, rules and counts without controls.
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryHistory } from '@tanstack/react-router';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App, createApp, type MurmurApp } from '@/app';
import type { Privilege } from '@contract/workspaces';
import type { TagCategoryResponse } from '@contract/tags';
import { AUTH_TOKENS_KEY } from '@/lib/storage-keys';
import {
  fakeJwt,
  nowSeconds,
  shellReply,
  startFakeHttp,
  type FakeHttp,
  type FakeReply,
} from '@test/support/fake-http';
import { testConfig } from '@test/support/router-harness';

const SELF = '00000000-0000-4000-8000-000000000001';

let running: Array<{ app: MurmurApp; server: FakeHttp }> = [];
afterEach(async () => {
  cleanup();
  for (const { app, server } of running) {
    app.session.actor.stop();
    await server.close();
  }
  running = [];
  localStorage.clear();
});

/** The fake social API's counts: `unavailable` answers as a store still being prepared does. */
interface Counts {
  posts: Record<string, number>;
  unavailable?: boolean;
}

async function visit(
  privilege: Privilege,
  categories: TagCategoryResponse[],
  counts: Counts = { posts: {} },
) {
  const state = { categories: structuredClone(categories), next: 1, counts: structuredClone(counts) };
  const seenApplying = new Set<string>();
  const server = await startFakeHttp();
  server.handle = (request): FakeReply => {
    const shell = shellReply(request);
    if (shell) return shell;
    const path = request.path.replace(/^\/api\//, '');
    const body = request.body ? (JSON.parse(request.body) as Record<string, unknown>) : {};
    const key = `${request.method} ${path}`;
    const ws = {
      id: 'w1',
      name: 'Acme',
      language: 'en',
      plan: 'trial',
      plan_expired_at: nowSeconds() + 864_000,
      time_zone: 'UTC',
      privilege,
    };
    const tags = () => state.categories.flatMap((c) => c.tags);
    if (key === 'GET users/me') {
      return {
        status: 200,
        body: { id: SELF, email: 'o@example.com', first_name: 'O', last_name: null, workspaces: [ws] },
      };
    }
    if (key === 'GET workspaces/w1') return { status: 200, body: ws };
    if (key === 'POST /social/insights/tag-counts') {
      if (body.workspace_id !== 'w1') return { status: 404, body: { error: 'not_found', message: 'No.' } };
      if (state.counts.unavailable) {
        const message = 'The figures are being prepared: 40% done.';
        return { status: 503, body: { error: 'figures_preparing', message } };
      }
      return {
        status: 200,
        body: {
          tags: tags().map((tag) => ({ tag_id: tag.id, posts: state.counts.posts[tag.id] ?? 0 })),
          applying: tags().some((tag) => tag.rules.some((rule) => !rule.caught_up)),
        },
      };
    }
    if (key === 'GET workspaces/w1/tag-categories') {
      // A rule is seen applying once, then done with the three past posts it matched: they are counted from then.
      for (const tag of tags()) {
        for (const rule of tag.rules.filter((r) => !r.caught_up)) {
          if (!seenApplying.delete(rule.id)) seenApplying.add(rule.id);
          else {
            rule.caught_up = true;
            state.counts.posts[tag.id] = 3;
          }
        }
      }
      return { status: 200, body: { categories: structuredClone(state.categories) } };
    }
    if (key === 'POST workspaces/w1/tag-categories') {
      const created = { id: `c${state.next++}`, name: body.name as string, tags: [] };
      state.categories.push(created);
      return { status: 201, body: created };
    }
    const newTag = /^workspaces\/w1\/tag-categories\/(\w+)\/tags$/.exec(path);
    if (newTag && request.method === 'POST') {
      const category = state.categories.find((c) => c.id === newTag[1])!;
      const created = {
        id: `t${state.next++}`,
        category_id: category.id,
        name: body.name as string,
        rules: [],
      };
      category.tags.push(created);
      return { status: 201, body: created };
    }
    const newRule = /^workspaces\/w1\/tags\/(\w+)\/rules$/.exec(path);
    if (newRule && request.method === 'POST') {
      const query = body.query as string;
      if (query.endsWith('AND')) {
        const message = 'The query is not valid: Expected a term after AND at column 12';
        return { status: 400, body: { error: 'invalid_query', message, errors: [] } };
      }
      const rule = {
        id: `r${state.next++}`,
        tag_id: newRule[1]!,
        query,
        caught_up: false,
        past_from: null,
        past_note: null,
      };
      tags()
        .find((t) => t.id === newRule[1])!
        .rules.push(rule);
      return { status: 201, body: rule };
    }
    const oneCategory = /^workspaces\/w1\/tag-categories\/(\w+)$/.exec(path);
    if (oneCategory && request.method === 'PATCH') {
      const name = body.name as string;
      if (state.categories.some((c) => c.name.toLowerCase() === name.toLowerCase())) {
        return {
          status: 409,
          body: { error: 'name_taken', message: `This workspace already has one named ${name}.` },
        };
      }
      state.categories.find((c) => c.id === oneCategory[1])!.name = name;
      return { status: 204 };
    }
    const oneTag = /^workspaces\/w1\/tags\/(\w+)$/.exec(path);
    if (oneTag && request.method === 'PATCH') {
      tags().find((t) => t.id === oneTag[1])!.name = body.name as string;
      return { status: 204 };
    }
    const oneRule = /^workspaces\/w1\/tag-rules\/(\w+)$/.exec(path);
    if (oneRule && request.method === 'DELETE') {
      for (const tag of tags()) tag.rules = tag.rules.filter((rule) => rule.id !== oneRule[1]);
      return { status: 204 };
    }
    return { status: 404, body: { error: 'not_found', message: 'Not found.' } };
  };
  localStorage.setItem(
    AUTH_TOKENS_KEY,
    JSON.stringify({ access_token: fakeJwt(nowSeconds() + 3600, SELF), refresh_token: 'r' }),
  );
  const config = { ...testConfig(`${server.url}/api/`), VITE_SOCIAL_API_BASE_URL: `${server.url}/social/` };
  const app = createApp(config, {
    history: createMemoryHistory({ initialEntries: ['/workspace/w1/settings/categories'] }),
    analytics: () => {},
  });
  running.push({ app, server });
  render(<App app={app} />);
  const calls = (method: string, path: string) =>
    server.calls.filter((c) => c.method === method && c.path === `/api/${path}`);
  return { state, calls };
}

const topic: TagCategoryResponse = {
  id: 'c100',
  name: 'Topic',
  tags: [
    {
      id: 't100',
      category_id: 'c100',
      name: 'Coffee',
      rules: [
        {
          id: 'r100',
          tag_id: 't100',
          query: 'coffee OR espresso',
          caught_up: true,
          past_from: 'store',
          past_note: null,
        },
      ],
    },
  ],
};

describe('Settings › Categories', () => {
  it('a manager creates a category, a tag and a rule by keyboard, and is told why a query is refused', async () => {
    const user = userEvent.setup();
    const { calls } = await visit('manager', []);
    await screen.findByRole('heading', { name: 'No categories yet' });
    screen.getByRole('textbox', { name: 'Name' }).focus();
    await user.keyboard('Complaint type{Enter}');
    const card = (await screen.findByRole('heading', { name: 'Complaint type' })).closest('section')!;
    within(card).getByRole('textbox', { name: 'New tag in Complaint type' }).focus();
    await user.keyboard('Delivery');
    await user.tab();
    expect(document.activeElement).toBe(
      within(card).getByRole('button', { name: 'Add tag to Complaint type' }),
    );
    await user.keyboard('{Enter}');
    const rule = await within(card).findByRole('textbox', { name: 'New rule for Delivery' });
    rule.focus();
    await user.keyboard('late parcel AND{Enter}');
    expect((await within(card).findByRole('alert')).textContent).toBe(
      'The query is not valid: Expected a term after AND at column 12',
    );
    await user.clear(rule);
    await user.type(rule, 'late NEAR/3 parcel{Enter}');
    const rules = await within(card).findByRole('list', { name: 'Rules of Delivery' });
    expect(within(rules).getByText('late NEAR/3 parcel')).toBeTruthy();
    await waitFor(() => expect(within(card).getByText(/tagging past posts/)).toBeTruthy());
    await waitFor(() => expect(within(card).queryByText(/tagging past posts/)).toBeNull(), { timeout: 5000 });
    expect(await within(card).findByText('· 3 posts')).toBeTruthy();
    expect(calls('POST', 'workspaces/w1/tag-categories').map((c) => JSON.parse(c.body))).toEqual([
      { name: 'Complaint type' },
    ]);
    expect(calls('POST', 'workspaces/w1/tags/t2/rules').map((c) => JSON.parse(c.body))).toEqual([
      { query: 'late parcel AND' },
      { query: 'late NEAR/3 parcel' },
    ]);
  });

  it('a manager deletes a rule', async () => {
    const user = userEvent.setup();
    const { calls } = await visit('manager', [topic]);
    const button = await screen.findByRole('button', {
      name: 'Delete rule coffee OR espresso of Coffee',
    });
    await user.click(button);
    await screen.findByText('Set by hand only.');
    expect(calls('DELETE', 'workspaces/w1/tag-rules/r100')).toHaveLength(1);
  });

  it('a manager renames a category and a tag in place, and is told when the name is taken', async () => {
    const user = userEvent.setup();
    const other: TagCategoryResponse = { id: 'c200', name: 'Product line', tags: [] };
    const { calls } = await visit('manager', [topic, other], { posts: { t100: 12 } });
    await user.click(await screen.findByRole('button', { name: 'Rename the category Topic' }));
    const field = screen.getByRole('textbox', { name: 'New name of the category Topic' });
    expect(document.activeElement).toBe(field);
    await user.clear(field);
    await user.type(field, 'product LINE{Enter}');
    expect((await screen.findByRole('alert')).textContent).toBe(
      'This workspace already has one named product LINE.',
    );
    await user.clear(field);
    await user.type(field, 'Themes{Enter}');
    await screen.findByRole('heading', { name: 'Themes' });
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Rename the category Themes' }));
    await user.click(screen.getByRole('button', { name: 'Rename the tag Coffee' }));
    const tagField = screen.getByRole('textbox', { name: 'New name of the tag Coffee' });
    await user.clear(tagField);
    await user.type(tagField, 'Espresso');
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('textbox', { name: 'New name of the tag Coffee' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Rename the tag Coffee' }));
    await user.clear(screen.getByRole('textbox', { name: 'New name of the tag Coffee' }));
    await user.type(screen.getByRole('textbox', { name: 'New name of the tag Coffee' }), 'Espresso{Enter}');
    await screen.findByRole('heading', { name: 'Espresso · 12 posts' });
    expect(calls('PATCH', 'workspaces/w1/tag-categories/c100').map((c) => JSON.parse(c.body))).toEqual([
      { name: 'product LINE' },
      { name: 'Themes' },
    ]);
    expect(calls('PATCH', 'workspaces/w1/tags/t100').map((c) => JSON.parse(c.body))).toEqual([
      { name: 'Espresso' },
    ]);
  });

  it('a viewer sees categories, tags, rules and counts, and no controls', async () => {
    await visit('viewer', [topic], { posts: { t100: 12 } });
    const card = (await screen.findByRole('heading', { name: 'Topic' })).closest('section')!;
    expect(await within(card).findByRole('heading', { name: 'Coffee · 12 posts' })).toBeTruthy();
    expect(within(card).getByText('coffee OR espresso')).toBeTruthy();
    expect(screen.queryByRole('textbox')).toBeNull();
    expect(screen.queryByRole('button', { name: /Delete|Add|Create|Rename/ })).toBeNull();
  });

  it('shows the categories while the posts cannot be counted, and says why', async () => {
    await visit('viewer', [topic], { posts: {}, unavailable: true });
    const card = (await screen.findByRole('heading', { name: 'Topic' })).closest('section')!;
    expect(within(card).getByText('coffee OR espresso')).toBeTruthy();
    expect((await screen.findByText(/cannot be counted now/)).textContent).toBe(
      'The posts carrying each tag cannot be counted now: The figures are being prepared: 40% done.',
    );
    expect(within(card).getByRole('heading', { name: 'Coffee' })).toBeTruthy();
  });
});
