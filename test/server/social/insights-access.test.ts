// Who may read the dashboards and their CSV exports (any member; others get a 404 that reveals nothing; signed out a
// 401), and what is refused with a 400 and a clear message: unknown refinements and values, bad buckets, absurd
// ranges, queries that do not parse, cursors from another list, saved queries of another workspace.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOnly } from '@server/social/insights/transactions';
import type { PostsResponse } from '@contract/insights-responses';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, type Person, type Team } from '@test/support/workspaces.fixtures';
import { insertCorpus, insertSavedQuery } from '@test/support/insights.fixtures';

let server: TestServer;
let team: Team;
beforeAll(async () => {
  server = await createTestServer();
  team = await createTeam(server);
  await insertCorpus(server);
});
afterAll(() => server.close());

const ENDPOINTS = [
  'overview',
  'posts',
  'people',
  'performance',
  'conversation',
  'filtered-posts',
  'filtered-profiles',
  'drivers',
  'themes',
];
/** The CSV exports of the drill-down lists (their files: insights-export.test.ts). */
const EXPORTS = ['export/posts', 'export/profiles'];
const RANGE = { from: '2026-10-25T04:00:00Z', to: '2026-11-08T05:00:00Z' };

const call = (person: Person | null, url: string, body: Record<string, unknown>, t: Team = team) =>
  as(server, person, {
    method: 'POST',
    url: `/social/insights/${url}`,
    payload: { workspace_id: t.workspaceId, query: 'coffee', filters: RANGE, ...body },
  });

describe('who may read', () => {
  it.each([...ENDPOINTS, ...EXPORTS])('%s: members 200, outsiders 404, signed out 401', async (url) => {
    for (const person of [team.owner, team.manager, team.viewer]) {
      const res = await call(person, url, {});
      expect(res.statusCode, res.body).toBe(200);
      if (EXPORTS.includes(url)) {
        expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
        expect(res.body).toMatch(/^# Murmur export: \w+\r\n# Workspace time zone: UTC\r\n/);
        continue;
      }
      expect(res.json()).toMatchObject({
        time_zone: 'UTC',
        range: { from: expect.any(String) },
        counted: expect.any(String),
      });
    }
    const outsider = await call(team.outsider, url, {});
    expect(outsider.statusCode).toBe(404);
    const missing = await call(team.viewer, url, { workspace_id: 'no-such-workspace' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual(outsider.json());
    const signedOut = await call(null, url, { refine: 'not even valid' });
    expect(signedOut.statusCode).toBe(401);
  });

  it("refuses another workspace's saved query as not found", async () => {
    const other = await createTeam(server);
    const id = await insertSavedQuery(server, other.workspaceId, 'coffee');
    const res = await call(team.viewer, 'overview', { query: undefined, saved_query_id: id });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error: 'not_found' });
  });
});

describe('an empty scope', () => {
  it.each(ENDPOINTS)('%s answers zeros and empty lists', async (url) => {
    const res = await call(team.viewer, url, { query: 'zzzunmatched' });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<Record<string, unknown>>();
    const expected: Record<string, unknown> = {
      overview: {
        totals: { mentions: { value: 0, previous: 0, change_pct: null } },
        top_posts: [],
        platforms: [],
      },
      posts: { total: 0, posts: [], next_cursor: null },
      people: { unique_authors: 0, average_mentions_per_author: null, by_mentions: [] },
      performance: { totals: { posts: 0, engagement: 0, average_engagement: null, engagement_rate: null } },
      conversation: { hashtags: [], terms: [], emerging: [] },
      'filtered-posts': { total: 0, posts: [] },
      'filtered-profiles': { total: 0, profiles: [] },
      drivers: { posts: { window: 0, baseline: 0, expected: 0, excess: 0 }, drivers: [], top_posts: [] },
      themes: { posts: 0, words: 0, edges: 0, themes: [] },
    };
    expect(body).toMatchObject(expected[url]!);
  });
});

describe('bad input is a 400 with a clear message', () => {
  const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
    [
      'an unknown refine field',
      { refine: [{ field: 'colour', values: ['red'] }] },
      'invalid_request',
      /Unknown refine field: use one of date, platform/,
    ],
    [
      'an unknown platform',
      { refine: [{ field: 'platform', values: ['myspace'] }] },
      'invalid_request',
      /platform must be one of x, instagram/,
    ],
    [
      'an unknown sentiment',
      { refine: [{ field: 'sentiment', values: ['angry'] }] },
      'invalid_request',
      /sentiment must be one of positive/,
    ],
    [
      'an unknown key',
      { refine: [{ field: 'kind', values: ['reply'], value: 'x' }] },
      'invalid_request',
      /Unknown key "value"/,
    ],
    ['no values', { refine: [{ field: 'kind', values: [] }] }, 'invalid_request', /at least one value/],
    [
      'a bad bucket',
      { refine: [{ field: 'date', bucket: 'month', values: ['2026-11-01T00:00:00Z'] }] },
      'invalid_request',
      /bucket must be one of hour, day, week/,
    ],
    [
      'a start that is not a date',
      { refine: [{ field: 'date', bucket: 'day', values: ['yesterday'] }] },
      'invalid_request',
      /ISO 8601/,
    ],
    [
      'a start that is not a bucket start',
      { refine: [{ field: 'date', bucket: 'day', values: ['2026-11-03T05:00:00Z'] }] },
      'invalid_refine',
      /is not the start of a day in UTC/,
    ],
    [
      'a week that does not start on Monday',
      { refine: [{ field: 'date', bucket: 'week', values: ['2026-11-03T00:00:00Z'] }] },
      'invalid_refine',
      /weeks start on Monday/,
    ],
    [
      'an empty follower range',
      { refine: [{ field: 'followers', values: [{}] }] },
      'invalid_refine',
      /needs min, max or both/,
    ],
    [
      'a reversed follower range',
      { refine: [{ field: 'followers', values: [{ min: 10, max: 5 }] }] },
      'invalid_refine',
      /min < max/,
    ],
    [
      'an author that is neither id nor handle',
      { refine: [{ field: 'author', values: [1.5] }] },
      'invalid_request',
      /profile id/,
    ],
    [
      'a day of the week past Sunday',
      { refine: [{ field: 'hour_of_week', values: [{ day: 8, hour: 9 }] }] },
      'invalid_request',
      /day is a whole number from 1 \(Monday\) to 7 \(Sunday\)/,
    ],
    [
      'an hour past 23',
      { refine: [{ field: 'hour_of_week', values: [{ day: 1, hour: 24 }] }] },
      'invalid_request',
      /hour is a whole number from 0 to 23/,
    ],
    [
      'an hour that is not whole',
      { refine: [{ field: 'hour_of_week', values: [{ day: 1, hour: 9.5 }] }] },
      'invalid_request',
      /hour is a whole number from 0 to 23/,
    ],
    [
      'an hour of the week without its hour',
      { refine: [{ field: 'hour_of_week', values: [{ day: 1 }] }] },
      'invalid_request',
      /hour is a whole number from 0 to 23/,
    ],
    [
      'an hour of the week with an unknown key',
      { refine: [{ field: 'hour_of_week', values: [{ day: 1, hour: 9, minute: 30 }] }] },
      'invalid_request',
      /An hour of the week is \{"day": 1–7 \(1 = Monday\), "hour": 0–23\}/,
    ],
    [
      'an hour of the week as text',
      { refine: [{ field: 'hour_of_week', values: ['Monday 9'] }] },
      'invalid_request',
      /An hour of the week is/,
    ],
    [
      'too many hours of the week',
      {
        refine: [
          {
            field: 'hour_of_week',
            values: Array.from({ length: 51 }, (_, i) => ({ day: 1 + (i % 7), hour: i % 24 })),
          },
        ],
      },
      'invalid_request',
      /at most 50 values/,
    ],
    [
      'a start after the end',
      { filters: { from: '2026-11-08T00:00:00Z', to: '2026-11-01T00:00:00Z' } },
      'invalid_range',
      /before its end/,
    ],
    [
      'an absurd range',
      { filters: { from: '2020-01-01T00:00:00Z', to: '2026-11-01T00:00:00Z' } },
      'invalid_range',
      /at most 400 days/,
    ],
    ['a query that does not parse', { query: 'coffee AND (' }, 'invalid_query', /The query is not valid/],
    [
      'both a saved query and a query',
      { saved_query_id: '00000000-0000-4000-8000-000000000000' },
      'invalid_request',
      /either saved_query_id or query/,
    ],
    [
      'neither a saved query nor a query',
      { query: undefined },
      'invalid_request',
      /either saved_query_id or query/,
    ],
  ];

  it.each(cases)('%s', async (_name, body, error, message) => {
    const res = await call(team.viewer, 'overview', body);
    expect(res.statusCode, res.body).toBe(400);
    const json = res.json<{ error: string; message: string; fields?: Array<{ message: string }> }>();
    expect(json.error).toBe(error);
    expect([json.message, ...(json.fields ?? []).map((f) => f.message)].join(' | ')).toMatch(message);
  });

  it('lists the parser errors with their columns', async () => {
    const res = await call(team.viewer, 'posts', { query: 'coffee AND (' });
    expect(res.json()).toMatchObject({ error: 'invalid_query', errors: [{ column: expect.any(Number) }] });
  });

  it("caps the drivers' limit", async () => {
    const res = await call(team.viewer, 'drivers', { limit: 31 });
    expect(res.statusCode).toBe(400);
  });

  it("caps the themes' limit", async () => {
    const res = await call(team.viewer, 'themes', { limit: 21 });
    expect(res.statusCode).toBe(400);
  });

  it('caps the page size', async () => {
    const res = await call(team.viewer, 'posts', { limit: 101 });
    expect(res.statusCode).toBe(400);
  });

  it('refuses a cursor that is not ours, or that belongs to another list', async () => {
    const first = await call(team.viewer, 'posts', { query: '', sort: 'engagement', limit: 2 });
    const cursor = first.json<PostsResponse>().next_cursor!;
    expect(cursor).toEqual(expect.any(String));
    for (const body of [
      { cursor: 'garbage', query: '' },
      { cursor, query: '', sort: 'recency' },
      { cursor, query: 'tea', sort: 'engagement' },
      { cursor, query: '', sort: 'engagement', refine: [{ field: 'kind', values: ['reply'] }] },
      { cursor: Buffer.from('{"key":"1","ties":[1]}').toString('base64url'), query: '' },
    ]) {
      const res = await call(team.viewer, 'posts', { limit: 2, ...body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_cursor' });
    }
    const profiles = await call(team.viewer, 'filtered-profiles', { query: '', cursor });
    expect(profiles.statusCode).toBe(400);
  });
});

describe('the statement guard', () => {
  it('runs read-only and cancels a statement past its timeout with a 503', async () => {
    await expect(
      readOnly(server.db, (tx) => tx.execute(sql`CREATE TABLE nope (id int)`), { timeZone: 'UTC' }),
    ).rejects.toThrow();
    await expect(
      readOnly(server.db, (tx) => tx.execute(sql`SELECT pg_sleep(2)`), { timeZone: 'UTC', timeoutMs: 100 }),
    ).rejects.toMatchObject({
      statusCode: 503,
      code: 'insights_timeout',
    });
    const settings = await readOnly(
      server.db,
      async (tx) => {
        const result = await tx.execute<{ timeout: string; readonly: string; zone: string }>(
          sql`SELECT current_setting('statement_timeout') AS timeout, current_setting('transaction_read_only') AS readonly,
            current_setting('TimeZone') AS zone`,
        );
        return result.rows[0];
      },
      { timeZone: 'Asia/Kathmandu' },
    );
    expect(settings).toEqual({ timeout: '10s', readonly: 'on', zone: 'Asia/Kathmandu' });
    // The zone is the transaction's alone: the connection goes back to the pool in UTC.
    const after = await server.db.execute<{ zone: string }>(sql`SELECT current_setting('TimeZone') AS zone`);
    expect(after.rows[0]!.zone).not.toBe('Asia/Kathmandu');
  });
});

describe('the per-account limit', () => {
  it('answers 429 past SOCIAL_RATE_LIMIT_PER_MINUTE, one budget for the dashboards and one for discover', async () => {
    const limited = await createTestServer({ SOCIAL_RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const crew = await createTeam(limited);
      const post = (person: Person, url: string) =>
        as(limited, person, {
          method: 'POST',
          url,
          payload: { workspace_id: crew.workspaceId, query: 'coffee', filters: RANGE },
        });
      const statuses = [];
      for (const url of ['overview', 'posts', 'people', 'conversation']) {
        statuses.push((await post(crew.viewer, `/social/insights/${url}`)).statusCode);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      // The exports spend the same budget.
      const exported = await post(crew.viewer, '/social/insights/export/posts');
      expect(exported.statusCode).toBe(429);
      expect(exported.json()).toMatchObject({ error: 'rate_limited' });
      const refused = await post(crew.viewer, '/social/insights/overview');
      expect(refused.json()).toMatchObject({
        error: 'rate_limited',
        message: expect.stringMatching(/^Too many/),
      });
      // Discover has its own budget, and another account is not affected.
      expect((await post(crew.viewer, '/social/discover')).statusCode).toBe(200);
      expect((await post(crew.owner, '/social/insights/overview')).statusCode).toBe(200);
      const doc = (await limited.app.inject({ method: 'GET', url: '/api/docs/json' })).json();
      expect(Object.keys(doc.paths['/social/insights/overview'].post.responses)).toContain('429');
      expect(Object.keys(doc.paths['/social/discover'].post.responses)).toContain('429');
    } finally {
      await limited.close();
    }
  });
});
