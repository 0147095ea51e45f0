// Every plan limit refused at the server with an error that names it, and visible as usage before it is reached:
// members (invite link and join code), the monthly dashboard and export volumes, the history length (clipped).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlanResponse } from '@contract/billing';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { addMember, as, createTeam, type Person, type Team } from '@test/support/workspaces.fixtures';
import { plansFile } from '@test/support/billing.fixtures';

const DAY = 86_400_000;
let server: TestServer;
beforeAll(async () => {
  server = await createTestServer({
    BILLING_PLANS_FILE: plansFile({
      members: 5,
      dashboard_requests_per_month: 4,
      exports_per_month: 2,
      history_days: 30,
    }),
  });
});
afterAll(() => server.close());

async function planOf(team: Team): Promise<PlanResponse> {
  const res = await as(server, team.viewer, {
    method: 'GET',
    url: `/api/workspaces/${team.workspaceId}/plan`,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
const usage = async (team: Team, key: string) => (await planOf(team)).usage.find((u) => u.key === key);

describe('members', () => {
  it('an invite link and a join code are refused once the seats are taken', async () => {
    const team = await createTeam(server); // four members
    expect(await usage(team, 'members')).toEqual({ key: 'members', used: 4, limit: 5 });
    const invite = await as(server, team.owner, {
      method: 'POST',
      url: `/api/workspaces/${team.workspaceId}/invites`,
      payload: {},
    });
    const { token } = invite.json<{ token: string }>();
    const [first, second, third] = await Promise.all([1, 2, 3].map(() => server.createUser()));
    const joins = await Promise.all(
      [first!, second!].map((person) =>
        as(server, person, { method: 'POST', url: '/api/user/me/invite', payload: { token } }),
      ),
    );
    // Two at once for the last seat: exactly one gets it.
    expect(joins.map((j) => j.statusCode).sort()).toEqual([200, 409]);
    const refused = joins.find((j) => j.statusCode === 409)!.json();
    expect(refused.error).toBe('member_limit');
    expect(refused.message).toContain('limit of 5 members');
    expect(await usage(team, 'members')).toEqual({ key: 'members', used: 5, limit: 5 });

    const code = await as(server, team.owner, {
      method: 'GET',
      url: `/api/workspaces/${team.workspaceId}/join-code`,
    });
    expect(code.statusCode, code.body).toBeLessThan(300);
    const joined = await as(server, third!, {
      method: 'POST',
      url: '/api/user/me/join',
      payload: { code: code.json<{ code: string }>().code },
    });
    expect(joined.statusCode).toBe(409);
    expect(joined.json().error).toBe('member_limit');
  });
});

const dashboard = (team: Team, person: Person, filters: object = {}) =>
  as(server, person, {
    method: 'POST',
    url: '/social/insights/posts',
    payload: { workspace_id: team.workspaceId, query: '', filters },
  });

describe('monthly volumes', () => {
  it('counts dashboard requests and refuses past the month limit', async () => {
    const team = await createTeam(server);
    for (let i = 0; i < 4; i++) expect((await dashboard(team, team.viewer)).statusCode).toBe(200);
    expect(await usage(team, 'dashboard_requests_per_month')).toEqual({
      key: 'dashboard_requests_per_month',
      used: 4,
      limit: 4,
    });
    const over = await dashboard(team, team.owner);
    expect(over.statusCode).toBe(409);
    expect(over.json().error).toBe('dashboard_volume_limit');
    expect(over.json().message).toContain('4 dashboard requests a month');
    expect((await planOf(team)).usage_month).toMatch(/^\d{4}-\d{2}-01$/);
  });

  it('counts exports separately and refuses past their limit', async () => {
    const team = await createTeam(server);
    const exportPosts = () =>
      as(server, team.manager, {
        method: 'POST',
        url: '/social/insights/export/posts',
        payload: { workspace_id: team.workspaceId, query: '' },
      });
    expect((await exportPosts()).statusCode).toBe(200);
    expect((await exportPosts()).statusCode).toBe(200);
    const over = await exportPosts();
    expect(over.statusCode).toBe(409);
    expect(over.json().error).toBe('export_volume_limit');
    expect(await usage(team, 'exports_per_month')).toMatchObject({ used: 2, limit: 2 });
    // Dashboards still answer: each volume is its own.
    expect((await dashboard(team, team.viewer)).statusCode).toBe(200);
  });
});

describe('history', () => {
  it("clips a range that reaches further back than the plan's history, and says so", async () => {
    const team = await createTeam(server);
    const from = new Date(Date.now() - 60 * DAY).toISOString();
    const to = new Date(Date.now() - DAY).toISOString();
    const res = await dashboard(team, team.viewer, { from, to });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.history_clip).toEqual({ requested_from: from, history_days: 30 });
    // From the start of today (UTC), 30 whole days back: the same instant all day, for the answer cache.
    const clippedFrom = new Date(body.range.from).getTime();
    expect(clippedFrom).toBe(Math.floor(Date.now() / DAY) * DAY - 30 * DAY);
    expect(body.range.to).toBe(to);

    const inside = await dashboard(team, team.viewer, {
      from: new Date(Date.now() - 10 * DAY).toISOString(),
      to,
    });
    expect(inside.json().history_clip).toBeUndefined();

    const before = await dashboard(team, team.viewer, {
      from: new Date(Date.now() - 90 * DAY).toISOString(),
      to: new Date(Date.now() - 45 * DAY).toISOString(),
    });
    expect(before.statusCode).toBe(409);
    expect(before.json().error).toBe('history_limit');
  });

  it('the export of a clipped range says so in its comment lines', async () => {
    const team = await createTeam(server);
    const res = await as(server, team.owner, {
      method: 'POST',
      url: '/social/insights/export/posts',
      payload: {
        workspace_id: team.workspaceId,
        query: '',
        filters: { from: new Date(Date.now() - 40 * DAY).toISOString(), to: new Date().toISOString() },
      },
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/# History: the plan keeps 30 days/);
  });
});

describe('the demo workspace', () => {
  it('has no limits', async () => {
    const team = await createTeam(server);
    const { workspaces } = await import('@server/db/schema');
    const { eq } = await import('drizzle-orm');
    await server.db
      .update(workspaces)
      .set({ plan: 'demo', planExpiredAt: null })
      .where(eq(workspaces.id, team.workspaceId));
    for (let i = 0; i < 6; i++) expect((await dashboard(team, team.viewer)).statusCode).toBe(200);
    const extra = await server.createUser();
    await addMember(server, team.workspaceId, extra, 'viewer');
    const plan = await planOf(team);
    expect(plan.usage.every((u) => u.limit === null)).toBe(true);
    expect(plan.status).toBe('active');
  });
});
