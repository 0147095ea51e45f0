// Every workspace-domain endpoint against every kind of caller, as one table. Each cell runs on a fresh team. A share
// link's token, the one credential that is not a session, reaches none of them, nor any dashboard but its own view.
import type { InjectOptions } from 'fastify';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, type Team } from '@test/support/workspaces.fixtures';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import { insertSavedQuery } from '@test/support/insights.fixtures';
import { workspaces } from '@server/db/schema';

let server: TestServer;
/** A post to correct the sentiment of. */
let postId: number;
beforeAll(async () => {
  server = await createTestServer();
  const [authorId] = await insertProfiles(server.db, [
    { platform: 'x', externalId: 'matrix-author', handle: 'matrix', displayName: 'Matrix' },
  ]);
  [postId] = (await insertPosts(server.db, [
    { authorId: authorId!, platform: 'x', externalId: 'matrix-post', text: 'coffee', postedAt: new Date() },
  ])) as [number];
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

const RANGE = { from: '2026-10-01T00:00:00Z', to: '2026-11-01T00:00:00Z' };

async function shareLink(team: Team) {
  const res = await as(server, team.owner, {
    method: 'POST',
    url: `${ws(team)}/share-links`,
    payload: { dashboard: 'overview', view: { query: 'coffee', filters: RANGE } },
  });
  return res.json<{ link: { id: string }; token: string }>();
}

const savedQuery = (team: Team) => insertSavedQuery(server, team.workspaceId, 'coffee');

async function joinCode(team: Team) {
  const res = await as(server, team.owner, { method: 'GET', url: `${ws(team)}/join-code` });
  return res.json<{ code: string }>().code;
}

// prettier-ignore
const expected = {
  //                                                 owner manager viewer outsider signed-out
  'GET    /users/me':                               [200,  200,    200,   200,     401],
  'PATCH  /users/me':                               [200,  200,    200,   200,     401],
  'POST   /workspaces':                             [201,  201,    201,   201,     401],
  'GET    /workspaces/:id':                         [200,  200,    200,   404,     401],
  'PATCH  /workspaces/:id':                         [200,  200,    403,   404,     401],
  'GET    /workspaces/:id/members':                 [200,  200,    200,   404,     401],
  'PATCH  /workspaces/:id/members/:userId':         [200,  200,    403,   404,     401],
  'DELETE /workspaces/:id/members/:userId':         [204,  204,    403,   404,     401],
  'POST   /workspaces/:id/leave':                   [204,  204,    204,   404,     401],
  'POST   /workspaces/:id/invites':                 [201,  201,    403,   404,     401],
  'GET    /workspaces/:id/invites':                 [200,  200,    403,   404,     401],
  'DELETE /workspaces/:id/invites/:inviteId':       [204,  204,    403,   404,     401],
  'GET    /workspaces/:id/join-code':               [200,  200,    403,   404,     401],
  'POST   /workspaces/:id/join-code/rotate':        [200,  200,    403,   404,     401],
  'POST   /user/me/invite':                         [200,  200,    200,   200,     401],
  'POST   /user/me/join':                           [200,  200,    200,   200,     401],
  'GET    /workspaces/:id/share-links':             [200,  200,    403,   404,     401],
  'POST   /workspaces/:id/share-links':             [201,  201,    403,   404,     401],
  'DELETE /workspaces/:id/share-links/:linkId':     [200,  200,    403,   404,     401],
  'GET    /workspaces/:id/digests':                 [200,  200,    200,   404,     401],
  'POST   /workspaces/:id/digests':                 [201,  201,    403,   404,     401],
  'PUT    /workspaces/:id/posts/:postId/sentiment': [200,  200,    403,   404,     401],
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
  'GET    /workspaces/:id/share-links': (t) => ({ method: 'GET', url: `${ws(t)}/share-links` }),
  'POST   /workspaces/:id/share-links': (t) => ({
    method: 'POST',
    url: `${ws(t)}/share-links`,
    payload: { dashboard: 'overview', view: { query: 'coffee', filters: RANGE } },
  }),
  'DELETE /workspaces/:id/share-links/:linkId': async (t) => ({
    method: 'DELETE',
    url: `${ws(t)}/share-links/${(await shareLink(t)).link.id}`,
  }),
  'GET    /workspaces/:id/digests': (t) => ({ method: 'GET', url: `${ws(t)}/digests` }),
  'POST   /workspaces/:id/digests': async (t) => {
    // Not on a trial (test/server/digests/consent.test.ts).
    await server.db.update(workspaces).set({ plan: 'team' }).where(eq(workspaces.id, t.workspaceId));
    return {
      method: 'POST',
      url: `${ws(t)}/digests`,
      payload: { saved_query_id: await savedQuery(t), frequency: 'weekly', addresses: ['a@example.com'] },
    };
  },
  'PUT    /workspaces/:id/posts/:postId/sentiment': (t) => ({
    method: 'PUT',
    url: `${ws(t)}/posts/${postId}/sentiment`,
    payload: { label: 'negative' },
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

describe('a share link’s token', () => {
  it('opens its one view and nothing else: as a bearer token it is no session, on every route of the table', async () => {
    const team = await createTeam(server, { coOwner: true });
    const { token } = await shareLink(team);
    for (const endpoint of Object.keys(expected) as Endpoint[]) {
      const request = await requests[endpoint](team);
      const res = await server.app.inject({
        ...request,
        headers: { ...request.headers, authorization: `Bearer ${token}` },
      });
      expect(res.statusCode, endpoint).toBe(401);
    }
    for (const dashboard of ['overview', 'posts', 'people']) {
      const res = await server.app.inject({
        method: 'POST',
        url: `/social/insights/${dashboard}`,
        headers: { authorization: `Bearer ${token}` },
        payload: { workspace_id: team.workspaceId, query: '', filters: RANGE },
      });
      expect(res.statusCode, dashboard).toBe(401);
    }
    // Its own view, and only with the token as the whole body.
    const own = await server.app.inject({ method: 'POST', url: '/social/shared/view', payload: { token } });
    expect(own.statusCode).toBe(200);
    const more = await server.app.inject({
      method: 'POST',
      url: '/social/shared/answer',
      payload: { token, workspace_id: team.workspaceId },
    });
    expect(more.statusCode).toBe(400);
  });
});
