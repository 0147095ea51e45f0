import { eq, sql, type SQL } from 'drizzle-orm';
import * as z from 'zod/mini';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users, workspaces } from '@server/db/schema';
import { currentUserResponseSchema, type CurrentUserResponse } from '@contract/workspaces';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { addMember, as, createWorkspace, type Person } from '@test/support/workspaces.fixtures';

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer();
});
afterAll(() => server.close());

describe('GET /api/users/me', () => {
  it('answers the shape the SPA parses, with every workspace and the privilege in it', async () => {
    const user = await server.createUser({ email: 'ada@example.com', firstName: 'Ada' });
    const expiry = new Date('2031-01-02T03:04:05Z');
    const first = await createWorkspace(server, [[user, 'owner']], { name: 'First', planExpiredAt: expiry });
    const second = await createWorkspace(server, [[user, 'viewer']], { name: 'Second', language: 'ko' });

    const res = await as(server, user, { method: 'GET', url: '/api/users/me' });

    expect(res.statusCode).toBe(200);
    const parsed = z.safeParse(currentUserResponseSchema, res.json());
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    expect(res.json()).toEqual({
      id: user.id,
      email: 'ada@example.com',
      first_name: 'Ada',
      last_name: null,
      workspaces: [
        {
          id: first.id,
          name: 'First',
          privilege: 'owner',
          language: 'en',
          plan: 'trial',
          plan_expired_at: Math.floor(expiry.getTime() / 1000),
          time_zone: 'UTC',
        },
        {
          id: second.id,
          name: 'Second',
          privilege: 'viewer',
          language: 'ko',
          plan: 'trial',
          plan_expired_at: null,
          time_zone: 'UTC',
        },
      ],
    });
  });

  it('lists no workspaces for a new user', async () => {
    const user = await server.createUser();
    const res = await as(server, user, { method: 'GET', url: '/api/users/me' });
    expect(res.json()).toMatchObject({ id: user.id, workspaces: [] });
  });

  it('hides the internal workspace from a member who is no longer staff', async () => {
    const staff = await server.createUser({ isStaff: true });
    const former = await server.createUser();
    await addMember(server, server.config.INTERNAL_WORKSPACE_ID, staff, 'owner');
    await addMember(server, server.config.INTERNAL_WORKSPACE_ID, former, 'viewer');

    const staffMe = await as(server, staff, { method: 'GET', url: '/api/users/me' });
    const formerMe = await as(server, former, { method: 'GET', url: '/api/users/me' });

    expect(staffMe.json().workspaces).toEqual([
      expect.objectContaining({
        id: server.config.INTERNAL_WORKSPACE_ID,
        privilege: 'owner',
        plan_expired_at: null,
      }),
    ]);
    expect(formerMe.json().workspaces).toEqual([]);
  });

  it('answers 401 when the account behind a valid token is gone', async () => {
    const user = await server.createUser();
    await server.db.delete(users).where(eq(users.id, user.id));
    const res = await as(server, user, { method: 'GET', url: '/api/users/me' });
    expect(res.statusCode).toBe(401);
  });
});

describe('PATCH /api/users/me', () => {
  it('stores trimmed names and answers the updated user', async () => {
    const user = await server.createUser();
    const res = await as(server, user, {
      method: 'PATCH',
      url: '/api/users/me',
      payload: { first_name: '  Grace ', last_name: 'Hopper' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ first_name: 'Grace', last_name: 'Hopper' });
    const [row] = await server.db.select().from(users).where(eq(users.id, user.id));
    expect(row).toMatchObject({ firstName: 'Grace', lastName: 'Hopper' });
  });

  it('changes only the names it is given', async () => {
    const user = await server.createUser({ firstName: 'Alan' });
    const res = await as(server, user, {
      method: 'PATCH',
      url: '/api/users/me',
      payload: { last_name: 'Turing' },
    });
    expect(res.json()).toMatchObject({ first_name: 'Alan', last_name: 'Turing' });
  });

  it.each([
    ['a blank first name', { first_name: '   ' }, 'first_name'],
    ['a last name over 80 characters', { last_name: 'x'.repeat(81) }, 'last_name'],
    ['a name that is not a string', { first_name: 42 }, 'first_name'],
  ])('refuses %s with a field error', async (_case, payload, field) => {
    const user = await server.createUser({ firstName: 'Kept' });
    const res = await as(server, user, { method: 'PATCH', url: '/api/users/me', payload });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      error: 'invalid_request',
      fields: [expect.objectContaining({ path: field })],
    });
    const [row] = await server.db.select().from(users).where(eq(users.id, user.id));
    expect(row?.firstName).toBe('Kept');
  });
});

// users/me keeps each user's answer with their profile_version and re-reads it only when a trigger raised the version
// (server/users/current-user.ts, migration 0017). The changes below are written past the API, as the billing job, a
// script or a hand-written UPDATE would, so only the triggers can make them seen.
describe('GET /api/users/me, answered from memory while unchanged', () => {
  const me = async (person: Person) => {
    const res = await as(server, person, { method: 'GET', url: '/api/users/me' });
    expect(res.statusCode).toBe(200);
    return res.json() as CurrentUserResponse;
  };

  it('sends the kept answer while the version stands, and the new one once it moves', async () => {
    const user = await server.createUser({ firstName: 'Kept' });
    expect((await me(user)).first_name).toBe('Kept');
    // A change the version does not see is not seen: the answer came from memory, not from the tables.
    // As the tables' owner: the server's own role may not turn a trigger off (server/db/app-role.ts).
    const owner = new pg.Client({ connectionString: server.databaseUrl });
    await owner.connect();
    await owner.query('ALTER TABLE users DISABLE TRIGGER users_profile_version');
    try {
      await server.db.update(users).set({ firstName: 'Unseen' }).where(eq(users.id, user.id));
    } finally {
      await owner.query('ALTER TABLE users ENABLE TRIGGER users_profile_version');
      await owner.end();
    }
    expect((await me(user)).first_name).toBe('Kept');
    await server.db.update(users).set({ lastName: 'Seen' }).where(eq(users.id, user.id));
    expect(await me(user)).toMatchObject({ first_name: 'Unseen', last_name: 'Seen' });
  });

  it.each<
    [string, (ids: { user: string; workspace: string; other: string }) => SQL, Partial<CurrentUserResponse>]
  >([
    [
      'its e-mail',
      ({ user }) => sql`UPDATE users SET email = 'new@example.com' WHERE id = ${user}`,
      { email: 'new@example.com' },
    ],
    [
      'its privilege',
      ({ user, workspace }) =>
        sql`UPDATE memberships SET privilege = 'viewer' WHERE user_id = ${user} AND workspace_id = ${workspace}`,
      { workspaces: [expect.objectContaining({ privilege: 'viewer' })] },
    ],
    [
      'a membership added',
      ({ user, other }) =>
        sql`INSERT INTO memberships (workspace_id, user_id, privilege) VALUES (${other}, ${user}, 'manager')`,
      {
        workspaces: [
          expect.objectContaining({ name: 'Watched' }),
          expect.objectContaining({ name: 'Other', privilege: 'manager' }),
        ],
      },
    ],
    [
      'its membership removed',
      ({ user, workspace }) =>
        sql`DELETE FROM memberships WHERE user_id = ${user} AND workspace_id = ${workspace}`,
      { workspaces: [] },
    ],
    [
      'its workspace renamed, re-planned and moved to another zone and language',
      ({ workspace }) =>
        sql`UPDATE workspaces SET name = 'Renamed', plan = 'team', plan_expired_at = '2031-01-01T00:00:00Z',
                time_zone = 'Europe/Paris', language = 'fr' WHERE id = ${workspace}`,
      {
        workspaces: [
          expect.objectContaining({
            name: 'Renamed',
            plan: 'team',
            plan_expired_at: Date.parse('2031-01-01T00:00:00Z') / 1000,
            time_zone: 'Europe/Paris',
            language: 'fr',
          }),
        ],
      },
    ],
    [
      'its workspace deleted',
      ({ workspace }) => sql`DELETE FROM workspaces WHERE id = ${workspace}`,
      { workspaces: [] },
    ],
  ])('answers the change of %s on the next request', async (_case, change, expected) => {
    const user = await server.createUser({ email: 'old@example.com' });
    const workspace = await createWorkspace(server, [[user, 'owner']], { name: 'Watched' });
    const other = await createWorkspace(server, [], { name: 'Other' });
    await me(user);
    await me(user);
    await server.db.execute(change({ user: user.id, workspace: workspace.id, other: other.id }));
    expect(await me(user)).toMatchObject(expected);
  });

  it('shows the internal workspace once the user is made staff', async () => {
    const user = await server.createUser();
    await addMember(server, server.config.INTERNAL_WORKSPACE_ID, user, 'viewer');
    expect((await me(user)).workspaces).toEqual([]);
    await server.db.update(users).set({ isStaff: true }).where(eq(users.id, user.id));
    expect((await me(user)).workspaces).toEqual([
      expect.objectContaining({ id: server.config.INTERNAL_WORKSPACE_ID }),
    ]);
  });

  it('answers a rename through the API and a name patched through the API at once', async () => {
    const user = await server.createUser({ firstName: 'Before' });
    const workspace = await createWorkspace(server, [[user, 'owner']], { name: 'Before' });
    await me(user);
    const renamed = await as(server, user, {
      method: 'PATCH',
      url: `/api/workspaces/${workspace.id}`,
      payload: { name: 'After' },
    });
    expect(renamed.statusCode).toBe(200);
    await as(server, user, { method: 'PATCH', url: '/api/users/me', payload: { first_name: 'After' } });
    expect(await me(user)).toMatchObject({
      first_name: 'After',
      workspaces: [expect.objectContaining({ name: 'After' })],
    });
  });

  it('raises only the versions of the members of what changed', async () => {
    const member = await server.createUser();
    const outsider = await server.createUser();
    const workspace = await createWorkspace(server, [[member, 'owner']]);
    const versionOf = async (id: string) =>
      (await server.db.select({ v: users.profileVersion }).from(users).where(eq(users.id, id)))[0]!.v;
    const [memberBefore, outsiderBefore] = [await versionOf(member.id), await versionOf(outsider.id)];
    await server.db.update(workspaces).set({ name: 'Changed' }).where(eq(workspaces.id, workspace.id));
    // Not a field users/me answers: no raise.
    await server.db.update(workspaces).set({ createdAt: new Date() }).where(eq(workspaces.id, workspace.id));
    expect(await versionOf(member.id)).toBe(memberBefore + 1);
    expect(await versionOf(outsider.id)).toBe(outsiderBefore);
  });

  it('answers 401 once the account is deleted, also after its answer was kept', async () => {
    const user = await server.createUser();
    await me(user);
    await server.db.delete(users).where(eq(users.id, user.id));
    const res = await as(server, user, { method: 'GET', url: '/api/users/me' });
    expect(res.statusCode).toBe(401);
  });
});
