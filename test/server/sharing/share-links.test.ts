// Read-only share links: owners and managers make, list and revoke them, viewers and outsiders cannot; a link opened
// signed out answers its dashboard exactly as a member's call does, and nothing else (its body is the token alone);
// revoked, expired and plan-expired links show no data; rolling links end now; every answer counts against the
// workspace's month and says noindex; a flood from one address is refused.
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OverviewResponse, PostsResponse } from '@contract/insights-responses';
import type { ShareLink } from '@contract/share-links';
import { workspaces } from '@server/db/schema';
import { shareLinks } from '@server/db/social-schema';
import { SHARED_RATE_LIMIT_PER_MINUTE } from '@server/sharing/shared-routes';
import { insertCorpus, insertSavedQuery } from '@test/support/insights.fixtures';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, type Team } from '@test/support/workspaces.fixtures';

let server: TestServer;
let team: Team;
let savedQueryId: string;
const RANGE = { from: '2026-10-20T00:00:00Z', to: '2026-11-10T00:00:00Z' };

beforeAll(async () => {
  server = await createTestServer();
  team = await createTeam(server);
  await insertCorpus(server);
  savedQueryId = await insertSavedQuery(server, team.workspaceId, 'coffee OR tea');
});
afterAll(() => server.close());

const linksPath = () => `/api/workspaces/${team.workspaceId}/share-links`;

async function share(body: Record<string, unknown>, person = team.manager) {
  const res = await as(server, person, { method: 'POST', url: linksPath(), payload: body });
  return res;
}

async function made(dashboard = 'overview', extra: Record<string, unknown> = {}) {
  const res = await share({
    dashboard,
    view: { saved_query_id: savedQueryId, filters: RANGE },
    ...extra,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ link: ShareLink; token: string }>();
}

const shared = (url: 'view' | 'answer', payload: Record<string, unknown>, ip = '203.0.113.7') =>
  server.app.inject({ method: 'POST', url: `/social/shared/${url}`, payload, remoteAddress: ip });

describe('making share links', () => {
  it('is for owners and managers; viewers are refused, outsiders see no workspace', async () => {
    const viewer = await share({ dashboard: 'overview', view: { filters: RANGE } }, team.viewer);
    expect(viewer.statusCode).toBe(403);
    const outsider = await share({ dashboard: 'overview', view: { filters: RANGE } }, team.outsider);
    expect(outsider.statusCode).toBe(404);
    const list = await as(server, team.viewer, { method: 'GET', url: linksPath() });
    expect(list.statusCode).toBe(403);
  });

  it('refuses a view its dashboard would refuse, one without its range, and a saved query of no one', async () => {
    for (const view of [
      { query: 'coffee AND (', filters: RANGE },
      { query: 'coffee', filters: { from: RANGE.from } },
      { saved_query_id: '00000000-0000-4000-8000-000000000000', filters: RANGE },
      { query: 'coffee', filters: RANGE, refine: [{ field: 'planet', values: ['mars'] }] },
    ]) {
      const res = await share({ dashboard: 'overview', view });
      expect([400, 404], `${JSON.stringify(view)}: ${res.body}`).toContain(res.statusCode);
    }
    for (const days of [0, 366, 1.5])
      expect(
        (await share({ dashboard: 'overview', view: { filters: RANGE }, expires_in_days: days })).statusCode,
      ).toBe(400);
    const { rows } = await server.pool.query('SELECT count(*)::int AS n FROM share_links');
    expect(rows[0].n).toBe(0);
  });

  it('stores the token hashed, expires in 30 days by default, and lists the link with who made it', async () => {
    const { link, token } = await made();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [row] = await server.db.select().from(shareLinks).where(eq(shareLinks.id, link.id));
    expect(row!.tokenHash).not.toContain(token);
    expect(row!.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(Date.parse(link.expires_at) - Date.now()).toBeGreaterThan(29.9 * 86_400_000);
    expect(link).toMatchObject({
      dashboard: 'overview',
      title: 'Saved coffee OR tea',
      status: 'active',
      opens: 0,
    });
    expect(link.created_by).toBe(team.manager.email);
    const list = await as(server, team.owner, { method: 'GET', url: linksPath() });
    expect(list.json<{ links: ShareLink[] }>().links.map((l) => l.id)).toContain(link.id);
    expect(list.body).not.toContain(token);
  });
});

describe('naming share links', () => {
  it('keeps the name its maker gave, trimmed and listed, to tell links to one view apart; none is null', async () => {
    const named = await made('overview', { name: '  Board deck, Q4  ' });
    expect(named.link.name).toBe('Board deck, Q4');
    const unnamed = await made('overview');
    expect(unnamed.link.name).toBeNull();
    const list = await as(server, team.owner, { method: 'GET', url: linksPath() });
    const names = new Map(list.json<{ links: ShareLink[] }>().links.map((l) => [l.id, l.name]));
    expect(names.get(named.link.id)).toBe('Board deck, Q4');
    expect(names.get(unnamed.link.id)).toBeNull();
    const before = (await server.pool.query('SELECT count(*)::int AS n FROM share_links')).rows[0].n;
    for (const name of ['', '   ', 'x'.repeat(81), 42]) {
      const res = await share({ name, dashboard: 'overview', view: { query: 'coffee', filters: RANGE } });
      expect(res.statusCode, JSON.stringify(name)).toBe(400);
    }
    expect(
      (
        await share({
          name: 'x'.repeat(80),
          dashboard: 'overview',
          view: { query: 'coffee', filters: RANGE },
        })
      ).statusCode,
    ).toBe(201);
    const after = (await server.pool.query('SELECT count(*)::int AS n FROM share_links')).rows[0].n;
    expect(after).toBe(before + 1);
  });
});

describe('opening a share link signed out', () => {
  it('answers the dashboard as a member’s call does, says noindex, and counts the opening', async () => {
    const { link, token } = await made();
    const meta = await shared('view', { token });
    expect(meta.statusCode, meta.body).toBe(200);
    expect(meta.headers['x-robots-tag']).toBe('noindex, nofollow');
    expect(meta.json()).toMatchObject({
      dashboard: 'overview',
      title: 'Saved coffee OR tea',
      rolling: false,
    });
    const answer = await shared('answer', { token });
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.headers['x-robots-tag']).toBe('noindex, nofollow');
    const member = await as(server, team.viewer, {
      method: 'POST',
      url: '/social/insights/overview',
      payload: { workspace_id: team.workspaceId, saved_query_id: savedQueryId, filters: RANGE },
    });
    // The same answer, but for the tags a member sees on each post (a tag is the team's own word for a post).
    const overview = member.json<OverviewResponse>();
    expect(overview.top_posts.every((post) => Array.isArray(post.tags))).toBe(true);
    const untagged = { ...overview, top_posts: overview.top_posts.map(({ tags: _tags, ...post }) => post) };
    expect(answer.json<OverviewResponse>()).toEqual(untagged);
    expect(answer.json<OverviewResponse>().totals.mentions.value).toBeGreaterThan(0);
    const list = await as(server, team.owner, { method: 'GET', url: linksPath() });
    const listed = list.json<{ links: ShareLink[] }>().links.find((l) => l.id === link.id)!;
    expect(listed.opens).toBe(1);
    expect(listed.last_opened_at).not.toBeNull();
  });

  it('takes the token and nothing else: no other view, query, range, workspace or page can be asked', async () => {
    const { token } = await made('posts');
    for (const extra of [
      { query: 'everything' },
      { workspace_id: 'another' },
      { filters: { from: '2020-01-01T00:00:00Z', to: '2026-11-10T00:00:00Z' } },
      { cursor: 'abc' },
      { dashboard: 'people' },
    ]) {
      const res = await shared('answer', { token, ...extra });
      expect(res.statusCode, JSON.stringify(extra)).toBe(400);
    }
    // A list shows its first page, without a cursor to go further.
    const page = await shared('answer', { token });
    expect(page.statusCode, page.body).toBe(200);
    expect(page.json<PostsResponse>().next_cursor).toBeNull();
    for (const bad of ['x'.repeat(43), `${token.slice(0, -1)}A`, token.toUpperCase()]) {
      if (bad === token) continue;
      const res = await shared('answer', { token: bad });
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toBe('share_link_not_found');
    }
  });

  it('shows nothing once revoked, expired, or while the workspace’s plan has expired', async () => {
    const revoked = await made();
    const res = await as(server, team.owner, {
      method: 'DELETE',
      url: `${linksPath()}/${revoked.link.id}`,
    });
    expect(res.json<ShareLink>().status).toBe('revoked');
    for (const url of ['view', 'answer'] as const) {
      const gone = await shared(url, { token: revoked.token });
      expect(gone.statusCode).toBe(410);
      expect(gone.json()).toMatchObject({ error: 'share_link_revoked' });
      expect(gone.body).not.toContain('mentions');
    }
    const expired = await made();
    await server.db
      .update(shareLinks)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(shareLinks.id, expired.link.id));
    const old = await shared('answer', { token: expired.token });
    expect(old.statusCode).toBe(410);
    expect(old.json().error).toBe('share_link_expired');

    const live = await made();
    await server.db
      .update(workspaces)
      .set({ planExpiredAt: new Date(Date.now() - 1000) })
      .where(eq(workspaces.id, team.workspaceId));
    try {
      const lapsed = await shared('answer', { token: live.token });
      expect(lapsed.statusCode).toBe(403);
      expect(lapsed.json().error).toBe('plan_expired');
    } finally {
      await server.db
        .update(workspaces)
        .set({ planExpiredAt: null })
        .where(eq(workspaces.id, team.workspaceId));
    }
  });

  it('moves a rolling link’s range to end now, as long as it was made', async () => {
    const { token } = await made('overview', { rolling: true });
    const answer = (await shared('answer', { token })).json<OverviewResponse>();
    const to = Date.parse(answer.range.to);
    expect(Date.now() - to).toBeLessThan(61_000);
    expect(to - Date.parse(answer.range.from)).toBe(Date.parse(RANGE.to) - Date.parse(RANGE.from));
  });

  it('counts each answer against the workspace’s monthly dashboard volume', async () => {
    const { token } = await made();
    const count = async () =>
      (
        await server.db.execute<{ n: number }>(
          sql`SELECT coalesce(sum(count), 0)::int AS n FROM usage_counters
            WHERE workspace_id = ${team.workspaceId} AND metric = 'dashboard_requests_per_month'`,
        )
      ).rows[0]!.n;
    const before = await count();
    await shared('answer', { token });
    expect(await count()).toBe(before + 1);
  });

  it(`refuses more than ${SHARED_RATE_LIMIT_PER_MINUTE} calls a minute from one address`, async () => {
    const token = 'y'.repeat(43);
    let limited = 0;
    for (let i = 0; i <= SHARED_RATE_LIMIT_PER_MINUTE; i += 1) {
      const res = await shared('view', { token }, '198.51.100.9');
      if (res.statusCode === 429) limited += 1;
    }
    expect(limited).toBe(1);
    // Another address is not affected.
    expect((await shared('view', { token }, '198.51.100.10')).statusCode).toBe(404);
  });
});

describe('what a shared answer says of the workspace’s members', () => {
  it('carries a corrected sentiment, but never who corrected it', async () => {
    const ip = '203.0.113.99';
    const { token } = await made('posts');
    const before = await shared('answer', { token }, ip);
    expect(before.statusCode, before.body).toBe(200);
    const post = before.json<PostsResponse>().posts[0]!;
    const label = post.sentiment_label === 'negative' ? 'positive' : 'negative';
    const corrected = await as(server, team.manager, {
      method: 'PUT',
      url: `/api/workspaces/${team.workspaceId}/posts/${post.id}/sentiment`,
      payload: { label },
    });
    expect(corrected.statusCode, corrected.body).toBe(200);
    // A member sees who corrected it…
    const member = await as(server, team.viewer, {
      method: 'POST',
      url: '/social/insights/posts',
      payload: { workspace_id: team.workspaceId, saved_query_id: savedQueryId, filters: RANGE },
    });
    expect(member.statusCode, member.body).toBe(200);
    const seen = member.json<PostsResponse>().posts.find((p) => p.id === post.id)!;
    expect(seen.sentiment_correction?.corrected_by).toBe(team.manager.email);
    // …the link's reader sees the correction, and no one's name or address.
    for (const dashboard of ['posts', 'overview']) {
      const link = dashboard === 'posts' ? token : (await made('overview')).token;
      const after = await shared('answer', { token: link }, ip);
      expect(after.statusCode, after.body).toBe(200);
      expect(after.body).not.toContain(team.manager.email);
      if (dashboard === 'posts') {
        const sharedPost = after.json<PostsResponse>().posts.find((p) => p.id === post.id)!;
        expect(sharedPost.sentiment_label).toBe(label);
        expect(sharedPost.sentiment_correction).toMatchObject({
          estimated_label: post.sentiment_label,
          corrected_by: null,
        });
      }
    }
  });
});

describe('sharing Compare', () => {
  it('shares saved queries side by side: the link answers as a member’s Compare call, titled with their names', async () => {
    const ip = '203.0.113.120';
    const teaId = await insertSavedQuery(server, team.workspaceId, 'tea');
    const view = { saved_query_ids: [savedQueryId, teaId], filters: RANGE };
    const res = await share({ dashboard: 'compare', view, name: 'Coffee against tea' });
    expect(res.statusCode, res.body).toBe(201);
    const { link, token } = res.json<{ link: ShareLink; token: string }>();
    expect(link).toMatchObject({
      dashboard: 'compare',
      name: 'Coffee against tea',
      title: 'Saved coffee OR tea vs Saved tea',
      range: RANGE,
    });
    const list = await as(server, team.owner, { method: 'GET', url: linksPath() });
    const listed = list.json<{ links: ShareLink[] }>().links.find((l) => l.id === link.id)!;
    expect(listed.title).toBe('Saved coffee OR tea vs Saved tea');

    const meta = await shared('view', { token }, ip);
    expect(meta.statusCode, meta.body).toBe(200);
    expect(meta.json()).toMatchObject({
      dashboard: 'compare',
      title: 'Saved coffee OR tea vs Saved tea',
      query: null,
    });
    const answer = await shared('answer', { token }, ip);
    expect(answer.statusCode, answer.body).toBe(200);
    const member = await as(server, team.viewer, {
      method: 'POST',
      url: '/social/insights/compare',
      payload: { workspace_id: team.workspaceId, ...view },
    });
    expect(member.statusCode, member.body).toBe(200);
    expect(answer.json()).toEqual(member.json());
    expect(answer.json<{ queries: unknown[] }>().queries).toHaveLength(2);

    // One saved query is no comparison; another workspace's is not this one's to share.
    const one = await share({ dashboard: 'compare', view: { saved_query_ids: [teaId], filters: RANGE } });
    expect(one.statusCode).toBe(400);
    const elsewhere = await createTeam(server);
    const theirs = await insertSavedQuery(server, elsewhere.workspaceId, 'milk');
    const foreign = await share({
      dashboard: 'compare',
      view: { saved_query_ids: [savedQueryId, theirs], filters: RANGE },
    });
    expect(foreign.statusCode).toBe(404);
    // A dashboard's view is not Compare's, nor the other way round.
    const mixed = await share({ dashboard: 'overview', view });
    expect(mixed.statusCode).toBe(400);
  });
});
