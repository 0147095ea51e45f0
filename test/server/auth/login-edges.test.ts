import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { identities, users } from '@server/db/schema';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import {
  claimsFor,
  findUser,
  getNonce,
  login,
  postLogin,
  startFakeVendors,
  type FakeVendors,
} from '@test/support/auth.fixtures';

let server: TestServer;
let vendors: FakeVendors;

beforeAll(async () => {
  vendors = await startFakeVendors();
  server = await createTestServer({ ...vendors.env, LOGIN_RATE_LIMIT_PER_MINUTE: '10000' });
});
afterAll(async () => {
  await server.close();
  await vendors.close();
});

const userOf = (accessToken: string) => findUser(server, accessToken);

describe('auth/login under concurrency', () => {
  // Open several pooled connections first, so the requests below really overlap in the database.
  const warmPool = () =>
    Promise.all(Array.from({ length: 8 }, () => server.db.execute(sql`select pg_sleep(0.05)`)));

  it('spends a nonce once even when the same token arrives several times at once', async () => {
    const token = await vendors.sign('google', { ...claimsFor('google'), nonce: await getNonce(server.app) });
    await warmPool();
    const results = await Promise.all(
      Array.from({ length: 4 }, () => postLogin(server.app, { oauth_token: token, vendor_type: 'google' })),
    );
    expect(results.map((res) => res.statusCode).sort()).toEqual([200, 401, 401, 401]);
  });

  it("makes one user of one person's simultaneous first sign-ins", async () => {
    const claims = claimsFor('microsoft');
    const tokens = await Promise.all(
      Array.from({ length: 4 }, async () =>
        vendors.sign('microsoft', { ...claims, nonce: await getNonce(server.app) }),
      ),
    );
    await warmPool();
    const results = await Promise.all(
      tokens.map((token) => postLogin(server.app, { oauth_token: token, vendor_type: 'microsoft' })),
    );
    expect(results.map((res) => res.statusCode)).toEqual([200, 200, 200, 200]);
    const ids = await Promise.all(results.map(async (res) => (await userOf(res.json().access_token)).id));
    expect(new Set(ids).size).toBe(1);
    const rows = await server.db
      .select()
      .from(users)
      .where(eq(users.email, claims.email as string));
    expect(rows).toHaveLength(1);
  });
});

describe('auth/login request validation', () => {
  it('answers 400 for an unknown vendor_type', async () => {
    const res = await postLogin(server.app, { oauth_token: 'x.y.z', vendor_type: 'facebook' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      error: 'invalid_request',
      fields: [expect.objectContaining({ path: 'vendor_type' })],
    });
  });

  it('answers 400 with every field that is wrong', async () => {
    const res = await postLogin(server.app, { oauth_token: '', extra: 1 });
    expect(res.statusCode).toBe(400);
    const paths = res.json<{ fields: { path: string }[] }>().fields.map((field) => field.path);
    expect(paths).toEqual(expect.arrayContaining(['oauth_token', 'vendor_type']));
  });
});

describe('auth/login with an unconfigured vendor', () => {
  it('answers 503 rather than skipping the audience check', async () => {
    const bare = await createTestServer({ ...vendors.env, GOOGLE_CLIENT_ID: '' });
    try {
      const res = await login(bare.app, vendors, 'google');
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ error: 'sign_in_unavailable' });
    } finally {
      await bare.close();
    }
  });
});

describe('auth/login when the vendor cannot be reached', () => {
  it('answers 503, not 401: the token may well be fine', async () => {
    const unreachable = await createTestServer({
      ...vendors.env,
      GOOGLE_JWKS_URL: vendors.env.GOOGLE_JWKS_URL.replace('/google/keys', '/missing'),
    });
    try {
      const res = await login(unreachable.app, vendors, 'google');
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ error: 'sign_in_unavailable' });
    } finally {
      await unreachable.close();
    }
  });
});

describe('a development OpenID provider standing in for the vendors', () => {
  it('is accepted through configuration alone, with its own issuer and no tenants', async () => {
    const issuer = 'http://localhost:8787/oidc';
    const dev = await createTestServer({
      ...vendors.env,
      GOOGLE_ISSUERS: issuer,
      MICROSOFT_ISSUER_TEMPLATE: issuer,
      LOGIN_RATE_LIMIT_PER_MINUTE: '10000',
    });
    try {
      const google = await login(dev.app, vendors, 'google', claimsFor('google', { iss: issuer }));
      expect(google.statusCode).toBe(200);
      const asMicrosoft = claimsFor('microsoft', { iss: issuer, tid: undefined });
      const microsoft = await login(dev.app, vendors, 'microsoft', asMicrosoft);
      expect(microsoft.statusCode).toBe(200);
      const [link] = await dev.db.select().from(identities).where(eq(identities.subject, asMicrosoft.sub!));
      expect(link).toMatchObject({ vendor: 'microsoft', tenant: '' });
      const realGoogle = claimsFor('google', { iss: 'https://accounts.google.com' });
      expect((await login(dev.app, vendors, 'google', realGoogle)).statusCode).toBe(401);
    } finally {
      await dev.close();
    }
  });
});

describe('OpenAPI document', () => {
  it('lists the auth routes under the auth tag', async () => {
    const doc = (await server.app.inject({ method: 'GET', url: '/api/docs/json' })).json<{
      paths: Record<string, { post?: { tags?: string[] } }>;
    }>();
    for (const path of ['/api/auth/nonce', '/api/auth/login', '/api/auth/refresh', '/api/auth/logout']) {
      expect(doc.paths[path]?.post?.tags).toEqual(['auth']);
    }
  });
});
