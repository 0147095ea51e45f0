import { eq } from 'drizzle-orm';
import * as z from 'zod/mini';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberships, users, workspaces } from '@server/db/schema';
import { workspaceResponseSchema } from '@contract/workspaces';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { addMember, as, createTeam } from '@test/support/workspaces.fixtures';

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer({
    TRIAL_DAYS: '14',
    INTERNAL_WORKSPACE_ID: 'murmur-internal',
    // A sign-in seen live stays trusted for the length of a test (see the rollback case).
    SIGN_IN_STATE_MAX_AGE_SECONDS: '60',
  });
});
afterAll(() => server.close());

const DAY = 24 * 60 * 60;
const createWorkspace = (person: Parameters<typeof as>[1], payload: unknown) =>
  as(server, person, { method: 'POST', url: '/api/workspaces', payload: payload as object });

async function workspaceCount() {
  return (await server.db.select({ id: workspaces.id }).from(workspaces)).length;
}

describe('POST /api/workspaces', () => {
  it('creates a trial workspace owned by the caller and stores their names, in one go', async () => {
    const user = await server.createUser();
    const before = Math.floor(Date.now() / 1000);

    const res = await createWorkspace(user, {
      name: '  Acme insights ',
      language: 'ja',
      first_name: 'Ada',
      last_name: 'Lovelace',
    });

    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(z.safeParse(workspaceResponseSchema, body).success).toBe(true);
    expect(body).toMatchObject({ name: 'Acme insights', language: 'ja', plan: 'trial', privilege: 'owner' });
    expect(body.plan_expired_at).toBeGreaterThanOrEqual(before + 14 * DAY);
    expect(body.plan_expired_at).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 14 * DAY);
    const [membership] = await server.db
      .select()
      .from(memberships)
      .where(eq(memberships.workspaceId, body.id));
    expect(membership).toMatchObject({ userId: user.id, privilege: 'owner' });
    const [row] = await server.db.select().from(users).where(eq(users.id, user.id));
    expect(row).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace' });
  });

  it('leaves the profile alone when no names are given', async () => {
    const user = await server.createUser({ firstName: 'Kept' });
    const res = await createWorkspace(user, { name: 'Solo', language: 'en' });
    expect(res.statusCode).toBe(201);
    const me = await as(server, user, { method: 'GET', url: '/api/users/me' });
    expect(me.json()).toMatchObject({
      first_name: 'Kept',
      workspaces: [{ id: res.json().id, privilege: 'owner' }],
    });
  });

  it.each([
    ['a missing name', { language: 'en' }, 'name'],
    ['a blank name', { name: '   ', language: 'en' }, 'name'],
    ['a name over 80 characters', { name: 'x'.repeat(81), language: 'en' }, 'name'],
    ['an unknown language', { name: 'Acme', language: 'xx' }, 'language'],
    ['a blank first name', { name: 'Acme', language: 'en', first_name: ' ' }, 'first_name'],
  ])('refuses %s with a field error and writes nothing', async (_case, payload, field) => {
    const user = await server.createUser({ firstName: 'Kept' });
    const before = await workspaceCount();

    const res = await createWorkspace(user, payload);

    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      error: 'invalid_request',
      fields: [expect.objectContaining({ path: field })],
    });
    expect(await workspaceCount()).toBe(before);
    const [row] = await server.db.select().from(users).where(eq(users.id, user.id));
    expect(row?.firstName).toBe('Kept');
  });

  it('accepts a name of exactly 80 characters', async () => {
    const user = await server.createUser();
    const res = await createWorkspace(user, { name: 'x'.repeat(80), language: 'pt' });
    expect(res.statusCode).toBe(201);
  });

  it('rolls the workspace back when a later step fails', async () => {
    const user = await server.createUser();
    // Seen live first: deleting the account ends its sign-in too, which would refuse the request before it starts.
    expect((await as(server, user, { method: 'GET', url: '/api/users/me' })).statusCode).toBe(200);
    await server.db.delete(users).where(eq(users.id, user.id));
    const before = await workspaceCount();

    const res = await createWorkspace(user, { name: 'Orphan', language: 'en', first_name: 'Gone' });

    expect(res.statusCode).toBe(401);
    expect(await workspaceCount()).toBe(before);
  });
});

describe('GET /api/workspaces/:id', () => {
  it("answers the workspace with the caller's privilege, in the shape the SPA parses", async () => {
    const team = await createTeam(server);
    for (const [person, privilege] of [
      [team.owner, 'owner'],
      [team.manager, 'manager'],
      [team.viewer, 'viewer'],
    ] as const) {
      const res = await as(server, person, { method: 'GET', url: `/api/workspaces/${team.workspaceId}` });
      expect(z.safeParse(workspaceResponseSchema, res.json()).success).toBe(true);
      expect(res.json()).toMatchObject({ id: team.workspaceId, privilege });
    }
  });
});

describe('PATCH /api/workspaces/:id', () => {
  it('renames and changes the language', async () => {
    const team = await createTeam(server);
    const res = await as(server, team.manager, {
      method: 'PATCH',
      url: `/api/workspaces/${team.workspaceId}`,
      payload: { name: ' Renamed ', language: 'de' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ name: 'Renamed', language: 'de', privilege: 'manager' });
  });

  it('refuses an invalid language', async () => {
    const team = await createTeam(server);
    const res = await as(server, team.owner, {
      method: 'PATCH',
      url: `/api/workspaces/${team.workspaceId}`,
      payload: { language: 'klingon' },
    });
    expect(res.statusCode).toBe(400);
  });
});

describe('the internal workspace', () => {
  const url = '/api/workspaces/murmur-internal';

  it('exists from start-up, with no plan expiry', async () => {
    const [row] = await server.db.select().from(workspaces).where(eq(workspaces.id, 'murmur-internal'));
    expect(row).toMatchObject({ isInternal: true, planExpiredAt: null });
  });

  it('is open to staff as viewers', async () => {
    const staff = await server.createUser({ isStaff: true });
    const res = await as(server, staff, { method: 'GET', url });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: 'murmur-internal', privilege: 'viewer', plan_expired_at: null });
  });

  it("shows a staff member's own privilege", async () => {
    const staff = await server.createUser({ isStaff: true });
    await addMember(server, 'murmur-internal', staff, 'manager');
    const res = await as(server, staff, { method: 'GET', url });
    expect(res.json()).toMatchObject({ privilege: 'manager' });
  });

  it('does not exist for anyone else, members included', async () => {
    const other = await server.createUser();
    const member = await server.createUser();
    await addMember(server, 'murmur-internal', member, 'owner');
    for (const person of [other, member]) {
      const res = await as(server, person, { method: 'GET', url });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error: 'workspace_not_found' });
    }
  });

  it('lets staff who are not members look but not manage', async () => {
    const staff = await server.createUser({ isStaff: true });
    expect((await as(server, staff, { method: 'GET', url: `${url}/members` })).statusCode).toBe(200);
    expect((await as(server, staff, { method: 'PATCH', url, payload: { name: 'x' } })).statusCode).toBe(403);
    expect((await as(server, staff, { method: 'GET', url: `${url}/invites` })).statusCode).toBe(403);
    expect((await as(server, staff, { method: 'POST', url: `${url}/leave` })).json()).toMatchObject({
      error: 'member_not_found',
    });
  });
});

describe('the OpenAPI document', () => {
  it('lists every endpoint with a tag and the bearer requirement', async () => {
    const doc = (await server.app.inject({ method: 'GET', url: '/api/docs/json' })).json();
    const expected = [
      ['get', '/api/users/me'],
      ['patch', '/api/users/me'],
      ['post', '/api/workspaces'],
      ['get', '/api/workspaces/{id}'],
      ['patch', '/api/workspaces/{id}'],
      ['get', '/api/workspaces/{id}/members'],
      ['patch', '/api/workspaces/{id}/members/{userId}'],
      ['delete', '/api/workspaces/{id}/members/{userId}'],
      ['post', '/api/workspaces/{id}/leave'],
      ['post', '/api/workspaces/{id}/invites'],
      ['get', '/api/workspaces/{id}/invites'],
      ['delete', '/api/workspaces/{id}/invites/{inviteId}'],
      ['get', '/api/workspaces/{id}/join-code'],
      ['post', '/api/workspaces/{id}/join-code/rotate'],
      ['post', '/api/user/me/invite'],
      ['post', '/api/user/me/join'],
    ];
    for (const [method, path] of expected) {
      const operation = doc.paths?.[path!]?.[method!];
      expect(operation, `${method} ${path}`).toBeDefined();
      expect(operation.tags.length).toBeGreaterThan(0);
      expect(operation.security).toEqual([{ bearer: [] }]);
    }
  });
});
