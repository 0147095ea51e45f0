// Saved queries: create, read, list, update, delete; what is refused (queries that do not parse, bad filters, unknown
// keys, names) and the per-workspace unique name.
import * as z from 'zod/mini';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  savedQueryListResponseSchema,
  savedQueryResponseSchema,
  type SavedQuery,
} from '@contract/saved-queries';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, type Team } from '@test/support/workspaces.fixtures';

let server: TestServer;
let team: Team;
beforeAll(async () => {
  server = await createTestServer();
  team = await createTeam(server);
});
afterAll(() => server.close());

const base = (t: Team = team) => `/api/workspaces/${t.workspaceId}/saved-queries`;
const create = (payload: object, t: Team = team) =>
  as(server, t.owner, { method: 'POST', url: base(t), payload });

describe('saved queries', () => {
  it('creates a query, stores the text as typed and answers its canonical text', async () => {
    const t = await createTeam(server);
    const res = await create(
      { name: '  Coffee talk  ', query: 'coffee tea OR Platform:Instagram', filters: { languages: ['en'] } },
      t,
    );
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json<SavedQuery>();
    expect(z.safeParse(savedQueryResponseSchema, body).success).toBe(true);
    expect(body).toMatchObject({
      workspace_id: t.workspaceId,
      name: 'Coffee talk',
      query: 'coffee tea OR Platform:Instagram',
      normalized: 'coffee AND tea OR platform:instagram',
      filters: { languages: ['en'] },
      created_by: t.owner.id,
    });
    expect(body.updated_at).toBe(body.created_at);

    const one = await as(server, t.viewer, { method: 'GET', url: `${base(t)}/${body.id}` });
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual(body);
  });

  it('lists newest first with usage against the limit', async () => {
    const t = await createTeam(server);
    const empty = await as(server, t.viewer, { method: 'GET', url: base(t) });
    expect(empty.json()).toEqual({ saved_queries: [], usage: { count: 0, limit: 25 } });
    for (const name of ['first', 'second', 'third']) {
      expect((await create({ name, query: name }, t)).statusCode).toBe(201);
    }
    const res = await as(server, t.viewer, { method: 'GET', url: base(t) });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(z.safeParse(savedQueryListResponseSchema, body).success).toBe(true);
    expect(body.saved_queries.map((q: SavedQuery) => q.name)).toEqual(['third', 'second', 'first']);
    expect(body.usage).toEqual({ count: 3, limit: 25 });
    expect(body.saved_queries[0].filters).toEqual({});
  });

  it('updates any of name, query and filters, and only what is given', async () => {
    const t = await createTeam(server);
    const created = (await create({ name: 'Old', query: 'coffee', filters: { platforms: ['x'] } }, t)).json();
    const url = `${base(t)}/${created.id}`;
    const renamed = await as(server, t.manager, { method: 'PATCH', url, payload: { name: 'New' } });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json()).toMatchObject({ name: 'New', query: 'coffee', filters: { platforms: ['x'] } });

    const changed = await as(server, t.manager, {
      method: 'PATCH',
      url,
      payload: { query: '#LatteArt  OR  @Brand', filters: { from: '2026-01-01T00:00:00Z' } },
    });
    expect(changed.json()).toMatchObject({
      name: 'New',
      query: '#LatteArt  OR  @Brand',
      normalized: '#latteart OR @brand',
      filters: { from: '2026-01-01T00:00:00Z' },
    });
    const nothing = await as(server, t.manager, { method: 'PATCH', url, payload: {} });
    expect(nothing.json()).toEqual(changed.json());
  });

  it('deletes with 204, after which the query is gone', async () => {
    const t = await createTeam(server);
    const created = (await create({ name: 'Gone', query: 'coffee' }, t)).json();
    const url = `${base(t)}/${created.id}`;
    expect((await as(server, t.owner, { method: 'DELETE', url })).statusCode).toBe(204);
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const res = await as(server, t.owner, { method, url, ...(method === 'PATCH' && { payload: {} }) });
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toBe('saved_query_not_found');
    }
  });

  it("does not reach another workspace's saved query through one's own workspace", async () => {
    const other = await createTeam(server);
    const theirs = (await create({ name: 'Theirs', query: 'coffee' }, other)).json();
    const url = `${base()}/${theirs.id}`;
    expect((await as(server, team.owner, { method: 'GET', url })).statusCode).toBe(404);
    expect((await as(server, team.owner, { method: 'DELETE', url })).statusCode).toBe(404);
    const patched = await as(server, team.owner, { method: 'PATCH', url, payload: { name: 'Mine' } });
    expect(patched.statusCode).toBe(404);
  });
});

describe('validation', () => {
  it('refuses a query that does not parse, with each error at its column', async () => {
    for (const [query, error] of [
      ['(coffee OR tea))', { message: 'Unexpected ")" at column 16', column: 16, length: 1 }],
      ['', { message: 'The query is empty', column: 1, length: 0 }],
      ['coffee AND platform:myspace', expect.objectContaining({ column: 21, length: 7 })],
    ] as const) {
      const res = await create({ name: 'Bad', query });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'invalid_query', message: expect.any(String), errors: [error] });
    }
    const created = (await create({ name: 'Fine', query: 'coffee' })).json();
    const res = await as(server, team.owner, {
      method: 'PATCH',
      url: `${base()}/${created.id}`,
      payload: { query: 'NOT' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_query', errors: [{ column: expect.any(Number) }] });
  });

  it.each([
    ['an unknown platform', { name: 'n', query: 'q', filters: { platforms: ['myspace'] } }],
    ['a malformed language', { name: 'n', query: 'q', filters: { languages: ['English'] } }],
    ['a date that is not ISO 8601', { name: 'n', query: 'q', filters: { from: 'yesterday' } }],
    ['an unknown filter', { name: 'n', query: 'q', filters: { sentiment: 'positive' } }],
    ['an unknown field', { name: 'n', query: 'q', colour: 'red' }],
    ['a blank name', { name: '   ', query: 'q' }],
    ['a name over 100 characters', { name: 'x'.repeat(101), query: 'q' }],
    ['no query', { name: 'n' }],
  ])('refuses %s with 400 invalid_request', async (_, payload) => {
    const res = await create(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_request', fields: expect.any(Array) });
  });

  it('accepts a name of exactly 100 characters after trimming', async () => {
    const res = await create({ name: ` ${'y'.repeat(100)} `, query: 'q' });
    expect(res.statusCode).toBe(201);
  });

  it('refuses a malformed saved query id with 400', async () => {
    const res = await as(server, team.owner, { method: 'GET', url: `${base()}/not-a-uuid` });
    expect(res.statusCode).toBe(400);
  });
});

describe('names', () => {
  it('are unique in a workspace regardless of case, on create and on rename', async () => {
    const t = await createTeam(server);
    expect((await create({ name: 'Brand', query: 'a' }, t)).statusCode).toBe(201);
    const clash = await create({ name: ' bRAND ', query: 'b' }, t);
    expect(clash.statusCode).toBe(409);
    expect(clash.json()).toEqual({ error: 'name_taken', message: expect.stringContaining('bRAND') });

    const other = (await create({ name: 'Other', query: 'c' }, t)).json();
    const url = `${base(t)}/${other.id}`;
    const renamed = await as(server, t.owner, { method: 'PATCH', url, payload: { name: 'BRAND' } });
    expect(renamed.statusCode).toBe(409);
    expect(renamed.json().error).toBe('name_taken');
    // Its own name in another case is not a clash.
    const recased = await as(server, t.owner, { method: 'PATCH', url, payload: { name: 'OTHER' } });
    expect(recased.json().name).toBe('OTHER');
  });

  it('may repeat across workspaces', async () => {
    const [a, b] = await Promise.all([createTeam(server), createTeam(server)]);
    expect((await create({ name: 'Same', query: 'a' }, a)).statusCode).toBe(201);
    expect((await create({ name: 'Same', query: 'a' }, b)).statusCode).toBe(201);
  });

  it('are taken once when two people save the same name at the same moment', async () => {
    const t = await createTeam(server);
    const results = await Promise.all([
      create({ name: 'Race', query: 'a' }, t),
      as(server, t.manager, { method: 'POST', url: base(t), payload: { name: 'race', query: 'b' } }),
    ]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409]);
  });
});
