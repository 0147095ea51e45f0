// Settings › Members and General through the real app against a stateful fake backend: what each privilege may do,
// the confirm steps, the invite link shown once, the join code, leaving, renaming the workspace, and the agreement of
// sentiment with the team's corrections.
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryHistory } from '@tanstack/react-router';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App, createApp, type MurmurApp } from '@/app';
import type { MemberResponse, Privilege } from '@contract/workspaces';
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
const MANAGER = '00000000-0000-4000-8000-000000000002';
const VIEWER = '00000000-0000-4000-8000-000000000003';
const INVITE = '00000000-0000-4000-8000-0000000000aa';
const DAY = 86_400;

const member = (user_id: string, first: string, last: string, privilege: Privilege): MemberResponse => ({
  user_id,
  email: `${first.toLowerCase()}@example.com`,
  first_name: first,
  last_name: last,
  privilege,
  joined_at: 1_767_225_600, // 2026-01-01
});

/** What GET workspaces/w1/sentiment-agreement answers. */
const AGREEMENT = { corrected: 120, model_agreeing: 101, adapted_agreeing: 108 };
let agreement = AGREEMENT;

let running: Array<{ app: MurmurApp; server: FakeHttp }> = [];
afterEach(async () => {
  cleanup();
  agreement = AGREEMENT;
  for (const { app, server } of running) {
    app.session.actor.stop();
    await server.close();
  }
  running = [];
  localStorage.clear();
});

interface Backend {
  privilege: Privilege;
  members: MemberResponse[];
  invites: Array<Record<string, unknown>>;
  code: string;
  codeLocked: boolean;
  workspaces: string[];
}

/** The signed-in user (SELF) in workspace w1 with the given privilege; the backend keeps what the calls change. */
async function visit(
  url: string,
  privilege: Privilege,
  others: MemberResponse[] = defaultOthers(),
  codeLocked = false,
) {
  const state: Backend = {
    privilege,
    members: [member(SELF, 'Olivia', 'Self', privilege), ...others],
    invites: [],
    code: 'ABCD-EFGH',
    codeLocked,
    workspaces: ['w1', 'w2'],
  };
  const server = await startFakeHttp();
  server.handle = (request): FakeReply => {
    const shell = shellReply(request);
    if (shell) return shell;
    const path = request.path.replace(/^\/api\//, '');
    const body = request.body ? (JSON.parse(request.body) as Record<string, unknown>) : {};
    const key = `${request.method} ${path}`;
    const ws = (id: string) => ({
      id,
      name: id === 'w1' ? 'Acme' : 'Other',
      language: 'en',
      plan: 'trial',
      plan_expired_at: nowSeconds() + 10 * DAY,
      time_zone: 'UTC',
      privilege: state.privilege,
    });
    if (key === 'GET users/me') {
      return {
        status: 200,
        body: {
          id: SELF,
          email: 'olivia@example.com',
          first_name: 'Olivia',
          last_name: 'Self',
          workspaces: state.workspaces.map(ws),
        },
      };
    }
    if (key === 'GET workspaces/w1' || key === 'GET workspaces/w2')
      return { status: 200, body: ws(path.split('/')[1]!) };
    if (key === 'PATCH workspaces/w1') return { status: 200, body: { ...ws('w1'), ...body } };
    if (key === 'GET workspaces/w1/members') return { status: 200, body: state.members };
    const memberPath = /^workspaces\/w1\/members\/(.+)$/.exec(path);
    if (memberPath && request.method === 'PATCH') {
      state.members = state.members.map((m) =>
        m.user_id === memberPath[1] ? { ...m, privilege: body.privilege as Privilege } : m,
      );
      return { status: 200, body: state.members.find((m) => m.user_id === memberPath[1]) };
    }
    if (memberPath && request.method === 'DELETE') {
      state.members = state.members.filter((m) => m.user_id !== memberPath[1]);
      return { status: 204 };
    }
    if (key === 'GET workspaces/w1/sentiment-agreement') return { status: 200, body: agreement };
    if (key === 'GET workspaces/w1/invites') return { status: 200, body: state.invites };
    if (key === 'POST workspaces/w1/invites') {
      const invite = {
        id: INVITE,
        privilege: body.privilege,
        expires_at: nowSeconds() + Number(body.expires_in_hours) * 3600,
        max_uses: body.max_uses ?? null,
        uses: 0,
      };
      state.invites.push({ ...invite, created_at: nowSeconds(), created_by: SELF });
      return {
        status: 201,
        body: { ...invite, token: 'secret-token', url_path: '/invite?token=secret-token' },
      };
    }
    if (key === `DELETE workspaces/w1/invites/${INVITE}`) {
      state.invites = [];
      return { status: 204 };
    }
    if (key === 'GET workspaces/w1/join-code')
      return { status: 200, body: { code: state.code, locked: state.codeLocked } };
    if (key === 'POST workspaces/w1/join-code/rotate') {
      state.code = 'WXYZ-2345';
      state.codeLocked = false;
      return { status: 200, body: { code: state.code, locked: false } };
    }
    if (key === 'POST workspaces/w1/leave') {
      state.workspaces = ['w2'];
      return { status: 204 };
    }
    return { status: 404, body: { error: 'not_found', message: 'Not found.' } };
  };
  localStorage.setItem(
    AUTH_TOKENS_KEY,
    JSON.stringify({ access_token: fakeJwt(nowSeconds() + 3600, SELF), refresh_token: 'r' }),
  );
  const app = createApp(testConfig(`${server.url}/api/`), {
    history: createMemoryHistory({ initialEntries: [url] }),
    analytics: () => {},
  });
  running.push({ app, server });
  render(<App app={app} />);
  const calls = (method: string, path: string) =>
    server.calls.filter((c) => c.method === method && c.path === `/api/${path}`);
  return { app, state, calls, path: () => app.router.state.location.pathname };
}

function defaultOthers() {
  return [member(MANAGER, 'Max', 'Manager', 'manager'), member(VIEWER, 'Vera', 'Viewer', 'viewer')];
}

const row = (name: string) => screen.getByRole('rowheader', { name: new RegExp(`^${name}`) }).closest('tr')!;

describe('members page as an owner', () => {
  it('lists members and changes a role', async () => {
    const user = userEvent.setup();
    const { calls } = await visit('/workspace/w1/settings/member', 'owner');
    await screen.findByRole('rowheader', { name: 'Vera Viewer' });
    expect(within(row('Vera Viewer')).getByText('vera@example.com')).toBeTruthy();
    // The last owner's own role is fixed, and nobody removes themselves here.
    expect(within(row('Olivia Self')).queryByRole('combobox')).toBeNull();
    expect(within(row('Olivia Self')).queryByRole('button', { name: /Remove/ })).toBeNull();
    expect(within(row('Olivia Self')).getByText('Owner')).toBeTruthy();

    const select = screen.getByRole('combobox', { name: 'Role of Vera Viewer' }) as HTMLSelectElement;
    expect([...select.options].map((o) => o.value)).toEqual(['owner', 'manager', 'viewer']);
    await user.selectOptions(select, 'manager');
    expect(await screen.findByText('Vera Viewer is now a manager')).toBeTruthy();
    expect(calls('PATCH', `workspaces/w1/members/${VIEWER}`).map((c) => JSON.parse(c.body))).toEqual([
      { privilege: 'manager' },
    ]);
    await waitFor(() => expect(select.value).toBe('manager'));
  });

  it('removes a member only after the confirm step', async () => {
    const user = userEvent.setup();
    const { calls } = await visit('/workspace/w1/settings/member', 'owner');
    await user.click(await screen.findByRole('button', { name: 'Remove Max Manager' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Remove Max Manager?' });
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Cancel' }));
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(calls('DELETE', `workspaces/w1/members/${MANAGER}`)).toHaveLength(0);

    await user.click(screen.getByRole('button', { name: 'Remove Max Manager' }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Remove' }));
    await waitFor(() => expect(screen.queryByRole('rowheader', { name: 'Max Manager' })).toBeNull());
    expect(calls('DELETE', `workspaces/w1/members/${MANAGER}`)).toHaveLength(1);
    expect(screen.queryByRole('alertdialog')).toBeNull();
  });

  it('creates an invite link, shows it once with Copy, lists it and revokes it', async () => {
    const user = userEvent.setup();
    const { calls } = await visit('/workspace/w1/settings/member', 'owner');
    await screen.findByText('No active invite links.');
    await user.selectOptions(screen.getByLabelText('Role'), 'manager');
    await user.selectOptions(screen.getByLabelText('Expires after'), '30 days');
    const maxUses = screen.getByLabelText(/^Maximum uses/);
    await user.type(maxUses, '0');
    await user.click(screen.getByRole('button', { name: 'Create invite link' }));
    expect(screen.getByText('Number must be greater than or equal to 1')).toBeTruthy();
    expect(calls('POST', 'workspaces/w1/invites')).toHaveLength(0);

    await user.clear(maxUses);
    await user.type(maxUses, '5');
    await user.click(screen.getByRole('button', { name: 'Create invite link' }));
    const link = (await screen.findByLabelText('Invite link')) as HTMLInputElement;
    const url = `${window.location.origin}/invite?token=secret-token`;
    expect(link.value).toBe(url);
    expect(calls('POST', 'workspaces/w1/invites').map((c) => JSON.parse(c.body))).toEqual([
      { privilege: 'manager', expires_in_hours: 720, max_uses: 5 },
    ]);
    await user.click(screen.getByRole('button', { name: 'Copy Invite link' }));
    expect(await navigator.clipboard.readText()).toBe(url);

    const active = await screen.findByRole('button', { name: /^Revoke manager link/ });
    expect(within(active.closest('tr')!).getByText('0 of 5')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Done' }));
    expect(document.body.textContent).not.toContain('secret-token');
    expect(screen.queryByLabelText('Invite link')).toBeNull();

    await user.click(active);
    expect(await screen.findByText('No active invite links.')).toBeTruthy();
    expect(calls('DELETE', `workspaces/w1/invites/${INVITE}`)).toHaveLength(1);
  });

  it('shows the join code and rotates it after confirming', async () => {
    const user = userEvent.setup();
    const { calls } = await visit('/workspace/w1/settings/member', 'owner');
    const code = (await screen.findByRole('textbox', { name: 'Join code' })) as HTMLInputElement;
    expect(code.value).toBe('ABCD-EFGH');
    await user.click(screen.getByRole('button', { name: 'Rotate code' }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Rotate' }));
    await waitFor(() =>
      expect((screen.getByRole('textbox', { name: 'Join code' }) as HTMLInputElement).value).toBe(
        'WXYZ-2345',
      ),
    );
    expect(calls('POST', 'workspaces/w1/join-code/rotate')).toHaveLength(1);
  });

  it('says when wrong guesses locked the join code, until it is rotated', async () => {
    const user = userEvent.setup();
    await visit('/workspace/w1/settings/member', 'owner', defaultOthers(), true);
    const notice = await screen.findByText(/This code was locked after too many wrong attempts/);
    expect(notice.textContent).toContain('Rotate it to let people join again.');
    await user.click(screen.getByRole('button', { name: 'Rotate code' }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Rotate' }));
    await waitFor(() => expect(screen.queryByText(/This code was locked/)).toBeNull());
  });

  it('cannot leave as the last owner', async () => {
    await visit('/workspace/w1/settings/member', 'owner');
    const leave = (await screen.findByRole('button', { name: 'Leave workspace' })) as HTMLButtonElement;
    expect(leave.disabled).toBe(true);
    expect(
      screen.getByText('You are the only owner. Make someone else an owner before you leave.'),
    ).toBeTruthy();
  });

  it('leaves after confirming when another owner remains, and the login decision picks another workspace', async () => {
    const user = userEvent.setup();
    const { calls, path } = await visit('/workspace/w1/settings/member', 'owner', [
      member(MANAGER, 'Otto', 'Owner', 'owner'),
    ]);
    // Another owner: their role can change, and they can be removed.
    expect(await screen.findByRole('combobox', { name: 'Role of Otto Owner' })).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Leave workspace' }));
    await user.click(
      within(screen.getByRole('alertdialog', { name: 'Leave Acme?' })).getByRole('button', { name: 'Leave' }),
    );
    await waitFor(() => expect(path()).toBe('/workspace/w2/saved-queries'));
    expect(calls('POST', 'workspaces/w1/leave')).toHaveLength(1);
  });
});

describe('members page as a manager or viewer', () => {
  it('lets a manager manage non-owners only, and invite viewers only', async () => {
    await visit('/workspace/w1/settings/member', 'manager', [
      member(MANAGER, 'Otto', 'Owner', 'owner'),
      member(VIEWER, 'Vera', 'Viewer', 'viewer'),
    ]);
    await screen.findByRole('rowheader', { name: 'Otto Owner' });
    expect(within(row('Otto Owner')).queryByRole('combobox')).toBeNull();
    expect(within(row('Otto Owner')).queryByRole('button', { name: /Remove/ })).toBeNull();
    const vera = screen.getByRole('combobox', { name: 'Role of Vera Viewer' }) as HTMLSelectElement;
    expect([...vera.options].map((o) => o.value)).toEqual(['manager', 'viewer']);
    expect(screen.getByRole('button', { name: 'Remove Vera Viewer' })).toBeTruthy();
    const role = screen.getByLabelText('Role') as HTMLSelectElement;
    expect([...role.options].map((o) => o.value)).toEqual(['viewer']);
  });

  it('shows a viewer a read-only list and asks nothing they may not see', async () => {
    const { calls } = await visit('/workspace/w1/settings/member', 'viewer', [
      member(MANAGER, 'Otto', 'Owner', 'owner'),
    ]);
    await screen.findByRole('rowheader', { name: 'Otto Owner' });
    expect(screen.queryAllByRole('combobox')).toHaveLength(0);
    expect(screen.queryByRole('button', { name: /Remove/ })).toBeNull();
    expect(screen.queryByRole('heading', { name: 'Invite links' })).toBeNull();
    expect(screen.queryByRole('heading', { name: 'Join code' })).toBeNull();
    expect(calls('GET', 'workspaces/w1/invites')).toHaveLength(0);
    expect(calls('GET', 'workspaces/w1/join-code')).toHaveLength(0);
    expect((screen.getByRole('button', { name: 'Leave workspace' }) as HTMLButtonElement).disabled).toBe(
      false,
    );
  });
});

describe('general settings', () => {
  it('lets an owner rename the workspace and change its language', async () => {
    const user = userEvent.setup();
    const { calls } = await visit('/workspace/w1/settings/general', 'owner');
    const name = (await screen.findByLabelText('Workspace name')) as HTMLInputElement;
    expect(name.value).toBe('Acme');
    await user.clear(name);
    await user.click(screen.getByRole('button', { name: 'Save changes' }));
    expect(screen.getByText('String must contain at least 1 character(s)')).toBeTruthy();
    await user.type(name, 'Acme Global');
    await user.selectOptions(screen.getByLabelText('Content language'), 'de');
    await user.click(screen.getByRole('button', { name: 'Save changes' }));
    expect(await screen.findByText('Workspace settings saved')).toBeTruthy();
    expect(calls('PATCH', 'workspaces/w1').map((c) => JSON.parse(c.body))).toEqual([
      { name: 'Acme Global', language: 'de' },
    ]);
  });

  it('is read-only for a viewer', async () => {
    await visit('/workspace/w1/settings/general', 'viewer');
    expect(await screen.findByText('Only owners and managers can change these settings.')).toBeTruthy();
    expect(screen.queryByRole('textbox')).toBeNull();
    expect(screen.getByText('English')).toBeTruthy();
  });
  it("shows how sentiment agrees with the team's corrections, to any member", async () => {
    const { calls } = await visit('/workspace/w1/settings/general', 'viewer');
    const section = await screen.findByRole('region', { name: 'Sentiment' });
    // 101 of 120: 84.2 %; 108 of 120 with the same-text corrections applied: 90 %.
    expect(
      await within(section).findByText("Agreement with your team's corrections: 84 % of 120"),
    ).toBeTruthy();
    expect(section.textContent).toContain('(each corrected post judged without its own): 90 %.');
    expect(calls('GET', 'workspaces/w1/sentiment-agreement')).toHaveLength(1);
  });

  it('says when nothing has been corrected yet', async () => {
    agreement = { corrected: 0, model_agreeing: 0, adapted_agreeing: 0 };
    await visit('/workspace/w1/settings/general', 'owner');
    const section = await screen.findByRole('region', { name: 'Sentiment' });
    expect(
      await within(section).findByText(/Agreement with your team's corrections: none yet\./),
    ).toBeTruthy();
    expect(section.textContent).not.toContain('%');
  });
});
