// Saved queries against every kind of caller, as one table, and the plan's limit, concurrent creates included.
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, type Person, type Team } from '@test/support/workspaces.fixtures';
import { plansFile } from '@test/support/billing.fixtures';

const LIMIT = 5;

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer({ BILLING_PLANS_FILE: plansFile({ saved_queries: LIMIT }) });
});
afterAll(() => server.close());

const callers = ['owner', 'manager', 'viewer', 'outsider', 'signed out'] as const;
type Caller = (typeof callers)[number];
type Expected = [owner: number, manager: number, viewer: number, outsider: number, signedOut: number];

const base = (team: Team) => `/api/workspaces/${team.workspaceId}/saved-queries`;

async function savedQuery(team: Team) {
  const res = await as(server, team.owner, {
    method: 'POST',
    url: base(team),
    payload: { name: 'Existing', query: 'coffee' },
  });
  return `${base(team)}/${res.json<{ id: string }>().id}`;
}

// prettier-ignore
const expected = {
  //                                                owner manager viewer outsider signed-out
  'GET    /workspaces/:id/saved-queries':           [200,  200,    200,   404,     401],
  'GET    /workspaces/:id/saved-queries/:queryId':  [200,  200,    200,   404,     401],
  'POST   /workspaces/:id/saved-queries':           [201,  201,    403,   404,     401],
  'PATCH  /workspaces/:id/saved-queries/:queryId':  [200,  200,    403,   404,     401],
  'DELETE /workspaces/:id/saved-queries/:queryId':  [204,  204,    403,   404,     401],
} satisfies Record<string, Expected>;

type Endpoint = keyof typeof expected;

const requests: Record<Endpoint, (team: Team) => Promise<InjectOptions>> = {
  'GET    /workspaces/:id/saved-queries': async (t) => ({ method: 'GET', url: base(t) }),
  'GET    /workspaces/:id/saved-queries/:queryId': async (t) => ({ method: 'GET', url: await savedQuery(t) }),
  'POST   /workspaces/:id/saved-queries': async (t) => ({
    method: 'POST',
    url: base(t),
    payload: { name: 'New', query: 'tea', filters: { platforms: ['x'] } },
  }),
  'PATCH  /workspaces/:id/saved-queries/:queryId': async (t) => ({
    method: 'PATCH',
    url: await savedQuery(t),
    payload: { name: 'Renamed' },
  }),
  'DELETE /workspaces/:id/saved-queries/:queryId': async (t) => ({
    method: 'DELETE',
    url: await savedQuery(t),
  }),
};

describe.each(Object.entries(expected) as Array<[Endpoint, Expected]>)('%s', (endpoint, statuses) => {
  it.each(callers.map((caller, column) => [caller, statuses[column]!] as [Caller, number]))(
    'as %s → %i',
    async (caller, status) => {
      const team = await createTeam(server);
      const person = caller === 'signed out' ? null : team[caller];
      const res = await as(server, person, await requests[endpoint](team));
      expect(res.statusCode, res.body).toBe(status);
      if (status === 403) expect(res.json().error).toBe('forbidden');
      if (status >= 400) {
        expect(res.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });
      }
    },
  );
});

describe('access', () => {
  it('answers a non-member the same for a workspace that exists and one that does not', async () => {
    const team = await createTeam(server);
    const hidden = await as(server, team.outsider, { method: 'GET', url: base(team) });
    const missing = await as(server, team.outsider, {
      method: 'GET',
      url: '/api/workspaces/no-such-workspace/saved-queries',
    });
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json()).toEqual(missing.json());
  });

  it('tells a signed-out caller nothing about their body', async () => {
    const team = await createTeam(server);
    const res = await as(server, null, { method: 'POST', url: base(team), payload: { name: '' } });
    expect(res.statusCode).toBe(401);
  });

  it('refuses a viewer before looking at the query', async () => {
    const team = await createTeam(server);
    const res = await as(server, team.viewer, {
      method: 'POST',
      url: base(team),
      payload: { name: 'x', query: '((' },
    });
    expect(res.statusCode).toBe(403);
  });
});

const post = (team: Team, person: Person, name: string) =>
  as(server, person, { method: 'POST', url: base(team), payload: { name, query: 'coffee' } });

describe(`the plan's limit (${LIMIT} here)`, () => {
  it('is shown as usage and refused with 409 once reached; deleting frees a place', async () => {
    const team = await createTeam(server);
    for (let i = 1; i <= LIMIT; i += 1) expect((await post(team, team.owner, `q${i}`)).statusCode).toBe(201);
    const list = await as(server, team.viewer, { method: 'GET', url: base(team) });
    expect(list.json().usage).toEqual({ count: LIMIT, limit: LIMIT });

    const over = await post(team, team.manager, 'one too many');
    expect(over.statusCode).toBe(409);
    expect(over.json()).toEqual({
      error: 'saved_query_limit',
      message:
        `This workspace has reached its Trial plan's limit of ${LIMIT} saved queries. ` +
        'An owner can upgrade the plan in Settings › Plan.',
    });

    const [first] = list.json().saved_queries;
    await as(server, team.owner, { method: 'DELETE', url: `${base(team)}/${first.id}` });
    expect((await post(team, team.owner, 'fits again')).statusCode).toBe(201);
  });

  it('lets exactly the limit through when many creates race', async () => {
    const team = await createTeam(server);
    expect((await post(team, team.owner, 'before')).statusCode).toBe(201);
    const people = [team.owner, team.manager];
    const results = await Promise.all(
      Array.from({ length: LIMIT + 3 }, (_, i) => post(team, people[i % 2]!, `race ${i}`)),
    );
    const statuses = results.map((res) => res.statusCode);
    expect(statuses.filter((s) => s === 201)).toHaveLength(LIMIT - 1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(4);
    const list = await as(server, team.owner, { method: 'GET', url: base(team) });
    expect(list.json().usage).toEqual({ count: LIMIT, limit: LIMIT });
  });

  it('counts per workspace', async () => {
    const [a, b] = await Promise.all([createTeam(server), createTeam(server)]);
    for (let i = 0; i < LIMIT; i += 1) await post(a, a.owner, `a${i}`);
    expect((await post(a, a.owner, 'full')).statusCode).toBe(409);
    expect((await post(b, b.owner, 'room')).statusCode).toBe(201);
  });
});
