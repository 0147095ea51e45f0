// Settings › Lists through the real app against a stateful fake backend: an owner creates a list by keyboard (items
// one a line), sees a refused item's reason, edits and deletes a list after the confirm step; a viewer sees the
// items and which saved queries read each, without controls.
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryHistory } from '@tanstack/react-router';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App, createApp, type MurmurApp } from '@/app';
import type { Privilege } from '@contract/workspaces';
import type { QueryListResponse } from '@contract/lists';
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

async function visit(privilege: Privilege, lists: QueryListResponse[]) {
  const state = { lists: [...lists] };
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
    if (key === 'GET users/me') {
      return {
        status: 200,
        body: { id: SELF, email: 'o@example.com', first_name: 'O', last_name: null, workspaces: [ws] },
      };
    }
    if (key === 'GET workspaces/w1') return { status: 200, body: ws };
    if (key === 'GET workspaces/w1/lists') return { status: 200, body: { lists: state.lists } };
    if (key === 'POST workspaces/w1/lists') {
      const items = body.items as string[];
      if (items.includes('not a site')) {
        return {
          status: 400,
          body: {
            error: 'invalid_list_item',
            message: 'Item 2: "not a site" is not a domain such as bbc.co.uk, or an address.',
          },
        };
      }
      const created = {
        ...(body as Pick<QueryListResponse, 'name' | 'kind' | 'items'>),
        used_by: [],
        updated_at: nowSeconds(),
      };
      state.lists.push(created);
      return { status: 201, body: created };
    }
    const one = /^workspaces\/w1\/lists\/(.+)$/.exec(path);
    if (one && request.method === 'PUT') {
      state.lists = state.lists.map((l) => (l.name === one[1] ? { ...l, items: body.items as string[] } : l));
      return { status: 200, body: state.lists.find((l) => l.name === one[1]) };
    }
    if (one && request.method === 'DELETE') {
      state.lists = state.lists.filter((l) => l.name !== one[1]);
      return { status: 204 };
    }
    return { status: 404, body: { error: 'not_found', message: 'Not found.' } };
  };
  localStorage.setItem(
    AUTH_TOKENS_KEY,
    JSON.stringify({ access_token: fakeJwt(nowSeconds() + 3600, SELF), refresh_token: 'r' }),
  );
  const app = createApp(testConfig(`${server.url}/api/`), {
    history: createMemoryHistory({ initialEntries: ['/workspace/w1/settings/lists'] }),
    analytics: () => {},
  });
  running.push({ app, server });
  render(<App app={app} />);
  const calls = (method: string, path: string) =>
    server.calls.filter((c) => c.method === method && c.path === `/api/${path}`);
  return { state, calls };
}

const rivals: QueryListResponse = {
  name: 'rivals',
  kind: 'authors',
  items: ['alice', 'bob.kim'],
  used_by: ['Competitors'],
  updated_at: 1_767_225_600,
};

describe('Settings › Lists', () => {
  it('an owner creates a list by keyboard, and is told why an item is refused', async () => {
    const user = userEvent.setup();
    const { calls } = await visit('owner', []);
    await screen.findByRole('heading', { name: 'No lists yet' });
    const name = screen.getByRole('textbox', { name: 'Name' });
    name.focus();
    await user.keyboard('press');
    await user.tab();
    expect(document.activeElement).toBe(screen.getByRole('combobox', { name: 'Kind' }));
    await user.selectOptions(screen.getByRole('combobox', { name: 'Kind' }), 'sites');
    await user.tab();
    expect(document.activeElement).toBe(screen.getByRole('textbox', { name: 'Items' }));
    await user.keyboard('bbc.co.uk{Enter}not a site{Enter}');
    await user.tab();
    await user.keyboard('{Enter}');
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Item 2: "not a site" is not a domain such as bbc.co.uk, or an address.',
    );
    await user.clear(screen.getByRole('textbox', { name: 'Items' }));
    await user.type(screen.getByRole('textbox', { name: 'Items' }), '  bbc.co.uk {Enter}{Enter}nytimes.com');
    await user.click(screen.getByRole('button', { name: 'Create list' }));
    await screen.findByRole('heading', { name: 'site:list(press)' });
    expect(
      calls('POST', 'workspaces/w1/lists')
        .map((c) => JSON.parse(c.body))
        .at(-1),
    ).toEqual({
      name: 'press',
      kind: 'sites',
      items: ['bbc.co.uk', 'nytimes.com'],
    });
  });

  it('an owner edits the items, and deletes only after the confirm step', async () => {
    const user = userEvent.setup();
    const { calls } = await visit('owner', [rivals]);
    const card = (await screen.findByRole('heading', { name: 'author:list(rivals)' })).closest('section')!;
    expect(within(card).getByText(/Read by Competitors/)).toBeTruthy();
    const items = within(card).getByRole('textbox', { name: 'Items of rivals, one a line' });
    await user.clear(items);
    await user.type(items, 'carla_es');
    await user.click(within(card).getByRole('button', { name: 'Save rivals' }));
    await waitFor(() =>
      expect(calls('PUT', 'workspaces/w1/lists/rivals').map((c) => JSON.parse(c.body))).toEqual([
        { items: ['carla_es'] },
      ]),
    );
    await user.click(within(card).getByRole('button', { name: 'Delete rivals' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Delete the list rivals?' });
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Cancel' }));
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(calls('DELETE', 'workspaces/w1/lists/rivals')).toHaveLength(0);
    await user.click(within(card).getByRole('button', { name: 'Delete rivals' }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Delete' }));
    await screen.findByRole('heading', { name: 'No lists yet' });
    expect(calls('DELETE', 'workspaces/w1/lists/rivals')).toHaveLength(1);
  });

  it('a viewer sees the items and who reads the list, and no controls', async () => {
    await visit('viewer', [rivals]);
    const card = (await screen.findByRole('heading', { name: 'author:list(rivals)' })).closest('section')!;
    expect(
      within(card)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['alice', 'bob.kim']);
    expect(screen.queryByRole('textbox')).toBeNull();
    expect(screen.queryByRole('button', { name: /Save|Delete|Create/ })).toBeNull();
  });
});
