// The workspace-creation wizard through the real app (router, guards, API client) against a local fake backend:
// three steps with the contract's validation, the draft kept across a reload, server errors on the right field, and
// joining with a code instead.
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryHistory } from '@tanstack/react-router';
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App, createApp, type MurmurApp } from '@/app';
import { AUTH_TOKENS_KEY, WORKSPACE_CREATION_KEY } from '@/lib/storage-keys';
import { WIZARD_DRAFT_KEY } from '@/features/workspace-creation/wizard-state';
import {
  fakeJwt,
  nowSeconds,
  shellReply,
  startFakeHttp,
  type FakeHttp,
  type FakeReply,
  type FakeRequest,
} from '@test/support/fake-http';
import { testConfig } from '@test/support/router-harness';
import { emptySavedQueryListFixture } from '@test/support/contract.fixtures';

const DAY = 86_400;
const workspace = (id: string, name = 'Acme Social') => ({
  id,
  name,
  language: 'ja',
  plan: 'trial',
  plan_expired_at: nowSeconds() + 14 * DAY,
  time_zone: 'Asia/Tokyo',
  privilege: 'owner',
});

let running: Array<{ app: MurmurApp; server: FakeHttp }> = [];

afterEach(async () => {
  cleanup();
  for (const { app, server } of running) {
    app.session.actor.stop();
    await server.close();
  }
  running = [];
  localStorage.clear();
  sessionStorage.clear();
});

/** A backend for a user without workspaces; `override` answers first when it returns a reply. */
async function start(
  url: string,
  override: (request: FakeRequest) => FakeReply | undefined = () => undefined,
) {
  const server = await startFakeHttp();
  const joined: string[] = [];
  server.handle = (request) => {
    const reply = override(request) ?? shellReply(request);
    if (reply) return reply;
    if (request.path === '/api/users/me') {
      return {
        status: 200,
        body: {
          id: 'u1',
          email: 'ada@example.com',
          first_name: 'Ada',
          last_name: 'Lovelace',
          workspaces: joined.map((id) => workspace(id)),
        },
      };
    }
    if (request.method === 'POST' && request.path === '/api/workspaces') {
      joined.push('w-new');
      return { status: 201, body: workspace('w-new', JSON.parse(request.body).name), delayMs: 50 };
    }
    const match = /^\/api\/workspaces\/([^/]+)$/.exec(request.path);
    if (match) return { status: 200, body: workspace(match[1]!) };
    if (/^\/api\/workspaces\/[^/]+\/saved-queries$/.test(request.path)) {
      return { status: 200, body: emptySavedQueryListFixture() };
    }
    if (/^\/api\/workspaces\/[^/]+\/members$/.test(request.path)) return { status: 200, body: [] };
    return { status: 404, body: { error: 'not_found', message: 'Not found.' } };
  };
  localStorage.setItem(
    AUTH_TOKENS_KEY,
    JSON.stringify({ access_token: fakeJwt(nowSeconds() + 3600), refresh_token: 'r' }),
  );
  const app = createApp(testConfig(`${server.url}/api/`), {
    history: createMemoryHistory({ initialEntries: [url] }),
    analytics: () => {},
  });
  running.push({ app, server });
  render(<App app={app} />);
  const path = () => app.router.state.location.pathname;
  return { app, server, path };
}

const postsTo = (server: FakeHttp, path: string) =>
  server.calls
    .filter((c) => c.method === 'POST' && c.path === path)
    .map((c) => JSON.parse(c.body) as unknown);

/** The error text an input points at with aria-describedby. */
function errorOf(input: HTMLElement): string {
  const ids = input.getAttribute('aria-describedby')?.split(' ') ?? [];
  return ids.map((id) => document.getElementById(id)?.textContent ?? '').join(' ');
}

describe('workspace-creation wizard', () => {
  it('creates the workspace from the three steps and lands in it', async () => {
    const user = userEvent.setup();
    const { server, path } = await start('/workspace/create/name');
    expect(localStorage.getItem(WORKSPACE_CREATION_KEY)).toBe('true');

    await user.type(await screen.findByLabelText('Workspace name'), '  Acme Social ');
    await user.click(screen.getByRole('button', { name: 'Next' }));

    await screen.findByRole('heading', { name: 'Content language' });
    expect(path()).toBe('/workspace/create/language');
    expect((screen.getByRole('radio', { name: 'English' }) as HTMLInputElement).checked).toBe(true);
    await user.click(screen.getByRole('radio', { name: /^Japanese/ }));
    await user.click(screen.getByRole('button', { name: 'Next' }));

    const firstName = (await screen.findByLabelText('First name')) as HTMLInputElement;
    // Pre-filled from the profile (users/me).
    await waitFor(() => expect(firstName.value).toBe('Ada'));
    const lastName = screen.getByLabelText('Last name (optional)') as HTMLInputElement;
    expect(lastName.value).toBe('Lovelace');
    await user.clear(lastName);
    await user.type(lastName, 'King');
    await user.click(screen.getByRole('button', { name: 'Create workspace' }));

    const busy = await screen.findByRole('button', { name: 'Creating…' });
    expect((busy as HTMLButtonElement).disabled).toBe(true);

    await waitFor(() => expect(path()).toBe('/workspace/w-new/saved-queries'));
    expect(postsTo(server, '/api/workspaces')).toEqual([
      { name: 'Acme Social', language: 'ja', first_name: 'Ada', last_name: 'King' },
    ]);
    // The draft is forgotten once the workspace's page has loaded (the saved queries page reads its list first).
    expect(await screen.findByRole('heading', { name: 'Saved queries' })).toBeTruthy();
    await waitFor(() => expect(sessionStorage.getItem(WIZARD_DRAFT_KEY)).toBeNull());
    expect(localStorage.getItem(WORKSPACE_CREATION_KEY)).toBeNull();
  });

  it("shows the contract's validation messages and stays on the step", async () => {
    const user = userEvent.setup();
    const { path } = await start('/workspace/create/name');
    const name = await screen.findByLabelText('Workspace name');

    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(errorOf(name)).toBe('String must contain at least 1 character(s)');
    expect(name.getAttribute('aria-invalid')).toBe('true');
    expect(document.activeElement).toBe(name);

    await user.type(name, '   ');
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(errorOf(name)).toBe('String must contain at least 1 character(s)');

    await user.clear(name);
    await user.type(name, 'x'.repeat(81));
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(errorOf(name)).toBe('String must contain at most 80 character(s)');
    expect(path()).toBe('/workspace/create/name');

    await user.clear(name);
    await user.type(name, 'Acme');
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await user.click(await screen.findByRole('button', { name: 'Next' }));
    const firstName = (await screen.findByLabelText('First name')) as HTMLInputElement;
    await waitFor(() => expect(firstName.value).toBe('Ada'));
    await user.clear(firstName);
    await user.click(screen.getByRole('button', { name: 'Create workspace' }));
    expect(errorOf(firstName)).toBe('String must contain at least 1 character(s)');
    expect(path()).toBe('/workspace/create/user-info');
  });

  it('shows a 400 field error on its field, on the step that asks for it, keeping the input', async () => {
    const user = userEvent.setup();
    let field = 'first_name';
    const { server, path } = await start('/workspace/create/name', (request) =>
      request.method === 'POST' && request.path === '/api/workspaces'
        ? {
            status: 400,
            body: {
              error: 'invalid_request',
              message: 'The request is not valid.',
              fields: [{ path: field, message: 'String must contain at most 80 character(s)' }],
            },
          }
        : undefined,
    );
    await user.type(await screen.findByLabelText('Workspace name'), 'Acme');
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await user.click(await screen.findByRole('button', { name: 'Next' }));
    const firstName = (await screen.findByLabelText('First name')) as HTMLInputElement;
    await waitFor(() => expect(firstName.value).toBe('Ada'));

    await user.click(screen.getByRole('button', { name: 'Create workspace' }));
    await waitFor(() => expect(errorOf(firstName)).toBe('String must contain at most 80 character(s)'));
    expect(errorOf(screen.getByLabelText('Last name (optional)'))).toBe('');
    expect(firstName.value).toBe('Ada');
    expect(path()).toBe('/workspace/create/user-info');

    field = 'name';
    await user.click(screen.getByRole('button', { name: 'Create workspace' }));
    const name = (await screen.findByLabelText('Workspace name')) as HTMLInputElement;
    expect(path()).toBe('/workspace/create/name');
    expect(name.value).toBe('Acme');
    await waitFor(() => expect(errorOf(name)).toBe('String must contain at most 80 character(s)'));
    expect(postsTo(server, '/api/workspaces')).toHaveLength(2);
    expect(localStorage.getItem(WORKSPACE_CREATION_KEY)).toBe('true');
  });

  it('shows other server failures as a message and keeps every input', async () => {
    const user = userEvent.setup();
    sessionStorage.setItem(
      WIZARD_DRAFT_KEY,
      JSON.stringify({ name: 'Acme', language: 'fr', first_name: 'Grace', last_name: null }),
    );
    const { path } = await start('/workspace/create/user-info', (request) =>
      request.method === 'POST' && request.path === '/api/workspaces'
        ? { status: 500, body: { error: 'internal', message: 'Something went wrong on our side.' } }
        : undefined,
    );
    const firstName = (await screen.findByLabelText('First name')) as HTMLInputElement;
    expect(firstName.value).toBe('Grace');
    await user.click(screen.getByRole('button', { name: 'Create workspace' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Something went wrong on our side.');
    expect(firstName.value).toBe('Grace');
    expect((screen.getByRole('button', { name: 'Create workspace' }) as HTMLButtonElement).disabled).toBe(
      false,
    );
    expect(path()).toBe('/workspace/create/user-info');
  });

  it('keeps the draft across a reload', async () => {
    const user = userEvent.setup();
    await start('/workspace/create/name');
    await user.type(await screen.findByLabelText('Workspace name'), 'Acme Social');
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await user.click(await screen.findByRole('radio', { name: /^French/ }));
    cleanup();

    // A reload: a new app on the same address, sessionStorage kept.
    const { path } = await start('/workspace/create/language');
    expect(((await screen.findByRole('radio', { name: /^French/ })) as HTMLInputElement).checked).toBe(true);
    await user.click(screen.getByRole('button', { name: 'Back' }));
    const name = (await screen.findByLabelText('Workspace name')) as HTMLInputElement;
    expect(name.value).toBe('Acme Social');
    expect(path()).toBe('/workspace/create/name');
  });
});

describe('joining with a code instead', () => {
  it.each([
    [{ already_member: false }, 'You joined the workspace.'],
    [{ already_member: true }, 'You already belong to this workspace.'],
    // The spec's answer to an invite, `id` alone (§3), which the code shares: a join.
    [{}, 'You joined the workspace.'],
  ])(
    'joins the workspace the code belongs to and lands in it (answer %j with its id)',
    async (already, said) => {
      const user = userEvent.setup();
      const { server, path } = await start('/workspace/create/name', (request) =>
        request.path === '/api/user/me/join'
          ? { status: 200, body: { id: 'w-joined', ...already } }
          : undefined,
      );
      await user.type(await screen.findByLabelText(/^Join code/), 'abcd-efgh');
      await user.click(screen.getByRole('button', { name: 'Join with a code' }));
      await waitFor(() => expect(path()).toBe('/workspace/w-joined/saved-queries'));
      expect(postsTo(server, '/api/user/me/join')).toEqual([{ code: 'ABCDEFGH' }]);
      expect(localStorage.getItem(WORKSPACE_CREATION_KEY)).toBeNull();
      expect(await screen.findByText(said)).toBeTruthy();
    },
  );

  it('says so when the code matches no workspace, or is not a code at all', async () => {
    const user = userEvent.setup();
    const { server, path } = await start('/workspace/create/name', (request) =>
      request.path === '/api/user/me/join'
        ? { status: 404, body: { error: 'join_code_invalid', message: 'This join code is not valid.' } }
        : undefined,
    );
    const input = await screen.findByLabelText(/^Join code/);
    await user.type(input, 'abc');
    await user.click(screen.getByRole('button', { name: 'Join with a code' }));
    expect(errorOf(input)).toContain('Invalid join code');
    expect(postsTo(server, '/api/user/me/join')).toEqual([]);

    await user.clear(input);
    await user.type(input, 'ABCD EFGH');
    await user.click(screen.getByRole('button', { name: 'Join with a code' }));
    await waitFor(() => expect(errorOf(input)).toContain('That code does not match any workspace.'));
    expect(path()).toBe('/workspace/create/name');
  });
});
