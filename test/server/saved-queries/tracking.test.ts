// Tracking a saved query: who may read and change it, what the body must be, the sources a workspace may choose
// (never a credential), and that editing the query keeps tracking on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, type Team } from '@test/support/workspaces.fixtures';
import type pg from 'pg';
import { trackedQueriesFor } from '@server/tracking/coverage';
import type { TrackingGapsResponse, TrackingResponse, TrackingSourcesResponse } from '@contract/tracking';

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer();
});
afterAll(() => server.close());

const base = (team: Team) => `/api/workspaces/${team.workspaceId}/saved-queries`;

async function savedQuery(team: Team, query = 'coffee OR espresso') {
  const res = await as(server, team.owner, {
    method: 'POST',
    url: base(team),
    payload: { name: `Tracked ${Math.random()}`, query },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string }>().id;
}

const trackingUrl = (team: Team, id: string) => `${base(team)}/${id}/tracking`;
const on = { enabled: true, sources: ['hackernews', 'bluesky'] };

describe('roles', () => {
  const callers = ['owner', 'manager', 'viewer', 'outsider', 'signed out'] as const;
  // prettier-ignore
  const expected: Record<string, number[]> = {
    //                                   owner manager viewer outsider signed-out
    'GET tracking':                     [200,  200,    200,   404,     401],
    'PUT tracking':                     [200,  200,    403,   404,     401],
    'GET tracking-sources':             [200,  200,    200,   404,     401],
    'GET tracking gaps':                [200,  200,    200,   404,     401],
  };
  describe.each(Object.entries(expected))('%s', (endpoint, statuses) => {
    it.each(callers.map((caller, i) => [caller, statuses[i]!] as const))(
      'as %s → %i',
      async (caller, status) => {
        const team = await createTeam(server);
        const id = await savedQuery(team);
        const person = caller === 'signed out' ? null : team[caller];
        const res = await as(
          server,
          person,
          endpoint === 'GET tracking'
            ? { method: 'GET', url: trackingUrl(team, id) }
            : endpoint === 'PUT tracking'
              ? { method: 'PUT', url: trackingUrl(team, id), payload: on }
              : endpoint === 'GET tracking gaps'
                ? { method: 'GET', url: `${trackingUrl(team, id)}/gaps?from=0&to=1` }
                : { method: 'GET', url: `/api/workspaces/${team.workspaceId}/tracking-sources` },
        );
        expect(res.statusCode, res.body).toBe(status);
        if (status === 403) expect(res.json().error).toBe('forbidden');
      },
    );
  });

  it('a viewer’s refused change leaves tracking as it was', async () => {
    const team = await createTeam(server);
    const id = await savedQuery(team);
    await as(server, team.viewer, { method: 'PUT', url: trackingUrl(team, id), payload: on });
    const res = await as(server, team.owner, { method: 'GET', url: trackingUrl(team, id) });
    expect(res.json<TrackingResponse>()).toMatchObject({ enabled: false, sources: [], coverage: [] });
  });

  it('answers 404 for a saved query of another workspace', async () => {
    const [team, other] = [await createTeam(server), await createTeam(server)];
    const id = await savedQuery(other);
    const res = await as(server, team.owner, { method: 'PUT', url: trackingUrl(team, id), payload: on });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('saved_query_not_found');
  });
});

describe('validation', () => {
  it.each([
    ['on without sources', { enabled: true, sources: [] }, 'invalid_request'],
    ['a source twice', { enabled: true, sources: ['hackernews', 'hackernews'] }, 'invalid_request'],
    ['an unknown field', { enabled: true, sources: ['hackernews'], extra: 1 }, 'invalid_request'],
    ['no enabled', { sources: ['hackernews'] }, 'invalid_request'],
    ['a source not set up', { enabled: true, sources: ['hackernews', 'myspace'] }, 'unknown_source'],
    ['credentials nobody stored', { enabled: true, sources: ['youtube'] }, 'unknown_source'],
  ])('refuses %s with 400', async (_name, payload, code) => {
    const team = await createTeam(server);
    const id = await savedQuery(team);
    const res = await as(server, team.manager, { method: 'PUT', url: trackingUrl(team, id), payload });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error).toBe(code);
    if (code === 'unknown_source') expect(res.json().message).toMatch(/not a source set up/);
    const after = await as(server, team.owner, { method: 'GET', url: trackingUrl(team, id) });
    expect(after.json<TrackingResponse>().enabled).toBe(false);
  });
});

describe('sources', () => {
  it('lists what the installation set up, credentials never', async () => {
    const team = await createTeam(server);
    await server.pool.query(
      `INSERT INTO source_credentials (kind, name, secret, key_id) VALUES ('reddit', 'Staff-only reddit app', $1, 'k')`,
      [Buffer.from('sealed-secret-bytes')],
    );
    await server.pool.query(
      `INSERT INTO scrape_jobs (name, source, params) VALUES ('tag', 'mastodon_hashtag',
         '{"source":"mastodon_hashtag","instance":"https://mastodon.example","hashtag":"coffee","max_pages":1}')`,
    );
    const res = await as(server, team.viewer, {
      method: 'GET',
      url: `/api/workspaces/${team.workspaceId}/tracking-sources`,
    });
    const { sources } = res.json<TrackingSourcesResponse>();
    expect(sources.map((s) => s.key)).toEqual(
      expect.arrayContaining(['bluesky', 'hackernews', 'reddit', 'mastodon:https://mastodon.example']),
    );
    expect(sources.map((s) => s.key)).not.toContain('youtube');
    expect(sources.find((s) => s.key === 'mastodon:https://mastodon.example')?.label).toBe(
      'Mastodon (mastodon.example)',
    );
    for (const source of sources) expect(source.reaches_back.length).toBeGreaterThan(10);
    expect(res.body).not.toMatch(/Staff-only|sealed|credential_id|secret/);
  });
});

describe('tracking', () => {
  it('turns on with its sources, each with a coverage record, and off keeping them', async () => {
    const team = await createTeam(server);
    const id = await savedQuery(team);
    const put = await as(server, team.manager, { method: 'PUT', url: trackingUrl(team, id), payload: on });
    const body = put.json<TrackingResponse>();
    expect(body).toMatchObject({ saved_query_id: id, enabled: true, sources: ['hackernews', 'bluesky'] });
    expect(body.tracking_since).toBeGreaterThan(Date.now() / 1000 - 60);
    expect(body.limits).toEqual({
      plan: 'Trial',
      tracked_queries: { used: 1, limit: 5 },
      posts_collected_per_month: { used: 0, limit: 50_000 },
    });
    expect(body.coverage.map((c) => [c.source, c.label, c.posts_today, c.gap?.reason ?? null])).toEqual([
      ['hackernews', 'Hacker News', 0, null],
      // No Bluesky stream runs here (only the backfill would): said, not left to look quiet.
      ['bluesky', 'Bluesky', 0, 'not_collected'],
    ]);
    expect(body.coverage[1]!.gap).toMatchObject({
      message: expect.stringMatching(/does not collect from Bluesky/),
    });
    const narrowed = await as(server, team.owner, {
      method: 'PUT',
      url: trackingUrl(team, id),
      payload: { enabled: true, sources: ['bluesky'] },
    });
    expect(narrowed.json<TrackingResponse>().coverage.map((c) => c.source)).toEqual(['bluesky']);
    expect(narrowed.json<TrackingResponse>().tracking_since).toBe(body.tracking_since);
    const off = await as(server, team.owner, {
      method: 'PUT',
      url: trackingUrl(team, id),
      payload: { enabled: false, sources: ['bluesky'] },
    });
    expect(off.json<TrackingResponse>()).toMatchObject({ enabled: false, sources: ['bluesky'] });
  });

  it('refuses one tracked query more than the plan allows, and lets one that is on change its sources', async () => {
    const team = await createTeam(server);
    const ids = [];
    for (let i = 0; i < 6; i += 1) ids.push(await savedQuery(team, `word${i}`));
    for (const id of ids.slice(0, 5)) {
      const res = await as(server, team.manager, { method: 'PUT', url: trackingUrl(team, id), payload: on });
      expect(res.statusCode, res.body).toBe(200);
    }
    const sixth = await as(server, team.manager, {
      method: 'PUT',
      url: trackingUrl(team, ids[5]!),
      payload: on,
    });
    expect(sixth.statusCode).toBe(409);
    expect(sixth.json()).toMatchObject({
      error: 'tracked_query_limit',
      message:
        "This workspace has reached its Trial plan's limit of 5 tracked queries. An owner can upgrade the plan in " +
        'Settings › Plan.',
    });
    const again = await as(server, team.owner, {
      method: 'PUT',
      url: trackingUrl(team, ids[0]!),
      payload: { enabled: true, sources: ['hackernews'] },
    });
    expect(again.statusCode, again.body).toBe(200);
    // Off and on again elsewhere: the count follows.
    await as(server, team.owner, {
      method: 'PUT',
      url: trackingUrl(team, ids[1]!),
      payload: { ...on, enabled: false },
    });
    expect(
      (await as(server, team.owner, { method: 'PUT', url: trackingUrl(team, ids[5]!), payload: on }))
        .statusCode,
    ).toBe(200);
  });

  it('says a streamed source is collected while its stream commits, and silent since its last commit', async () => {
    const team = await createTeam(server);
    const id = await savedQuery(team);
    await as(server, team.owner, { method: 'PUT', url: trackingUrl(team, id), payload: on });
    const bluesky = async () =>
      (await as(server, team.viewer, { method: 'GET', url: trackingUrl(team, id) }))
        .json<TrackingResponse>()
        .coverage.find((c) => c.source === 'bluesky')!.gap;
    try {
      await server.pool.query(
        `INSERT INTO stream_cursors (name, cursor_us, updated_at) VALUES ('bluesky-jetstream', 1, now())`,
      );
      expect(await bluesky()).toBeNull();
      await server.pool.query(
        `UPDATE stream_cursors SET updated_at = now() + interval '1 minute' - interval '1 hour'`,
      );
      const gap = await bluesky();
      expect(gap).toMatchObject({ reason: 'unreachable', until: null });
      expect(gap!.message).toMatch(/^The Bluesky stream has been silent since \d\d:\d\d UTC\.$/);
    } finally {
      await server.pool.query('DELETE FROM stream_cursors');
    }
  });

  it('stays on when the saved query’s text is edited, and follows the new text', async () => {
    const team = await createTeam(server);
    const id = await savedQuery(team, 'coffee');
    await as(server, team.owner, { method: 'PUT', url: trackingUrl(team, id), payload: on });
    const edit = await as(server, team.manager, {
      method: 'PATCH',
      url: `${base(team)}/${id}`,
      payload: { query: 'espresso AND NOT decaf', name: 'Renamed' },
    });
    expect(edit.statusCode, edit.body).toBe(200);
    const res = await as(server, team.viewer, { method: 'GET', url: trackingUrl(team, id) });
    expect(res.json<TrackingResponse>()).toMatchObject({ enabled: true, sources: ['hackernews', 'bluesky'] });
    const tracked = await trackedQueriesFor(server.pool as unknown as pg.Pool, 'hackernews');
    expect(tracked.find((q) => q.savedQueryId === id)).toEqual({
      savedQueryId: id,
      workspaceId: team.workspaceId,
      text: 'espresso AND NOT decaf',
      // It names no list: none read.
      lists: new Map(),
    });
  });

  it('goes with its saved query', async () => {
    const team = await createTeam(server);
    const id = await savedQuery(team);
    await as(server, team.owner, { method: 'PUT', url: trackingUrl(team, id), payload: on });
    await as(server, team.owner, { method: 'DELETE', url: `${base(team)}/${id}` });
    const { rows } = await server.pool.query('SELECT 1 FROM tracking_coverage WHERE saved_query_id = $1', [
      id,
    ]);
    expect(rows).toHaveLength(0);
  });
});

describe('gaps over a span', () => {
  const hour = (h: number) => new Date(Date.UTC(2026, 10, 20, h));
  const unix = (date: Date) => date.getTime() / 1000;

  it('are the open gap and the ended ones that overlap it, the latest first; none when tracking is off', async () => {
    const team = await createTeam(server);
    const id = await savedQuery(team);
    const gapsOf = async (from: Date, to: Date) => {
      const res = await as(server, team.viewer, {
        method: 'GET',
        url: `${trackingUrl(team, id)}/gaps?from=${unix(from)}&to=${unix(to)}`,
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<TrackingGapsResponse>().gaps;
    };
    expect(await gapsOf(hour(0), hour(24))).toEqual([]);
    await as(server, team.owner, { method: 'PUT', url: trackingUrl(team, id), payload: on });
    await server.pool.query(
      `UPDATE tracking_coverage SET gap_reason = 'rate_limited', gap_message = 'Slow down.', gap_since = $2,
         gap_until = $3 WHERE saved_query_id = $1 AND source = 'hackernews'`,
      [id, hour(20), hour(21)],
    );
    const ended = [
      [hour(2), hour(3), 'Early.'],
      [hour(10), hour(12), 'Midday.'],
      [new Date(Date.UTC(2026, 10, 10)), new Date(Date.UTC(2026, 10, 11)), 'Long before.'],
    ] as const;
    for (const [since, until, message] of ended)
      await server.pool.query(
        `INSERT INTO tracking_gaps (saved_query_id, source, reason, message, since, ended_at)
         VALUES ($1, 'hackernews', 'unreachable', $2, $3, $4)`,
        [id, message, since, until],
      );
    expect(await gapsOf(hour(0), hour(24))).toEqual([
      {
        source: 'hackernews',
        label: 'Hacker News',
        reason: 'rate_limited',
        message: 'Slow down.',
        since: unix(hour(20)),
        until: unix(hour(21)),
        ended: false,
      },
      ...[ended[1], ended[0]].map(([since, until, message]) => ({
        source: 'hackernews',
        label: 'Hacker News',
        reason: 'unreachable',
        message,
        since: unix(since),
        until: unix(until),
        ended: true,
      })),
    ]);
    // A span that ends before the open gap and starts after the first ended one.
    expect((await gapsOf(hour(3), hour(11))).map((gap) => gap.message)).toEqual(['Midday.']);
    await as(server, team.owner, {
      method: 'PUT',
      url: trackingUrl(team, id),
      payload: { enabled: false, sources: on.sources },
    });
    expect(await gapsOf(hour(0), hour(24))).toEqual([]);
  });

  it('refuses a span that does not end after it starts', async () => {
    const team = await createTeam(server);
    const id = await savedQuery(team);
    const res = await as(server, team.owner, {
      method: 'GET',
      url: `${trackingUrl(team, id)}/gaps?from=5&to=5`,
    });
    expect(res.statusCode).toBe(400);
  });
});

describe('the OpenAPI document', () => {
  it('documents the tracking routes with their bodies and answers', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/api/docs/json' });
    const paths = res.json<{
      paths: Record<string, Record<string, { responses: object; requestBody?: object }>>;
    }>().paths;
    const tracking = paths['/api/workspaces/{id}/saved-queries/{queryId}/tracking']!;
    expect(Object.keys(tracking).sort()).toEqual(['get', 'put']);
    expect(tracking.put!.requestBody).toBeDefined();
    expect(Object.keys(tracking.put!.responses)).toEqual(
      expect.arrayContaining(['200', '400', '403', '404']),
    );
    expect(paths['/api/workspaces/{id}/tracking-sources']?.get).toBeDefined();
    expect(paths['/api/workspaces/{id}/saved-queries/{queryId}/tracking/gaps']?.get).toBeDefined();
  });
});
