// An access token ends with its sign-in: sign-out and a refresh token's reuse end it at once, in every server process,
// not when it expires.
import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { bearer, login, startFakeVendors, type FakeVendors } from '@test/support/auth.fixtures';

interface Pair {
  access_token: string;
  refresh_token: string;
}

const limits = { LOGIN_RATE_LIMIT_PER_MINUTE: '10000', REFRESH_RATE_LIMIT_PER_MINUTE: '10000' };
let vendors: FakeVendors;
/** Two processes of one deployment: the same database and signing key. */
let server: TestServer;
let other: TestServer;

beforeAll(async () => {
  vendors = await startFakeVendors();
  const signingKey = randomBytes(32);
  // Long enough that only the signal between processes can end a token within a test's time.
  const env = { ...vendors.env, ...limits, SIGN_IN_STATE_MAX_AGE_SECONDS: '60' };
  server = await createTestServer(env, { signingKey });
  other = await createTestServer(env, { signingKey, databaseUrl: server.databaseUrl });
});
afterAll(async () => {
  await other?.close();
  await server?.close();
  await vendors.close();
});

async function signIn(): Promise<Pair> {
  const res = await login(server.app, vendors, 'google');
  expect(res.statusCode).toBe(200);
  return res.json<Pair>();
}
const me = (on: TestServer, token: string) =>
  on.app.inject({ method: 'GET', url: '/api/users/me', headers: bearer(token) });
const post = (url: string, token: string) =>
  server.app.inject({ method: 'POST', url, headers: bearer(token) });
const sha256 = (token: string) => createHash('sha256').update(token).digest('base64url');

describe('an access token after its sign-in ended', () => {
  it('is refused at once after sign-out, while another sign-in of the same person keeps working', async () => {
    const pair = await signIn();
    const second = await signIn();
    expect((await me(server, pair.access_token)).statusCode).toBe(200);
    expect((await post('/api/auth/logout', pair.refresh_token)).statusCode).toBe(204);
    const res = await me(server, pair.access_token);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error: 'unauthorized' });
    expect((await me(server, second.access_token)).statusCode).toBe(200);
  });

  it('is refused once its sign-in was revoked for a refresh token presented again', async () => {
    const first = await signIn();
    const next = (await post('/api/auth/refresh', first.refresh_token)).json<Pair>();
    expect((await me(server, next.access_token)).statusCode).toBe(200);
    // Past the grace period, as time passing would do it.
    await server.db.execute(sql`UPDATE refresh_tokens SET rotated_at = rotated_at - interval '1 hour'
      WHERE token_hash = ${sha256(first.refresh_token)}`);
    expect((await post('/api/auth/refresh', first.refresh_token)).statusCode).toBe(401);
    expect((await me(server, next.access_token)).statusCode).toBe(401);
    expect((await me(server, first.access_token)).statusCode).toBe(401);
  });

  it('is refused by the other processes too, which had accepted it before', async () => {
    const pair = await signIn();
    expect((await me(other, pair.access_token)).statusCode).toBe(200);
    expect((await post('/api/auth/logout', pair.refresh_token)).statusCode).toBe(204);
    await vi.waitFor(async () => expect((await me(other, pair.access_token)).statusCode).toBe(401), {
      timeout: 10_000,
      interval: 50,
    });
  });

  it('is refused when its sign-in has reached its end', async () => {
    const pair = await signIn();
    await server.db.execute(sql`UPDATE refresh_tokens SET expires_at = now() - interval '1 second'
      WHERE token_hash = ${sha256(pair.refresh_token)}`);
    // A process that has not seen the token yet reads its sign-in's state.
    expect((await me(other, pair.access_token)).statusCode).toBe(401);
  });

  it('works in another process that never saw its sign-in, and after a refresh', async () => {
    const pair = await signIn();
    expect((await me(other, pair.access_token)).statusCode).toBe(200);
    const next = (await post('/api/auth/refresh', pair.refresh_token)).json<Pair>();
    expect((await me(other, next.access_token)).statusCode).toBe(200);
    expect((await me(server, pair.access_token)).statusCode).toBe(200);
  });
});
