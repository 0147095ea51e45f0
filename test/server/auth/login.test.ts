import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { identities, loginNonces } from '@server/db/schema';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import {
  claimsFor,
  findUser,
  getNonce,
  login,
  postLogin,
  startFakeVendors,
  TENANT,
  type FakeVendors,
  type Vendor,
} from '@test/support/auth.fixtures';

let server: TestServer;
let vendors: FakeVendors;

beforeAll(async () => {
  vendors = await startFakeVendors();
  server = await createTestServer({
    ...vendors.env,
    STAFF_EMAILS: ' Boss@Example.com , chief@example.com',
    LOGIN_RATE_LIMIT_PER_MINUTE: '10000',
  });
});
afterAll(async () => {
  await server.close();
  await vendors.close();
});

const userOf = (accessToken: string) => findUser(server, accessToken);

async function expectRejected(response: Awaited<ReturnType<typeof postLogin>>, message?: RegExp) {
  expect(response.statusCode).toBe(401);
  const body = response.json<{ error: string; message: string }>();
  expect(body.error).toBe('invalid_id_token');
  if (message) expect(body.message).toMatch(message);
  expect(response.body).not.toMatch(/eyJ/);
}

describe('auth/nonce', () => {
  it('hands out a fresh random nonce each time, valid for a short while', async () => {
    const [a, b] = [await getNonce(server.app), await getNonce(server.app)];
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    const [row] = await server.db
      .select({ minutes: sql<number>`extract(epoch from ${loginNonces.expiresAt} - now()) / 60` })
      .from(loginNonces)
      .where(eq(loginNonces.nonce, a));
    expect(Number(row!.minutes)).toBeGreaterThan(9);
    expect(Number(row!.minutes)).toBeLessThanOrEqual(10);
  });
});

describe.each<Vendor>(['google', 'microsoft'])('auth/login with %s', (vendor) => {
  it('creates the user and identity on the first sign-in and finds them on the next', async () => {
    const claims = claimsFor(vendor);
    const first = await login(server.app, vendors, vendor, claims);
    expect(first.statusCode).toBe(200);
    const tokens = first.json<{ access_token: string; refresh_token: string }>();
    expect(Object.keys(tokens).sort()).toEqual(['access_token', 'refresh_token']);
    expect(tokens.refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const user = await userOf(tokens.access_token);
    expect(user).toMatchObject({
      email: claims.email,
      firstName: 'Ada',
      lastName: 'Lovelace',
      isStaff: false,
    });
    const links = await server.db.select().from(identities).where(eq(identities.userId, user.id));
    expect(links).toEqual([
      expect.objectContaining({ vendor, subject: claims.sub, tenant: vendor === 'microsoft' ? TENANT : '' }),
    ]);

    const second = await login(server.app, vendors, vendor, { ...claims, email: 'renamed@example.com' });
    expect(second.statusCode).toBe(200);
    expect((await userOf(second.json<{ access_token: string }>().access_token)).id).toBe(user.id);
  });

  it('tells people apart by subject, not by e-mail', async () => {
    const email = `shared-${vendor}@example.com`;
    const a = await login(server.app, vendors, vendor, claimsFor(vendor, { email }));
    const b = await login(server.app, vendors, vendor, claimsFor(vendor, { email }));
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    const [userA, userB] = [await userOf(a.json().access_token), await userOf(b.json().access_token)];
    expect(userA.id).not.toBe(userB.id);
    expect([userA.email, userB.email]).toEqual([email, email]);
  });

  it('rejects a token for another audience', async () => {
    await expectRejected(
      await login(server.app, vendors, vendor, claimsFor(vendor, { aud: 'someone-else' })),
      /another application/,
    );
  });

  it('rejects a token from another issuer', async () => {
    await expectRejected(
      await login(server.app, vendors, vendor, claimsFor(vendor, { iss: 'https://evil.example.com' })),
      /issuer/,
    );
  });

  it('rejects an expired token', async () => {
    await expectRejected(
      await login(server.app, vendors, vendor, claimsFor(vendor), { expiresIn: -120 }),
      /expired/,
    );
  });

  it('rejects a token signed with a key the vendor never published', async () => {
    await expectRejected(
      await login(server.app, vendors, vendor, claimsFor(vendor), { forged: true }),
      /not signed/,
    );
  });

  it('rejects a token without a nonce, with a nonce the server never issued, or with one already used', async () => {
    const claims = claimsFor(vendor);
    const noNonce = await vendors.sign(vendor, claims);
    await expectRejected(await postLogin(server.app, { oauth_token: noNonce, vendor_type: vendor }), /nonce/);

    const madeUp = await vendors.sign(vendor, { ...claims, nonce: 'A'.repeat(43) });
    await expectRejected(
      await postLogin(server.app, { oauth_token: madeUp, vendor_type: vendor }),
      /Sign in again/,
    );

    const token = await vendors.sign(vendor, { ...claims, nonce: await getNonce(server.app) });
    expect((await postLogin(server.app, { oauth_token: token, vendor_type: vendor })).statusCode).toBe(200);
    await expectRejected(await postLogin(server.app, { oauth_token: token, vendor_type: vendor }));
  });

  it('rejects a nonce that has expired', async () => {
    const nonce = await getNonce(server.app);
    await server.db
      .update(loginNonces)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(loginNonces.nonce, nonce));
    const token = await vendors.sign(vendor, { ...claimsFor(vendor), nonce });
    await expectRejected(await postLogin(server.app, { oauth_token: token, vendor_type: vendor }));
  });

  it('rejects a token of the other vendor', async () => {
    const other: Vendor = vendor === 'google' ? 'microsoft' : 'google';
    const nonce = await getNonce(server.app);
    const token = await vendors.sign(other, { ...claimsFor(other), nonce });
    await expectRejected(await postLogin(server.app, { oauth_token: token, vendor_type: vendor }));
  });

  it('rejects something that is not a JWT', async () => {
    await expectRejected(await postLogin(server.app, { oauth_token: 'not-a-token', vendor_type: vendor }));
  });
});

describe('auth/login, vendor specifics', () => {
  it('accepts both spellings of the Google issuer', async () => {
    const res = await login(
      server.app,
      vendors,
      'google',
      claimsFor('google', { iss: 'accounts.google.com' }),
    );
    expect(res.statusCode).toBe(200);
  });

  it("requires Microsoft's issuer to name the token's own tenant", async () => {
    const otherTenant = '9188040d-6c67-4c5b-b112-36a304b66dad';
    await expectRejected(
      await login(server.app, vendors, 'microsoft', claimsFor('microsoft', { tid: otherTenant })),
      /issuer/,
    );
    await expectRejected(
      await login(server.app, vendors, 'microsoft', claimsFor('microsoft', { tid: undefined })),
      /tenant/,
    );
    const matching = claimsFor('microsoft', {
      tid: otherTenant,
      iss: `https://login.microsoftonline.com/${otherTenant}/v2.0`,
    });
    expect((await login(server.app, vendors, 'microsoft', matching)).statusCode).toBe(200);
  });

  it('keeps one subject in two Microsoft tenants apart', async () => {
    const otherTenant = '11111111-2222-3333-4444-555555555555';
    const here = claimsFor('microsoft');
    const there = { ...here, tid: otherTenant, iss: `https://login.microsoftonline.com/${otherTenant}/v2.0` };
    const a = await login(server.app, vendors, 'microsoft', here);
    const b = await login(server.app, vendors, 'microsoft', there);
    expect((await userOf(a.json().access_token)).id).not.toBe((await userOf(b.json().access_token)).id);
  });

  it("takes Microsoft's preferred_username when the token has no email claim", async () => {
    const claims = claimsFor('microsoft', { email: undefined, preferred_username: 'ada@contoso.example' });
    const res = await login(server.app, vendors, 'microsoft', claims);
    expect((await userOf(res.json().access_token)).email).toBe('ada@contoso.example');
    await expectRejected(
      await login(server.app, vendors, 'microsoft', claimsFor('microsoft', { email: undefined })),
      /e-mail/,
    );
  });

  it('makes listed e-mail addresses staff, ignoring case, but only when the vendor verified them', async () => {
    const boss = await login(
      server.app,
      vendors,
      'google',
      claimsFor('google', { email: 'boss@example.COM' }),
    );
    expect((await userOf(boss.json().access_token)).isStaff).toBe(true);

    const unverified = claimsFor('google', { email: 'chief@example.com', email_verified: false });
    const pretender = await login(server.app, vendors, 'google', unverified);
    expect((await userOf(pretender.json().access_token)).isStaff).toBe(false);

    const msClaims = claimsFor('microsoft', { email: 'chief@example.com' });
    const unvouched = await login(server.app, vendors, 'microsoft', msClaims);
    expect((await userOf(unvouched.json().access_token)).isStaff).toBe(false);
    const vouched = await login(server.app, vendors, 'microsoft', { ...msClaims, xms_edov: true });
    expect((await userOf(vouched.json().access_token)).isStaff).toBe(true);
  });
});
