// Invite links and join codes: creating, listing, revoking, expiry, use limits, joining twice, rate limits.
import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import * as z from 'zod/mini';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invites, memberships } from '@server/db/schema';
import { JOIN_ATTEMPTS_PER_MINUTE } from '@server/invites/redeem';
import { joinedWorkspaceResponseSchema } from '@contract/invites';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { addMember, as, createTeam, type Person, type Team } from '@test/support/workspaces.fixtures';

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer();
});
afterAll(() => server.close());

const invitesUrl = (team: Team) => `/api/workspaces/${team.workspaceId}/invites`;

async function createInvite(team: Team, payload: object = {}, actor: Person = team.owner) {
  const res = await as(server, actor, { method: 'POST', url: invitesUrl(team), payload });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string; token: string; url_path: string; max_uses: number | null; uses: number }>();
}

const redeem = (person: Person, token: string) =>
  as(server, person, { method: 'POST', url: '/api/user/me/invite', payload: { token } });
const joinWithCode = (person: Person, code: string) =>
  as(server, person, { method: 'POST', url: '/api/user/me/join', payload: { code } });

async function membership(team: Team, person: Person) {
  return server.db
    .select()
    .from(memberships)
    .where(and(eq(memberships.workspaceId, team.workspaceId), eq(memberships.userId, person.id)));
}

async function usesOf(inviteId: string) {
  const [row] = await server.db.select().from(invites).where(eq(invites.id, inviteId));
  return row!.uses;
}

describe('creating invite links', () => {
  it('answers the token once and keeps only its SHA-256 hash', async () => {
    const team = await createTeam(server);
    const before = Math.floor(Date.now() / 1000);
    const invite = await createInvite(team, { max_uses: 5 });

    expect(invite.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(invite).toMatchObject({ url_path: `/invite?token=${invite.token}`, max_uses: 5, uses: 0 });
    expect(invite).toMatchObject({ privilege: 'viewer', expires_at: expect.any(Number) });
    const expiresAt = (invite as unknown as { expires_at: number }).expires_at;
    expect(expiresAt - before).toBeGreaterThanOrEqual(168 * 3600 - 1);
    const [row] = await server.db.select().from(invites).where(eq(invites.id, invite.id));
    expect(row!.tokenHash).toBe(createHash('sha256').update(invite.token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(invite.token);
  });

  it('lets owners hand out manager links but managers only viewer links', async () => {
    const team = await createTeam(server);
    await createInvite(team, { privilege: 'manager' });
    await createInvite(team, { privilege: 'viewer' }, team.manager);
    const res = await as(server, team.manager, {
      method: 'POST',
      url: invitesUrl(team),
      payload: { privilege: 'manager' },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: 'invite_privilege_forbidden' });
  });

  it.each([
    ['an owner link', { privilege: 'owner' }, 'privilege'],
    ['no hours', { expires_in_hours: 0 }, 'expires_in_hours'],
    ['more than 30 days', { expires_in_hours: 721 }, 'expires_in_hours'],
    ['zero uses', { max_uses: 0 }, 'max_uses'],
    ['over 1000 uses', { max_uses: 1001 }, 'max_uses'],
  ])('refuses %s', async (_case, payload, field) => {
    const team = await createTeam(server);
    const res = await as(server, team.owner, { method: 'POST', url: invitesUrl(team), payload });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ fields: [expect.objectContaining({ path: field })] });
  });
});

describe('listing and revoking', () => {
  it('lists only usable invites, without tokens', async () => {
    const team = await createTeam(server);
    const usable = await createInvite(team);
    const revoked = await createInvite(team);
    const expired = await createInvite(team);
    const usedUp = await createInvite(team, { max_uses: 1 });
    await as(server, team.owner, { method: 'DELETE', url: `${invitesUrl(team)}/${revoked.id}` });
    await server.db
      .update(invites)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(invites.id, expired.id));
    await redeem(team.outsider, usedUp.token);

    const res = await as(server, team.manager, { method: 'GET', url: invitesUrl(team) });

    expect(res.json().map((i: { id: string }) => i.id)).toEqual([usable.id]);
    expect(res.body).not.toContain(usable.token);
    expect(res.json()[0]).toMatchObject({ created_by: team.owner.id, uses: 0, max_uses: null });
  });

  it('a revoked link no longer works; revoking again is harmless', async () => {
    const team = await createTeam(server);
    const invite = await createInvite(team);
    const url = `${invitesUrl(team)}/${invite.id}`;
    expect((await as(server, team.manager, { method: 'DELETE', url })).statusCode).toBe(204);
    expect((await as(server, team.manager, { method: 'DELETE', url })).statusCode).toBe(204);

    const res = await redeem(team.outsider, invite.token);
    expect(res.statusCode).toBe(410);
    expect(res.json()).toMatchObject({ error: 'invite_revoked' });
    expect(await membership(team, team.outsider)).toEqual([]);
  });

  it("cannot revoke another workspace's invite", async () => {
    const team = await createTeam(server);
    const other = await createTeam(server);
    const invite = await createInvite(other);
    const res = await as(server, team.owner, { method: 'DELETE', url: `${invitesUrl(team)}/${invite.id}` });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error: 'invite_not_found' });
  });
});

describe('joining with an invite link', () => {
  it('adds the user with the invite privilege and answers the workspace id', async () => {
    const team = await createTeam(server);
    const invite = await createInvite(team, { privilege: 'manager' });
    const res = await redeem(team.outsider, invite.token);
    expect(res.statusCode).toBe(200);
    expect(z.safeParse(joinedWorkspaceResponseSchema, res.json()).data).toEqual({
      id: team.workspaceId,
      already_member: false,
    });
    expect(await membership(team, team.outsider)).toEqual([
      expect.objectContaining({ privilege: 'manager' }),
    ]);
    expect(await usesOf(invite.id)).toBe(1);
  });

  it('twice is harmless: no error, no second membership, one use; the answer says they already belonged', async () => {
    const team = await createTeam(server);
    const invite = await createInvite(team, { max_uses: 1 });
    expect((await redeem(team.outsider, invite.token)).json()).toEqual({
      id: team.workspaceId,
      already_member: false,
    });
    expect((await redeem(team.outsider, invite.token)).json()).toEqual({
      id: team.workspaceId,
      already_member: true,
    });
    expect(await membership(team, team.outsider)).toHaveLength(1);
    expect(await usesOf(invite.id)).toBe(1);
  });

  it('does not change the privilege of an existing member', async () => {
    const team = await createTeam(server);
    const invite = await createInvite(team, { privilege: 'manager' });
    expect((await redeem(team.viewer, invite.token)).json()).toMatchObject({ already_member: true });
    expect(await membership(team, team.viewer)).toEqual([expect.objectContaining({ privilege: 'viewer' })]);
    expect(await usesOf(invite.id)).toBe(0);
  });

  it('refuses an unknown token', async () => {
    const team = await createTeam(server);
    const res = await redeem(team.outsider, 'not-a-real-token');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error: 'invite_invalid' });
  });

  it('refuses an expired link', async () => {
    const team = await createTeam(server);
    const invite = await createInvite(team, { expires_in_hours: 1 });
    await server.db
      .update(invites)
      .set({ expiresAt: new Date(Date.now() - 1) })
      .where(eq(invites.id, invite.id));
    const res = await redeem(team.outsider, invite.token);
    expect(res.statusCode).toBe(410);
    expect(res.json()).toMatchObject({ error: 'invite_expired' });
  });

  it('refuses a used-up link', async () => {
    const team = await createTeam(server);
    const invite = await createInvite(team, { max_uses: 1 });
    await redeem(team.outsider, invite.token);
    const latecomer = await server.createUser();
    const res = await redeem(latecomer, invite.token);
    expect(res.statusCode).toBe(410);
    expect(res.json()).toMatchObject({ error: 'invite_used_up' });
  });

  it('never lets concurrent joins pass the use limit', async () => {
    const team = await createTeam(server);
    const invite = await createInvite(team, { max_uses: 3 });
    const people = await Promise.all(Array.from({ length: 8 }, () => server.createUser()));

    const results = await Promise.all(people.map((person) => redeem(person, invite.token)));

    const statuses = results.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 410)).toHaveLength(5);
    expect(await usesOf(invite.id)).toBe(3);
    const joined = await server.db
      .select()
      .from(memberships)
      .where(eq(memberships.workspaceId, team.workspaceId));
    expect(joined).toHaveLength(4 + 3);
  });

  it('keeps non-staff out of the internal workspace', async () => {
    const staff = await server.createUser({ isStaff: true });
    const outsider = await server.createUser();
    await addMember(server, server.config.INTERNAL_WORKSPACE_ID, staff, 'owner');
    const res = await as(server, staff, {
      method: 'POST',
      url: `/api/workspaces/${server.config.INTERNAL_WORKSPACE_ID}/invites`,
      payload: {},
    });
    const { token } = res.json<{ token: string }>();
    expect((await redeem(outsider, token)).json()).toMatchObject({ error: 'staff_only' });
    expect((await redeem(await server.createUser({ isStaff: true }), token)).statusCode).toBe(200);
  });
});

describe('join codes', () => {
  const codeUrl = (team: Team) => `/api/workspaces/${team.workspaceId}/join-code`;

  it('are made on first read, grouped ABCD-EFGH from an unambiguous alphabet, and stable', async () => {
    const team = await createTeam(server);
    const first = await as(server, team.owner, { method: 'GET', url: codeUrl(team) });
    const second = await as(server, team.manager, { method: 'GET', url: codeUrl(team) });
    expect(first.json().code).toMatch(/^[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}$/);
    expect(second.json()).toEqual(first.json());
  });

  it('are accepted in any case, with or without the dash; joining twice is harmless', async () => {
    const team = await createTeam(server);
    const { code } = (await as(server, team.owner, { method: 'GET', url: codeUrl(team) })).json();
    const [lower, bare] = [code.toLowerCase(), code.replace('-', '')];
    expect((await joinWithCode(team.outsider, lower)).json()).toEqual({
      id: team.workspaceId,
      already_member: false,
    });
    expect((await joinWithCode(team.outsider, bare)).json()).toEqual({
      id: team.workspaceId,
      already_member: true,
    });
    expect(await membership(team, team.outsider)).toEqual([expect.objectContaining({ privilege: 'viewer' })]);
  });

  it('stop working once rotated', async () => {
    const team = await createTeam(server);
    const old = (await as(server, team.owner, { method: 'GET', url: codeUrl(team) })).json().code;
    const rotated = await as(server, team.manager, { method: 'POST', url: `${codeUrl(team)}/rotate` });
    const fresh = rotated.json().code;
    expect(fresh).not.toBe(old);
    expect((await as(server, team.owner, { method: 'GET', url: codeUrl(team) })).json().code).toBe(fresh);

    const refused = await joinWithCode(team.outsider, old);
    expect(refused.statusCode).toBe(404);
    expect(refused.json()).toMatchObject({ error: 'join_code_invalid' });
    expect((await joinWithCode(team.outsider, fresh)).statusCode).toBe(200);
  });

  it('refuse a malformed code as a bad request', async () => {
    const team = await createTeam(server);
    const res = await joinWithCode(team.outsider, 'ABCD-EFG0');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ fields: [expect.objectContaining({ path: 'code' })] });
  });
});

describe('rate limits on joining', () => {
  it.each([
    ['invite link', (person: Person) => redeem(person, 'guess')],
    ['join code', (person: Person) => joinWithCode(person, 'ABCD-EFGH')],
  ])('answer 429 JSON after too many %s attempts, per user', async (_kind, attempt) => {
    const person = await server.createUser();
    for (let i = 0; i < JOIN_ATTEMPTS_PER_MINUTE; i += 1) {
      expect((await attempt(person)).statusCode).toBe(404);
    }
    const limited = await attempt(person);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
    expect(limited.json()).toMatchObject({ error: 'rate_limited', message: expect.any(String) });
    // Someone else on the same address is not held back.
    expect((await attempt(await server.createUser())).statusCode).toBe(404);
  });
});
