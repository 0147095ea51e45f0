import { eq } from 'drizzle-orm';
import * as z from 'zod/mini';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../server/db/schema';
import { currentUserResponseSchema } from '../../src/contract/workspaces';
import { createTestServer, type TestServer } from '../support/server-harness';
import { addMember, as, createWorkspace } from '../support/workspaces.fixtures';

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
