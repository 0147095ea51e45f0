// POST /social/discover: who may search, and what is refused (queries that do not parse, cursors that are not ours or
// belong to another search, limits). The store's time limit (503 search_timeout): analytics/discover-source.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CURSOR_RANGE_CONFLICT } from '@server/social/cursor-range';
import type { DiscoverResponse } from '@contract/discover';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, type Person, type Team } from '@test/support/workspaces.fixtures';
import { buildPosts, insertDiscoverCorpus } from '@test/support/discover.fixtures';

let server: TestServer;
let team: Team;
beforeAll(async () => {
  server = await createTestServer();
  team = await createTeam(server);
  await insertDiscoverCorpus(server, buildPosts(30));
});
afterAll(() => server.close());

const WHOLE = { from: '2026-02-28T00:00:00Z', to: '2026-03-03T00:00:00Z' };

const discover = (person: Person | null, body: Record<string, unknown>, t: Team = team) =>
  as(server, person, {
    method: 'POST',
    url: '/social/discover',
    payload: { workspace_id: t.workspaceId, query: 'coffee OR tea', filters: WHOLE, ...body },
  });

describe('who may search', () => {
  // prettier-ignore
  const table = [
    //  caller        status
    ['owner',        200],
    ['manager',      200],
    ['viewer',       200],
    ['outsider',     404],
    ['signed out',   401],
  ] as const;

  it.each(table)('as %s → %i', async (caller, status) => {
    const t = await createTeam(server);
    const res = await discover(caller === 'signed out' ? null : t[caller], {}, t);
    expect(res.statusCode, res.body).toBe(status);
    if (status >= 400)
      expect(res.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });
  });

  it('answers a non-member the same for a workspace that exists and one that does not', async () => {
    const hidden = await discover(team.outsider, {});
    const missing = await as(server, team.outsider, {
      method: 'POST',
      url: '/social/discover',
      payload: { workspace_id: 'no-such-workspace', query: 'coffee' },
    });
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json()).toEqual(missing.json());
  });

  it('tells a non-member nothing about their query', async () => {
    expect((await discover(team.outsider, { query: '((' })).statusCode).toBe(404);
  });
});

describe('queries and requests', () => {
  it('refuses a query that does not parse with 400 and each error at its column', async () => {
    const res = await discover(team.viewer, { query: 'coffee AND (tea' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'invalid_query',
      message: expect.any(String),
      errors: [expect.objectContaining({ column: 12, length: expect.any(Number) })],
    });
    const empty = await discover(team.viewer, { query: '   ' });
    expect(empty.json()).toMatchObject({ error: 'invalid_query', errors: [{ column: expect.any(Number) }] });
  });

  it.each([
    ['a limit over 100', { limit: 101 }],
    ['a huge limit', { limit: 1_000_000 }],
    ['a limit of 0', { limit: 0 }],
    ['a fractional limit', { limit: 2.5 }],
    ['an unknown sort', { sort: 'random' }],
    ['an unknown filter', { filters: { ...WHOLE, sentiment: 'positive' } }],
    ['an unknown field', { offset: 50 }],
    ['an unknown platform', { filters: { platforms: ['myspace'] } }],
  ])('refuses %s with 400', async (_, body) => {
    const res = await discover(team.viewer, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('invalid_request');
  });

  it('refuses an absurd date range with 400', async () => {
    const res = await discover(team.viewer, {
      filters: { from: '2020-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('invalid_range');
  });
});

describe('cursors', () => {
  async function firstCursor(body: Record<string, unknown> = {}) {
    const res = await discover(team.viewer, { limit: 2, ...body });
    const page = res.json<DiscoverResponse>();
    expect(page.next_cursor).toEqual(expect.any(String));
    return page.next_cursor!;
  }
  // A cursor is base64url JSON and its seal after a dot (server/social/cursor-seal.ts); edits keep the old seal.
  let seal = '';
  const decode = (cursor: string) => {
    seal = cursor.split('.')[1] ?? '';
    return JSON.parse(Buffer.from(cursor.split('.')[0]!, 'base64url').toString());
  };
  const encode = (value: unknown) => `${Buffer.from(JSON.stringify(value)).toString('base64url')}.${seal}`;

  it('are opaque base64url text that leads to the next page', async () => {
    const cursor = await firstCursor();
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    const next = await discover(team.viewer, { limit: 2, cursor });
    expect(next.statusCode).toBe(200);
  });

  it.each([
    ['garbage', () => 'not a cursor!'],
    ['base64 of something else', () => encode({ hello: 'world' })],
    ['truncated', (c: string) => c.slice(0, c.length - 5)],
    ['a key of the wrong type', (c: string) => encode({ ...decode(c), k: 12 })],
    ['a key that is not a time', (c: string) => encode({ ...decode(c), k: '2026-13-45T99:00:00.000000Z' })],
    ['SQL in the key', (c: string) => encode({ ...decode(c), k: "2026-01-01'; DROP TABLE posts; --" })],
    ['an id that is not a whole number', (c: string) => encode({ ...decode(c), id: '1 OR 1=1' })],
    ['an extra field', (c: string) => encode({ ...decode(c), offset: 10 })],
    ['another fingerprint', (c: string) => encode({ ...decode(c), h: 'A'.repeat(22) })],
  ])('refuses a cursor that is %s with 400 invalid_cursor', async (_, tamper) => {
    const res = await discover(team.viewer, { limit: 2, cursor: tamper(await firstCursor()) });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('invalid_cursor');
  });

  it('refuses a cursor longer than any of ours with 400', async () => {
    const res = await discover(team.viewer, { cursor: 'a'.repeat(600) });
    expect(res.statusCode).toBe(400);
  });

  it.each([
    ['another query', { query: 'coffee' }],
    ['another sort', { sort: 'engagement' }],
    ['other filters', { filters: { ...WHOLE, languages: ['en'] } }],
  ])('refuses a cursor from a search with %s', async (_, change) => {
    const cursor = await firstCursor();
    const res = await discover(team.viewer, { limit: 2, cursor, ...change });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('invalid_cursor');
  });

  it.each([
    ['another start', { filters: { ...WHOLE, from: '2026-02-27T00:00:00Z' } }],
    ['another end', { filters: { ...WHOLE, to: '2026-03-02T00:00:00Z' } }],
    ['no range', { filters: {} }],
  ])('refuses a cursor with %s, naming the range', async (_, change) => {
    const cursor = await firstCursor();
    const res = await discover(team.viewer, { limit: 2, cursor, ...change });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'invalid_cursor', message: CURSOR_RANGE_CONFLICT });
  });

  it('accept the same search written another way (the canonical query is what counts)', async () => {
    const cursor = await firstCursor({ query: 'coffee OR tea' });
    const res = await discover(team.viewer, { limit: 2, cursor, query: '  coffee   OR tea ' });
    expect(res.statusCode).toBe(200);
  });
});
