// Issue 17's probes that got a 500 or a header they should not have: each case failed before its fix.
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccessTokens } from '../../server/auth/access-token';
import { createTestServer, type TestServer } from '../support/server-harness';
import { as, createWorkspace, type Person } from '../support/workspaces.fixtures';

let server: TestServer;
let viewer: Person;
let workspaceId: string;

beforeAll(async () => {
  server = await createTestServer();
  viewer = await server.createUser();
  workspaceId = (await createWorkspace(server, [[viewer, 'viewer']])).id;
});
afterAll(() => server.close());

describe('bad input that used to crash a request', () => {
  it('bounds a followers refinement to what the database counts (a 400, not a 500)', async () => {
    for (const bound of [{ min: 2_147_483_648 }, { max: Number.MAX_SAFE_INTEGER }]) {
      const res = await as(server, viewer, {
        method: 'POST',
        url: '/social/insights/overview',
        payload: { workspace_id: workspaceId, query: '', refine: [{ field: 'followers', values: [bound] }] },
      });
      expect(res.statusCode, JSON.stringify(bound)).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_request' });
    }
    const ok = await as(server, viewer, {
      method: 'POST',
      url: '/social/insights/overview',
      payload: {
        workspace_id: workspaceId,
        query: '',
        refine: [{ field: 'followers', values: [{ min: 0, max: 2_147_483_647 }] }],
      },
    });
    expect(ok.statusCode).toBe(200);
  });

  it('answers 401 to a validly signed access token whose subject is not a user id', async () => {
    const key = randomBytes(32);
    const tokens = createAccessTokens(key, 600);
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject('not-a-uuid')
      .setIssuer('murmur')
      .setAudience('murmur-api')
      .setExpirationTime('600s')
      .sign(key);
    expect(await tokens.verify(forged)).toBeNull();
    expect(await tokens.verify(await tokens.sign('8d3b7a52-6c0e-4a8e-9f4e-2b1f0c9d7e61'))).toBe(
      '8d3b7a52-6c0e-4a8e-9f4e-2b1f0c9d7e61',
    );
  });
});

describe('headers and documentation', () => {
  it('marks social API answers no-store, as the internal API', async () => {
    const res = await as(server, viewer, {
      method: 'POST',
      url: '/social/query/validate',
      payload: { workspace_id: workspaceId, query: 'nova' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('serves the OpenAPI page outside prod, and in prod only when API_DOCS turns it on', async () => {
    expect((await server.app.inject({ method: 'GET', url: '/api/docs/json' })).statusCode).toBe(200);
    const prod = await createTestServer({ APP_ENV: 'prod' });
    const prodOn = await createTestServer({ APP_ENV: 'prod', API_DOCS: 'true' });
    try {
      for (const url of ['/api/docs', '/api/docs/json']) {
        expect((await prod.app.inject({ method: 'GET', url })).statusCode, url).toBe(404);
      }
      expect((await prodOn.app.inject({ method: 'GET', url: '/api/docs/json' })).statusCode).toBe(200);
    } finally {
      await prod.close();
      await prodOn.close();
    }
  });
});
