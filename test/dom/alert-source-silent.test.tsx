// The alert rule form offers "Source silent" (issue 54, item 4): choosing it (by keyboard) drops the window, says what
// it watches, and asks for hours in a labelled field checked as the server checks them (1 to 168); the server's
// refusal of a saved query that is not tracked is said under the form; the rule made shows in the list by its summary.
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryHistory } from '@tanstack/react-router';
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App, createApp, type MurmurApp } from '@/app';
import type { AlertRule } from '@contract/alerts';
import type { MemberResponse } from '@contract/workspaces';
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
import { currentUserFixture, savedQueryFixture, workspaceFixture } from '@test/support/contract.fixtures';

const SELF = '00000000-0000-4000-8000-000000000001';
const QUERY = '00000000-0000-4000-8000-0000000000aa';

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

const ruleOf = (body: Record<string, unknown>): AlertRule => ({
  id: '00000000-0000-4000-8000-0000000000r1',
  workspace_id: 'w1',
  saved_query_id: QUERY,
  kind: 'source_silent',
  period: 'hour',
  threshold: body.threshold as number,
  in_app: true,
  email: false,
  recipient_ids: [SELF],
  webhook_url: null,
  webhook_host: null,
  webhook_secret: 'whsec_x',
  enabled: true,
  muted: false,
  last_fired_at: null,
  created_by: SELF,
  created_at: nowSeconds(),
  updated_at: nowSeconds(),
  summary: `Source silent: A tracked source silent for ${String(body.threshold)} hours or more`,
  last_delivery: null,
});

async function visit() {
  const state = { rules: [] as AlertRule[], posts: [] as Array<Record<string, unknown>>, tracked: false };
  const server = await startFakeHttp();
  const ws = workspaceFixture('w1', { plan_expired_at: nowSeconds() + 864_000 });
  const me: MemberResponse = {
    user_id: SELF,
    email: 'o@example.com',
    first_name: 'Olga',
    last_name: null,
    privilege: 'owner',
    joined_at: 1_767_225_600,
  };
  server.handle = (request): FakeReply => {
    const shell = shellReply(request);
    if (shell) return shell;
    const key = `${request.method} ${request.path.replace(/^\/api\//, '')}`;
    if (key === 'GET users/me') return { status: 200, body: currentUserFixture(SELF, [ws]) };
    if (key === 'GET workspaces/w1') return { status: 200, body: ws };
    if (key === 'GET workspaces/w1/members') return { status: 200, body: [me] };
    if (key === 'GET workspaces/w1/saved-queries')
      return {
        status: 200,
        body: {
          saved_queries: [savedQueryFixture(QUERY, 'w1', { name: 'Brand' })],
          usage: { count: 1, limit: 25 },
        },
      };
    if (key === 'GET workspaces/w1/alert-rules')
      return { status: 200, body: { rules: state.rules, can_edit: true, limit: 300 } };
    if (key === 'GET workspaces/w1/digests')
      return { status: 200, body: { digests: [], can_edit: true, limit: 50, daily_cap: 500 } };
    if (key === 'POST workspaces/w1/alert-rules') {
      const body = JSON.parse(request.body) as Record<string, unknown>;
      state.posts.push(body);
      if (!state.tracked)
        return {
          status: 400,
          body: {
            error: 'invalid_alert_rule',
            message:
              'A source-silent rule needs a tracked saved query: track this one on at least one source first (Saved queries, Track).',
          },
        };
      const rule = ruleOf(body);
      state.rules.push(rule);
      return { status: 201, body: rule };
    }
    return { status: 404, body: { error: 'not_found', message: 'Not found.' } };
  };
  localStorage.setItem(
    AUTH_TOKENS_KEY,
    JSON.stringify({ access_token: fakeJwt(nowSeconds() + 3600, SELF), refresh_token: 'r' }),
  );
  const app = createApp(testConfig(`${server.url}/api/`), {
    history: createMemoryHistory({ initialEntries: ['/workspace/w1/alerts?edit=new'] }),
    analytics: () => {},
  });
  running.push({ app, server });
  render(<App app={app} />);
  return state;
}

describe('a source-silent rule on the Alerts page', () => {
  it('is chosen by keyboard, asks for hours, says the refusal of an untracked query, and lists the rule made', async () => {
    const user = userEvent.setup();
    const state = await visit();
    const form = await screen.findByRole('form', { name: 'New alert rule' });
    expect(within(form).getByRole('group', { name: 'Window' })).toBeTruthy();
    const spike = within(form).getByRole('radio', { name: 'Spike' });
    spike.focus();
    // Radios move with the arrow keys: Spike → Volume threshold → Sentiment shift → Source silent.
    await user.keyboard('{ArrowDown}{ArrowDown}{ArrowDown}');
    const silent = within(form).getByRole('radio', { name: 'Source silent' });
    expect(document.activeElement).toBe(silent);
    expect((silent as HTMLInputElement).checked).toBe(true);
    // No window for it; what it watches is said, and the choice is described by it.
    expect(within(form).queryByRole('group', { name: 'Window' })).toBeNull();
    const kinds = within(form).getByRole('group', { name: 'Alert when' });
    expect(kinds.getAttribute('aria-describedby')).toBeTruthy();
    const hint = document.getElementById(kinds.getAttribute('aria-describedby')!)!;
    expect(hint.textContent).toMatch(
      /^When a source the saved query is tracked on has collected nothing for it/,
    );
    expect(hint.textContent).toMatch(/The saved query must be tracked \(Saved queries, Track\)\./);

    const hours = within(form).getByRole('textbox', { name: 'Hours silent (threshold)' });
    await user.tab();
    expect(document.activeElement).toBe(hours);
    await user.keyboard('200');
    await user.click(within(form).getByRole('button', { name: 'Make rule' }));
    expect(within(form).getByText('The silence is a number of hours from 1 to 168.')).toBeTruthy();
    expect(state.posts).toHaveLength(0);

    await user.clear(hours);
    await user.type(hours, '6');
    await user.click(within(form).getByRole('button', { name: 'Make rule' }));
    expect((await within(form).findByRole('alert')).textContent).toBe(
      'A source-silent rule needs a tracked saved query: track this one on at least one source first (Saved queries, Track).',
    );
    expect(state.posts.at(-1)).toMatchObject({ saved_query_id: QUERY, kind: 'source_silent', threshold: 6 });

    state.tracked = true;
    await user.click(within(form).getByRole('button', { name: 'Make rule' }));
    const table = await screen.findByRole('table', { name: 'Alert rules' });
    expect(
      within(table).getByText('Source silent: A tracked source silent for 6 hours or more'),
    ).toBeTruthy();
  });
});
