// Guessing join codes (issue 17, item 13). The per-minute limit is per address and account, so many accounts guess
// many times as fast; on top of it: misses near a workspace's code (sharing a group of four with it) lock that code
// after JOIN_CODE_NEAR_MISSES_TO_LOCK in a day until an owner or manager rotates it, whichever accounts made them; and
// an account may miss JOIN_CODE_MISSES_PER_DAY times a day. Both are kept in PostgreSQL: a restart resets neither.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '@server/app';
import { joinCodeMisses, joinCodes } from '@server/db/schema';
import {
  JOIN_CODE_MISSES_PER_DAY,
  JOIN_CODE_NEAR_MISSES_TO_LOCK,
  purgeOldMisses,
} from '@server/invites/guessing';
import { JOIN_CODE_ALPHABET } from '@contract/invites';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, type Person, type Team } from '@test/support/workspaces.fixtures';

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer();
});
afterAll(() => server.close());

const codeUrl = (team: Team) => `/api/workspaces/${team.workspaceId}/join-code`;
const joinWithCode = (person: Person, code: string) =>
  as(server, person, { method: 'POST', url: '/api/user/me/join', payload: { code } });
const bare = (code: string) => code.replace('-', '');

async function codeOf(team: Team): Promise<string> {
  return bare((await as(server, team.owner, { method: 'GET', url: codeUrl(team) })).json().code);
}

/** The code with its character at `index` replaced by the `shift`-th next one of the alphabet: a near miss. */
function changed(code: string, index: number, shift = 1): string {
  const next =
    JOIN_CODE_ALPHABET[(JOIN_CODE_ALPHABET.indexOf(code[index]!) + shift) % JOIN_CODE_ALPHABET.length];
  return code.slice(0, index) + next + code.slice(index + 1);
}

describe('a join code near which others keep missing', () => {
  it(`locks after ${JOIN_CODE_NEAR_MISSES_TO_LOCK} near misses by different accounts, until it is rotated`, async () => {
    const team = await createTeam(server);
    const code = await codeOf(team);
    // Each guesser stays far below the per-minute limit: one wrong guess each, varying the second half (as someone
    // who saw the first half would) or the first.
    for (let i = 0; i < JOIN_CODE_NEAR_MISSES_TO_LOCK; i += 1) {
      const guess = changed(code, i < 5 ? 4 + (i % 4) : i % 4, 1 + Math.floor(i / 4));
      const res = await joinWithCode(await server.createUser(), guess);
      expect(res.statusCode, guess).toBe(404);
    }

    const refused = await joinWithCode(team.outsider, code);
    expect(refused.statusCode).toBe(410);
    expect(refused.json()).toEqual({
      error: 'join_code_locked',
      message:
        'This join code was locked after too many wrong attempts. Ask an owner or manager of the workspace for ' +
        'the new code.',
    });
    expect((await as(server, team.manager, { method: 'GET', url: codeUrl(team) })).json()).toMatchObject({
      locked: true,
    });

    // A restart keeps the lock: it is a column, not a counter in memory.
    const [row] = await server.db.select().from(joinCodes).where(eq(joinCodes.workspaceId, team.workspaceId));
    expect(row!.lockedAt).toBeInstanceOf(Date);
    const restarted = await buildApp({
      db: server.db,
      config: server.config,
      accessTokens: server.accessTokens,
    });
    try {
      const again = await restarted.inject({
        method: 'POST',
        url: '/api/user/me/join',
        payload: { code },
        headers: { authorization: `Bearer ${team.outsider.token}` },
      });
      expect(again.statusCode).toBe(410);
    } finally {
      await restarted.close();
    }

    const rotated = await as(server, team.owner, { method: 'POST', url: `${codeUrl(team)}/rotate` });
    expect(rotated.json()).toMatchObject({ locked: false });
    const joined = await joinWithCode(team.outsider, rotated.json().code);
    expect(joined.json()).toEqual({ id: team.workspaceId, already_member: false });
  });

  it('does not lock on a few typos, nor on misses that share no group of four with it', async () => {
    const team = await createTeam(server);
    const code = await codeOf(team);
    for (let i = 0; i < JOIN_CODE_NEAR_MISSES_TO_LOCK - 1; i += 1) {
      expect((await joinWithCode(await server.createUser(), changed(code, i % 8))).statusCode).toBe(404);
    }
    // Far misses: both groups differ.
    for (let i = 0; i < 2 * JOIN_CODE_NEAR_MISSES_TO_LOCK; i += 1) {
      const far = changed(changed(code, i % 4, 1 + (i % 5)), 4 + (i % 4), 1 + (i % 7));
      expect((await joinWithCode(await server.createUser(), far)).statusCode).toBe(404);
    }
    expect((await joinWithCode(team.outsider, code)).json()).toEqual({
      id: team.workspaceId,
      already_member: false,
    });
  });

  it('counts only the misses made since the code was rotated', async () => {
    const team = await createTeam(server);
    const old = await codeOf(team);
    for (let i = 0; i < JOIN_CODE_NEAR_MISSES_TO_LOCK - 1; i += 1) {
      await joinWithCode(await server.createUser(), changed(old, 4 + (i % 4), 1 + Math.floor(i / 4)));
    }
    const fresh = bare(
      (await as(server, team.owner, { method: 'POST', url: `${codeUrl(team)}/rotate` })).json().code,
    );
    // As if the new code had drawn the old one's first group: the misses near it before the rotation do not count.
    const sharing = old.slice(0, 4) + fresh.slice(4);
    await server.db
      .update(joinCodes)
      .set({ code: sharing })
      .where(eq(joinCodes.workspaceId, team.workspaceId));
    expect((await joinWithCode(await server.createUser(), changed(old, 7, 9))).statusCode).toBe(404);
    expect((await joinWithCode(team.outsider, sharing)).statusCode).toBe(200);
  });
});

describe('an account that keeps missing', () => {
  it(`may miss ${JOIN_CODE_MISSES_PER_DAY} times a day, whatever the minute`, async () => {
    const team = await createTeam(server);
    const guesser = await server.createUser();
    // Misses over the last hours (the per-minute limit let each through).
    await server.db.insert(joinCodeMisses).values(
      Array.from({ length: JOIN_CODE_MISSES_PER_DAY }, (_, i) => ({
        userId: guesser.id,
        head: 'ZZZZ',
        tail: 'ZZZZ',
        at: new Date(Date.now() - (5 + i) * 60_000),
      })),
    );
    const limited = await joinWithCode(guesser, 'ABCD-EFGH');
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ error: 'rate_limited' });
    expect(limited.json().message).toMatch(/^Too many wrong join codes\. Try again in \d+ hours?\.$/);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(20 * 3600);
    // Even the right code: the limit is checked before the code, or it would tell a hit from a miss.
    expect((await joinWithCode(guesser, await codeOf(team))).statusCode).toBe(429);
    // Others are not held back.
    expect((await joinWithCode(team.outsider, await codeOf(team))).statusCode).toBe(200);
  });
});

describe('the misses kept', () => {
  it('are deleted by the housekeeping once a day old', async () => {
    const user = await server.createUser();
    await server.db.insert(joinCodeMisses).values([
      { userId: user.id, head: 'AAAA', tail: 'BBBB', at: new Date(Date.now() - 25 * 3600_000) },
      { userId: user.id, head: 'AAAA', tail: 'CCCC' },
    ]);
    expect(await purgeOldMisses(server.db)).toBeGreaterThanOrEqual(1);
    const left = await server.db.select().from(joinCodeMisses).where(eq(joinCodeMisses.userId, user.id));
    expect(left.map((row) => row.tail)).toEqual(['CCCC']);
  });
});
