// Every workspace-domain endpoint against every kind of caller, as one table. Each cell runs on a fresh team.
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, type Team } from '@test/support/workspaces.fixtures';

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer();
});
afterAll(() => server.close());

const callers = ['owner', 'manager', 'viewer', 'outsider', 'signed out'] as const;
type Caller = (typeof callers)[number];
type Expected = [owner: number, manager: number, viewer: number, outsider: number, signedOut: number];

/** Builds the request for a team; some need a thing to act on first (an invite, a join code). */
type Request = (team: Team) => InjectOptions | Promise<InjectOptions>;

const ws = (team: Team) => `/api/workspaces/${team.workspaceId}`;

async function createInvite(team: Team) {
  const res = await as(server, team.owner, { method: 'POST', url: `${ws(team)}/invites`, payload: {} });
  return res.json<{ id: string; token: string }>();
}

async function joinCode(team: Team) {
  const res = await as(server, team.owner, { method: 'GET', url: `${ws(team)}/join-code` });
  return res.json<{ code: string }>().code;
}

// prettier-ignore
const expected = {
  //                                           owner manager viewer outsider signed-out
  'GET    /users/me':                         [200,  200,    200,   200,     401],
  'PATCH  /users/me':                         [200,  200,    200,   200,     401],
  'POST   /workspaces':                       [201,  201,    201,   201,     401],
  'GET    /workspaces/:id':                   [200,  200,    200,   404,     401],
  'PATCH  /workspaces/:id':                   [200,  200,    403,   404,     401],
  'GET    /workspaces/:id/members':           [200,  200,    200,   404,     401],
  'PATCH  /workspaces/:id/members/:userId':   [200,  200,    403,   404,     401],
  'DELETE /workspaces/:id/members/:userId':   [204,  204,    403,   404,     401],
  'POST   /workspaces/:id/leave':             [204,  204,    204,   404,     401],
  'POST   /workspaces/:id/invites':           [201,  201,    403,   404,     401],
  'GET    /workspaces/:id/invites':           [200,  200,    403,   404,     401],
  'DELETE /workspaces/:id/invites/:inviteId': [204,  204,    403,   404,     401],
  'GET    /workspaces/:id/join-code':         [200,  200,    403,   404,     401],
  'POST   /workspaces/:id/join-code/rotate':  [200,  200,    403,   404,     401],
  'POST   /user/me/invite':                   [200,  200,    200,   200,     401],
  'POST   /user/me/join':                     [200,  200,    200,   200,     401],
} satisfies Record<string, Expected>;

type Endpoint = keyof typeof expected;

/** The concrete request per endpoint; member changes target a second viewer. */
const requests: Record<Endpoint, Request> = {
  'GET    /users/me': () => ({ method: 'GET', url: '/api/users/me' }),
  'PATCH  /users/me': () => ({ method: 'PATCH', url: '/api/users/me', payload: { first_name: 'Ada' } }),
  'POST   /workspaces': () => ({
    method: 'POST',
    url: '/api/workspaces',
    payload: { name: 'New', language: 'en' },
  }),
  'GET    /workspaces/:id': (t) => ({ method: 'GET', url: ws(t) }),
  'PATCH  /workspaces/:id': (t) => ({ method: 'PATCH', url: ws(t), payload: { name: 'Renamed' } }),
  'GET    /workspaces/:id/members': (t) => ({ method: 'GET', url: `${ws(t)}/members` }),
  'PATCH  /workspaces/:id/members/:userId': (t) => ({
    method: 'PATCH',
    url: `${ws(t)}/members/${t.otherViewer.id}`,
    payload: { privilege: 'manager' },
  }),
  'DELETE /workspaces/:id/members/:userId': (t) => ({
    method: 'DELETE',
    url: `${ws(t)}/members/${t.otherViewer.id}`,
  }),
  'POST   /workspaces/:id/leave': (t) => ({ method: 'POST', url: `${ws(t)}/leave` }),
  'POST   /workspaces/:id/invites': (t) => ({ method: 'POST', url: `${ws(t)}/invites`, payload: {} }),
  'GET    /workspaces/:id/invites': (t) => ({ method: 'GET', url: `${ws(t)}/invites` }),
  'DELETE /workspaces/:id/invites/:inviteId': async (t) => ({
    method: 'DELETE',
    url: `${ws(t)}/invites/${(await createInvite(t)).id}`,
  }),
  'GET    /workspaces/:id/join-code': (t) => ({ method: 'GET', url: `${ws(t)}/join-code` }),
  'POST   /workspaces/:id/join-code/rotate': (t) => ({ method: 'POST', url: `${ws(t)}/join-code/rotate` }),
  'POST   /user/me/invite': async (t) => ({
    method: 'POST',
    url: '/api/user/me/invite',
    payload: { token: (await createInvite(t)).token },
  }),
  'POST   /user/me/join': async (t) => ({
    method: 'POST',
    url: '/api/user/me/join',
    payload: { code: await joinCode(t) },
  }),
};

const matrix = Object.entries(expected) as Array<[Endpoint, Expected]>;

describe.each(matrix)('%s', (endpoint, statuses) => {
  it.each(callers.map((caller, column) => [caller, statuses[column]!] as [Caller, number]))(
    'as %s → %i',
    async (caller, status) => {
      // A second owner, so that "owner leaves" tests the permission, not the last-owner rule.
      const team = await createTeam(server, { coOwner: true });
      const person = caller === 'signed out' ? null : team[caller];
      const res = await as(server, person, await requests[endpoint](team));
      expect(res.statusCode, res.body).toBe(status);
      if (status >= 400) {
        expect(res.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });
      }
    },
  );
});

describe('signed-out callers', () => {
  it('get 401 before their body is even looked at', async () => {
    const res = await as(server, null, { method: 'POST', url: '/api/workspaces', payload: { name: '' } });
    expect(res.statusCode).toBe(401);
  });
});

describe('non-members', () => {
  it('get 404 the same for a workspace that exists and one that does not', async () => {
    const team = await createTeam(server);
    const hidden = await as(server, team.outsider, { method: 'GET', url: ws(team) });
    const missing = await as(server, team.outsider, {
      method: 'GET',
      url: '/api/workspaces/no-such-workspace',
    });
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json()).toEqual(missing.json());
  });
});
