import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { purgeEndedFamilies } from '@server/auth/refresh-tokens';
import { refreshTokens } from '@server/db/schema';
import { runHousekeeping } from '@server/housekeeping';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { bearer, login, startFakeVendors, type FakeVendors } from '@test/support/auth.fixtures';

interface Pair {
  access_token: string;
  refresh_token: string;
}

let server: TestServer;
let vendors: FakeVendors;

beforeAll(async () => {
  vendors = await startFakeVendors();
  server = await createTestServer({
    ...vendors.env,
    REFRESH_TOKEN_LIFETIME_DAYS: '30',
    LOGIN_RATE_LIMIT_PER_MINUTE: '10000',
    REFRESH_RATE_LIMIT_PER_MINUTE: '10000',
  });
});
afterAll(async () => {
  await server.close();
  await vendors.close();
});

async function signIn(): Promise<Pair> {
  const res = await login(server.app, vendors, 'google');
  expect(res.statusCode).toBe(200);
  return res.json<Pair>();
}

const refresh = (headers: Record<string, string> = {}) =>
  server.app.inject({ method: 'POST', url: '/api/auth/refresh', headers });
const logout = (headers: Record<string, string> = {}) =>
  server.app.inject({ method: 'POST', url: '/api/auth/logout', headers });
const sha256 = (token: string) => createHash('sha256').update(token).digest('base64url');

/** Moves every rotation of the sign-in a token belongs to back past the grace period, as time passing would. */
async function pastGrace(token: string) {
  await server.db.execute(sql`UPDATE refresh_tokens SET rotated_at = rotated_at - interval '1 hour'
    WHERE family_id = (SELECT family_id FROM refresh_tokens WHERE token_hash = ${sha256(token)})
      AND rotated_at IS NOT NULL`);
}

function expectInvalid(res: Awaited<ReturnType<typeof refresh>>) {
  expect(res.statusCode).toBe(401);
  expect(res.json()).toMatchObject({ error: 'invalid_refresh_token' });
}

describe('auth/refresh', () => {
  it('stores refresh tokens only as hashes', async () => {
    const { refresh_token } = await signIn();
    const rows = await server.db.select().from(refreshTokens);
    expect(rows.some((row) => row.tokenHash === refresh_token)).toBe(false);
    expect(rows.some((row) => row.tokenHash === sha256(refresh_token))).toBe(true);
  });

  it('rotates: the new pair works, for the same user', async () => {
    const first = await signIn();
    const res = await refresh(bearer(first.refresh_token));
    expect(res.statusCode).toBe(200);
    const second = res.json<Pair>();
    expect(Object.keys(second).sort()).toEqual(['access_token', 'refresh_token']);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    const [a, b] = await Promise.all(
      [first, second].map((pair) => server.accessTokens.verify(pair.access_token)),
    );
    expect(b!.userId).toBe(a!.userId);
    expect(b!.signInId).toBe(a!.signInId);
    expect((await refresh(bearer(second.refresh_token))).statusCode).toBe(200);
  });

  it('treats reuse of a rotated token after the grace period as theft and revokes the whole sign-in', async () => {
    const first = await signIn();
    const second = (await refresh(bearer(first.refresh_token))).json<Pair>();
    await pastGrace(first.refresh_token);
    expectInvalid(await refresh(bearer(first.refresh_token)));
    expectInvalid(await refresh(bearer(second.refresh_token)));
    const family = await server.db
      .select({ revokedAt: refreshTokens.revokedAt })
      .from(refreshTokens)
      .where(eq(refreshTokens.tokenHash, sha256(second.refresh_token)));
    expect(family[0]?.revokedAt).toBeInstanceOf(Date);
  });

  it('leaves other sign-ins of the same person alone when one is revoked', async () => {
    const a = await signIn();
    const b = await signIn();
    await logout(bearer(a.refresh_token));
    expect((await refresh(bearer(b.refresh_token))).statusCode).toBe(200);
  });

  it('never extends the sign-in past its absolute end', async () => {
    const first = await signIn();
    const [before] = await server.db
      .select({ expiresAt: refreshTokens.expiresAt })
      .from(refreshTokens)
      .where(eq(refreshTokens.tokenHash, sha256(first.refresh_token)));
    const days = (before!.expiresAt.getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    const second = (await refresh(bearer(first.refresh_token))).json<Pair>();
    const [after] = await server.db
      .select({ expiresAt: refreshTokens.expiresAt })
      .from(refreshTokens)
      .where(eq(refreshTokens.tokenHash, sha256(second.refresh_token)));
    expect(after!.expiresAt.getTime()).toBe(before!.expiresAt.getTime());
  });

  it('rejects a token whose sign-in has reached its end', async () => {
    const first = await signIn();
    const [row] = await server.db
      .select({ familyId: refreshTokens.familyId })
      .from(refreshTokens)
      .where(eq(refreshTokens.tokenHash, sha256(first.refresh_token)));
    await server.db
      .update(refreshTokens)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(refreshTokens.familyId, row!.familyId));
    expectInvalid(await refresh(bearer(first.refresh_token)));
  });

  it('rejects missing, malformed and unknown tokens, and access tokens', async () => {
    const { access_token } = await signIn();
    expectInvalid(await refresh());
    expectInvalid(await refresh({ authorization: 'Basic abc' }));
    expectInvalid(await refresh(bearer('short')));
    expectInvalid(await refresh(bearer('A'.repeat(43))));
    expectInvalid(await refresh(bearer(access_token)));
  });

  it('gives every one of several concurrent refreshes with the same token the same successor', async () => {
    const { refresh_token } = await signIn();
    // Open several pooled connections first; otherwise the first refresh finishes while the others still connect,
    // and the race under test never happens.
    await Promise.all(Array.from({ length: 8 }, () => server.db.execute(sql`select pg_sleep(0.05)`)));
    const results = await Promise.all(Array.from({ length: 5 }, () => refresh(bearer(refresh_token))));
    expect(results.map((res) => res.statusCode)).toEqual([200, 200, 200, 200, 200]);
    const successors = new Set(results.map((res) => res.json<Pair>().refresh_token));
    expect(successors.size).toBe(1);
    // One successor row, not five: the family has the first token and its one successor.
    const rows = await server.db.execute(sql`SELECT count(*)::int AS n FROM refresh_tokens
      WHERE family_id = (SELECT family_id FROM refresh_tokens WHERE token_hash = ${sha256(refresh_token)})`);
    expect(rows.rows[0]).toEqual({ n: 2 });
    expect((await refresh(bearer([...successors][0]!))).statusCode).toBe(200);
  });

  it('keeps the session when a refresh answer was lost: the retry within the grace period gets the same successor', async () => {
    const first = await signIn();
    const lost = (await refresh(bearer(first.refresh_token))).json<Pair>();
    const retried = await refresh(bearer(first.refresh_token));
    expect(retried.statusCode).toBe(200);
    expect(retried.json<Pair>().refresh_token).toBe(lost.refresh_token);
    const next = await refresh(bearer(retried.json<Pair>().refresh_token));
    expect(next.statusCode).toBe(200);
    expect((await refresh(bearer(next.json<Pair>().refresh_token))).statusCode).toBe(200);
  });

  it('never lets a revoked sign-in back in through the grace period', async () => {
    const first = await signIn();
    await refresh(bearer(first.refresh_token));
    expect((await logout(bearer(first.refresh_token))).statusCode).toBe(204);
    expectInvalid(await refresh(bearer(first.refresh_token)));
  });
});

describe('auth/logout', () => {
  it('revokes the sign-in, including tokens already rotated into it', async () => {
    const first = await signIn();
    const second = (await refresh(bearer(first.refresh_token))).json<Pair>();
    const res = await logout(bearer(first.refresh_token));
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expectInvalid(await refresh(bearer(second.refresh_token)));
  });

  it('answers 204 every time, known token or not', async () => {
    const { refresh_token } = await signIn();
    expect((await logout(bearer(refresh_token))).statusCode).toBe(204);
    expect((await logout(bearer(refresh_token))).statusCode).toBe(204);
    expect((await logout(bearer('B'.repeat(43)))).statusCode).toBe(204);
    expect((await logout()).statusCode).toBe(204);
  });
});

describe('housekeeping', () => {
  it('deletes the tokens of ended sign-ins, in batches, and keeps every row of live ones', async () => {
    const ended = await signIn();
    const endedNext = (await refresh(bearer(ended.refresh_token))).json<Pair>();
    const live = await signIn();
    const liveNext = (await refresh(bearer(live.refresh_token))).json<Pair>();
    const familyOf = async (token: string) =>
      (
        await server.db
          .select({ familyId: refreshTokens.familyId })
          .from(refreshTokens)
          .where(eq(refreshTokens.tokenHash, sha256(token)))
      )[0]!.familyId;
    const endedFamily = await familyOf(ended.refresh_token);
    const liveFamily = await familyOf(live.refresh_token);
    await server.db
      .update(refreshTokens)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(refreshTokens.familyId, endedFamily));
    const count = async (familyId: string) =>
      (await server.db.select().from(refreshTokens).where(eq(refreshTokens.familyId, familyId))).length;
    const liveRows = await count(liveFamily);

    // A batch of 1 makes the loop go round; other tests' ended families may go too.
    expect(await purgeEndedFamilies(server.db, 1)).toBeGreaterThanOrEqual(2);
    expect(await count(endedFamily)).toBe(0);
    expect(await count(liveFamily)).toBe(liveRows);
    expectInvalid(await refresh(bearer(endedNext.refresh_token)));
    // The live family's rotated token is still known, so its reuse (past the grace period) still ends the family.
    await pastGrace(live.refresh_token);
    expect((await refresh(bearer(live.refresh_token))).statusCode).toBe(401);
    expectInvalid(await refresh(bearer(liveNext.refresh_token)));
    expect(await purgeEndedFamilies(server.db)).toBe(0);
  });

  it('a housekeeping round deletes the tokens of ended sign-ins and reports it', async () => {
    const ended = await signIn();
    await server.db
      .update(refreshTokens)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(refreshTokens.tokenHash, sha256(ended.refresh_token)));
    const messages: string[] = [];
    await runHousekeeping(server.db, { log: (m) => messages.push(m) });
    expect(messages.some((m) => /deleted \d+ refresh tokens of ended sign-ins/.test(m))).toBe(true);
    const rows = await server.db
      .select()
      .from(refreshTokens)
      .where(eq(refreshTokens.tokenHash, sha256(ended.refresh_token)));
    expect(rows).toEqual([]);
  });
});
