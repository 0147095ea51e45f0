// Stand-ins for Google and Microsoft in the auth tests: their key sets served from 127.0.0.1, and ID tokens signed
// with their keys (or with a stranger's key, for forgeries).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import type { FastifyInstance } from 'fastify';
import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { users } from '@server/db/schema';
import type { TestServer } from './server-harness';

const GOOGLE_CLIENT_ID = 'murmur-google-client';
const MICROSOFT_CLIENT_ID = 'murmur-microsoft-client';
export const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
export type Vendor = 'google' | 'microsoft';

export interface SignOptions {
  /** Sign with a key the vendor never published, under the vendor's key id. */
  forged?: boolean;
  /** Seconds from now; negative for a token that has expired. */
  expiresIn?: number;
}

export async function startFakeVendors() {
  const keys = {
    google: await generateKeyPair('RS256'),
    microsoft: await generateKeyPair('RS256'),
    stranger: await generateKeyPair('RS256'),
  };
  const published = async (vendor: Vendor) => ({
    keys: [{ ...(await exportJWK(keys[vendor].publicKey)), kid: `${vendor}-1`, alg: 'RS256', use: 'sig' }],
  });
  const jwks: Record<string, unknown> = {
    '/google/keys': await published('google'),
    '/microsoft/keys': await published('microsoft'),
  };
  const server = createServer((request, response) => {
    const body = jwks[request.url ?? ''];
    response.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body ?? { error: 'not found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  function sign(vendor: Vendor, claims: JWTPayload, options: SignOptions = {}) {
    const key: CryptoKey = options.forged ? keys.stranger.privateKey : keys[vendor].privateKey;
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: `${vendor}-1`, typ: 'JWT' })
      .setIssuedAt(now - 60)
      .setExpirationTime(now + (options.expiresIn ?? 300))
      .sign(key);
  }

  return {
    env: {
      GOOGLE_CLIENT_ID,
      GOOGLE_JWKS_URL: `${base}/google/keys`,
      MICROSOFT_CLIENT_ID,
      MICROSOFT_JWKS_URL: `${base}/microsoft/keys`,
    },
    sign,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type FakeVendors = Awaited<ReturnType<typeof startFakeVendors>>;

/** The claims a real vendor puts into an ID token for a fresh person. */
export function claimsFor(vendor: Vendor, overrides: JWTPayload = {}): JWTPayload {
  const sub = randomBytes(8).toString('hex');
  const person = { sub, email: `${sub}@example.com`, given_name: 'Ada', family_name: 'Lovelace' };
  return vendor === 'google'
    ? {
        iss: 'https://accounts.google.com',
        aud: GOOGLE_CLIENT_ID,
        email_verified: true,
        ...person,
        ...overrides,
      }
    : {
        iss: `https://login.microsoftonline.com/${TENANT}/v2.0`,
        aud: MICROSOFT_CLIENT_ID,
        tid: TENANT,
        ...person,
        ...overrides,
      };
}

export async function getNonce(app: FastifyInstance): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/api/auth/nonce' });
  if (res.statusCode !== 200) throw new Error(`nonce: ${res.statusCode} ${res.body}`);
  return res.json<{ nonce: string }>().nonce;
}

export function postLogin(app: FastifyInstance, payload: unknown) {
  return app.inject({ method: 'POST', url: '/api/auth/login', payload: payload as object });
}

/** A full sign-in: fetch a nonce, let the vendor sign it into an ID token, post the token. */
export async function login(
  app: FastifyInstance,
  vendors: FakeVendors,
  vendor: Vendor,
  claims: JWTPayload = claimsFor(vendor),
  options: SignOptions = {},
) {
  const nonce = await getNonce(app);
  const token = await vendors.sign(vendor, { nonce, ...claims }, options);
  return postLogin(app, { oauth_token: token, vendor_type: vendor });
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The user an access token stands for, straight from the database. */
export async function findUser(server: TestServer, accessToken: string) {
  const claims = await server.accessTokens.verify(accessToken);
  expect(claims).not.toBeNull();
  const [user] = await server.db.select().from(users).where(eq(users.id, claims!.userId));
  return user!;
}
