// Alert rules and notifications through the API: who may do what (one table), what a viewer sees of a webhook, the
// checks a rule passes, muting, the notification list with its unread count and marking read (one's own only), and
// the e-mails' unsubscribe token.
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertRule } from '@contract/alerts';
import { alertEvents, notifications } from '@server/db/alerts-schema';
import { unsubscribeToken } from '@server/alerts/unsubscribe';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, type Team } from '@test/support/workspaces.fixtures';
import { insertSavedQuery } from '@test/support/insights.fixtures';

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer({ SCRAPING_ALLOW_PRIVATE_HOSTS: 'false' });
});
afterAll(() => server.close());

const base = (team: Team) => `/api/workspaces/${team.workspaceId}/alert-rules`;

async function rule(team: Team, fields: Record<string, unknown> = {}) {
  const queryId = await insertSavedQuery(server, team.workspaceId, 'coffee');
  const res = await as(server, team.owner, {
    method: 'POST',
    url: base(team),
    payload: {
      saved_query_id: queryId,
      kind: 'volume',
      period: 'day',
      threshold: 100,
      recipient_ids: [team.owner.id],
      webhook_url: 'https://hooks.example.com/services/T0/B0/secretpart',
      ...fields,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<AlertRule>();
}

const callers = ['owner', 'manager', 'viewer', 'outsider', 'signed out'] as const;
type Expected = [owner: number, manager: number, viewer: number, outsider: number, signedOut: number];

// prettier-ignore
const expected = {
  //                                                       owner manager viewer outsider signed-out
  'GET    /workspaces/:id/alert-rules':                     [200,  200,    200,   404,     401],
  'POST   /workspaces/:id/alert-rules':                     [201,  201,    403,   404,     401],
  'PATCH  /workspaces/:id/alert-rules/:ruleId':             [200,  200,    403,   404,     401],
  'DELETE /workspaces/:id/alert-rules/:ruleId':             [204,  204,    403,   404,     401],
  'POST   /workspaces/:id/alert-rules/:ruleId/mute':        [200,  200,    200,   404,     401],
  'GET    /workspaces/:id/alert-rules/:ruleId/deliveries':  [200,  200,    403,   404,     401],
  'POST   /workspaces/:id/alert-rules/:ruleId/test':        [200,  200,    403,   404,     401],
} satisfies Record<string, Expected>;
type Endpoint = keyof typeof expected;

const requests: Record<Endpoint, (team: Team) => Promise<InjectOptions>> = {
  'GET    /workspaces/:id/alert-rules': async (t) => ({ method: 'GET', url: base(t) }),
  'POST   /workspaces/:id/alert-rules': async (t) => ({
    method: 'POST',
    url: base(t),
    payload: {
      saved_query_id: await insertSavedQuery(server, t.workspaceId, 'tea'),
      kind: 'spike',
      period: 'hour',
      recipient_ids: [t.owner.id],
    },
  }),
  'PATCH  /workspaces/:id/alert-rules/:ruleId': async (t) => ({
    method: 'PATCH',
    url: `${base(t)}/${(await rule(t)).id}`,
    payload: { threshold: 50 },
  }),
  'DELETE /workspaces/:id/alert-rules/:ruleId': async (t) => ({
    method: 'DELETE',
    url: `${base(t)}/${(await rule(t)).id}`,
  }),
  'POST   /workspaces/:id/alert-rules/:ruleId/mute': async (t) => ({
    method: 'POST',
    url: `${base(t)}/${(await rule(t)).id}/mute`,
  }),
  'GET    /workspaces/:id/alert-rules/:ruleId/deliveries': async (t) => ({
    method: 'GET',
    url: `${base(t)}/${(await rule(t)).id}/deliveries`,
  }),
  // E-mail only (this server has no SMTP: the test's attempt fails at once, and is still answered with 200).
  'POST   /workspaces/:id/alert-rules/:ruleId/test': async (t) => ({
    method: 'POST',
    url: `${base(t)}/${(await rule(t, { webhook_url: null, email: true })).id}/test`,
  }),
};

describe.each(Object.entries(expected) as Array<[Endpoint, Expected]>)('%s', (endpoint, statuses) => {
  it.each(callers.map((caller, column) => [caller, statuses[column]!] as [(typeof callers)[number], number]))(
    'as %s → %i',
    async (caller, status) => {
      const team = await createTeam(server);
      const person = caller === 'signed out' ? null : team[caller];
      const res = await as(server, person, await requests[endpoint](team));
      expect(res.statusCode, res.body).toBe(status);
      if (status >= 400)
        expect(res.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    },
  );
});

describe('rules', () => {
  it("shows a viewer the rule but not the webhook's URL or secret; an editor sees both", async () => {
    const team = await createTeam(server);
    const made = await rule(team);
    expect(made.webhook_secret).toMatch(/^whsec_/);
    const seen = async (person: Team['viewer']) =>
      (await as(server, person, { method: 'GET', url: base(team) })).json<{
        rules: AlertRule[];
        can_edit: boolean;
      }>();
    const byViewer = await seen(team.viewer);
    expect(byViewer.can_edit).toBe(false);
    expect(byViewer.rules[0]).toMatchObject({
      webhook_url: null,
      webhook_secret: null,
      webhook_host: 'hooks.example.com',
      summary: 'Volume threshold: 100 mentions or more in a day',
    });
    const byManager = await seen(team.manager);
    expect(byManager.can_edit).toBe(true);
    expect(byManager.rules[0]!.webhook_url).toBe('https://hooks.example.com/services/T0/B0/secretpart');
  });

  it.each([
    [{ kind: 'spike', threshold: 5 }, 'A spike rule takes no threshold.'],
    [{ kind: 'volume', threshold: null }, 'This rule needs a threshold.'],
    [{ kind: 'sentiment_shift', threshold: 101 }, 'The shift is a number of points from 1 to 100.'],
    [
      { recipient_ids: [], webhook_url: null },
      'Choose who is told: at least one member (in the app or by e-mail), or a webhook.',
    ],
    [{ webhook_url: 'http://127.0.0.1:8080/hook' }, undefined],
    [{ webhook_url: 'ftp://example.com/hook' }, undefined],
  ] as Array<[Record<string, unknown>, string | undefined]>)('refuses %j', async (fields, message) => {
    const team = await createTeam(server);
    const queryId = await insertSavedQuery(server, team.workspaceId, 'coffee');
    const res = await as(server, team.owner, {
      method: 'POST',
      url: base(team),
      payload: {
        saved_query_id: queryId,
        kind: 'volume',
        period: 'day',
        threshold: 10,
        recipient_ids: [team.owner.id],
        ...fields,
      },
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error).toBe('invalid_alert_rule');
    if (message) expect(res.json().message).toBe(message);
  });

  it("refuses a recipient who is not a member and another workspace's saved query", async () => {
    const team = await createTeam(server);
    const other = await createTeam(server);
    const otherQuery = await insertSavedQuery(server, other.workspaceId, 'tea');
    const outsider = await as(server, team.owner, {
      method: 'POST',
      url: base(team),
      payload: {
        saved_query_id: await insertSavedQuery(server, team.workspaceId, 'tea'),
        kind: 'spike',
        period: 'day',
        recipient_ids: [team.outsider.id],
      },
    });
    expect(outsider.json().message).toBe('Every recipient must be a member of this workspace.');
    const foreign = await as(server, team.owner, {
      method: 'POST',
      url: base(team),
      payload: { saved_query_id: otherQuery, kind: 'spike', period: 'day', recipient_ids: [team.owner.id] },
    });
    expect(foreign.json().message).toBe('There is no such saved query in this workspace.');
  });

  it('mutes and unmutes for the caller alone', async () => {
    const team = await createTeam(server);
    const made = await rule(team);
    const mute = await as(server, team.viewer, { method: 'POST', url: `${base(team)}/${made.id}/mute` });
    expect(mute.json().muted).toBe(true);
    const listed = async (person: Team['viewer']) =>
      (await as(server, person, { method: 'GET', url: base(team) })).json<{ rules: AlertRule[] }>().rules[0]!
        .muted;
    expect(await listed(team.viewer)).toBe(true);
    expect(await listed(team.owner)).toBe(false);
    await as(server, team.viewer, { method: 'DELETE', url: `${base(team)}/${made.id}/mute` });
    expect(await listed(team.viewer)).toBe(false);
  });

  it("mutes through an e-mail's unsubscribe token signed out, and refuses a forged one", async () => {
    const team = await createTeam(server);
    const made = await rule(team);
    const token = unsubscribeToken(server.app.keys.alertUnsubscribe, made.id, team.viewer.id);
    const res = await as(server, null, {
      method: 'POST',
      url: '/api/alerts/unsubscribe',
      payload: { token },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().saved_query_name).toBe('Saved coffee');
    const rules = (await as(server, team.viewer, { method: 'GET', url: base(team) })).json<{
      rules: AlertRule[];
    }>();
    expect(rules.rules[0]!.muted).toBe(true);
    const forged = await as(server, null, {
      method: 'POST',
      url: '/api/alerts/unsubscribe',
      payload: { token: `${made.id}.${team.owner.id}.${token.split('.')[2]}` },
    });
    expect(forged.statusCode).toBe(400);
  });
});

describe('notifications', () => {
  it('answers 401 to a caller who is not signed in', async () => {
    for (const [method, url] of [
      ['GET', '/api/notifications'],
      ['GET', '/api/notifications/unread-count'],
      ['POST', '/api/notifications/read'],
    ] as const) {
      const response = await as(server, null, {
        method,
        url,
        payload: method === 'POST' ? { all: true } : undefined,
      });
      expect(response.statusCode, `${method} ${url}`).toBe(401);
    }
  });

  it("lists the caller's own, newest first, with the unread count; marks read only one's own", async () => {
    const team = await createTeam(server);
    const made = await rule(team);
    const events = await server.db
      .insert(alertEvents)
      .values(
        [10, 11, 12].map((h) => ({
          ruleId: made.id,
          workspaceId: team.workspaceId,
          windowStart: new Date(Date.UTC(2026, 10, h)),
          windowEnd: new Date(Date.UTC(2026, 10, h + 1)),
          figures: { mentions: 120, threshold: 100 },
          title: `Coffee reached 100 mentions (${h})`,
          message: '120 mentions today, at least the threshold of 100.',
        })),
      )
      .returning({ id: alertEvents.id });
    await server.db
      .insert(notifications)
      .values([
        ...events.map((e) => ({ userId: team.viewer.id, workspaceId: team.workspaceId, eventId: e.id })),
        { userId: team.owner.id, workspaceId: team.workspaceId, eventId: events[0]!.id },
      ]);
    const list = await as(server, team.viewer, { method: 'GET', url: '/api/notifications' });
    expect(list.statusCode, list.body).toBe(200);
    const body = list.json();
    expect(body.unread).toBe(3);
    expect(body.notifications.map((n: { title: string }) => n.title)).toEqual([
      'Coffee reached 100 mentions (12)',
      'Coffee reached 100 mentions (11)',
      'Coffee reached 100 mentions (10)',
    ]);
    expect(body.notifications[0]).toMatchObject({
      saved_query_name: 'Saved coffee',
      read: false,
      window: { from: '2026-11-12T00:00:00.000Z', to: '2026-11-13T00:00:00.000Z' },
      path: `/workspace/${team.workspaceId}/insight/overview?query=${made.saved_query_id}&range=30d&end=2026-11-13T00%3A00%3A00.000Z`,
    });

    // The owner's notification id is not the viewer's to mark.
    const ownersId = (await as(server, team.owner, { method: 'GET', url: '/api/notifications' })).json()
      .notifications[0].id;
    const marked = await as(server, team.viewer, {
      method: 'POST',
      url: '/api/notifications/read',
      payload: { ids: [body.notifications[0].id, ownersId] },
    });
    expect(marked.json()).toEqual({ unread: 2 });
    expect(
      (await as(server, team.owner, { method: 'GET', url: '/api/notifications/unread-count' })).json(),
    ).toEqual({
      unread: 1,
    });
    const all = await as(server, team.viewer, {
      method: 'POST',
      url: '/api/notifications/read',
      payload: { all: true },
    });
    expect(all.json()).toEqual({ unread: 0 });
  });

  it('leaves out the notifications of a workspace one has left', async () => {
    const team = await createTeam(server);
    const made = await rule(team);
    const [event] = await server.db
      .insert(alertEvents)
      .values({
        ruleId: made.id,
        workspaceId: team.workspaceId,
        windowStart: new Date(),
        windowEnd: new Date(),
        figures: {},
        title: 't',
        message: 'm',
      })
      .returning({ id: alertEvents.id });
    await server.db
      .insert(notifications)
      .values({ userId: team.viewer.id, workspaceId: team.workspaceId, eventId: event!.id });
    await as(server, team.owner, {
      method: 'DELETE',
      url: `/api/workspaces/${team.workspaceId}/members/${team.viewer.id}`,
    });
    const list = await as(server, team.viewer, { method: 'GET', url: '/api/notifications' });
    expect(list.json().notifications).toEqual([]);
  });
});
