import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { startFakeVendors, type FakeVendors } from '@test/support/auth.fixtures';

let server: TestServer;
let vendors: FakeVendors;

beforeAll(async () => {
  vendors = await startFakeVendors();
  server = await createTestServer({
    ...vendors.env,
    LOGIN_RATE_LIMIT_PER_MINUTE: '3',
    REFRESH_RATE_LIMIT_PER_MINUTE: '2',
  });
});
afterAll(async () => {
  await server.close();
  await vendors.close();
});

async function statuses(url: string, count: number, payload?: object) {
  const codes: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const res = await server.app.inject({ method: 'POST', url, ...(payload ? { payload } : {}) });
    codes.push(res.statusCode);
    if (res.statusCode === 429) {
      expect(res.json()).toMatchObject({
        error: 'rate_limited',
        message: expect.stringMatching(/Try again/),
      });
      expect(res.headers['retry-after']).toBeDefined();
    }
  }
  return codes;
}

describe('auth rate limits', () => {
  it('limits auth/nonce per client', async () => {
    expect(await statuses('/api/auth/nonce', 4)).toEqual([200, 200, 200, 429]);
  });

  it('limits auth/login per client, counting failed attempts too', async () => {
    const body = { oauth_token: 'x.y.z', vendor_type: 'google' };
    expect(await statuses('/api/auth/login', 4, body)).toEqual([401, 401, 401, 429]);
  });

  it('limits auth/refresh per client', async () => {
    expect(await statuses('/api/auth/refresh', 3)).toEqual([401, 401, 429]);
  });

  it('leaves routes outside auth unlimited', async () => {
    const codes = await statuses('/api/no/such/thing', 5);
    expect(codes.every((code) => code === 404)).toBe(true);
  });
});
