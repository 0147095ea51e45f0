// Issue 17's probes that got a 500 or a header they should not have: each case failed before its fix.
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccessTokens } from '@server/auth/access-token';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createWorkspace, type Person } from '@test/support/workspaces.fixtures';

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
    const userId = '8d3b7a52-6c0e-4a8e-9f4e-2b1f0c9d7e61';
    const signInId = '0b6c1f0e-2d4a-4f7e-8a59-3c2e1d0f9b87';
    expect(await tokens.verify(await tokens.sign(userId, signInId))).toEqual({ userId, signInId });
  });

  it('answers 401 to a validly signed access token that names no sign-in', async () => {
    const key = randomBytes(32);
    const tokens = createAccessTokens(key, 600);
    const claims = (sid?: unknown) =>
      new SignJWT(sid === undefined ? {} : { sid })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(viewer.id)
        .setIssuer('murmur')
        .setAudience('murmur-api')
        .setExpirationTime('600s')
        .sign(key);
    for (const sid of [undefined, 'not-a-uuid', 42])
      expect(await tokens.verify(await claims(sid))).toBeNull();
  });
});

describe('text PostgreSQL cannot store', () => {
  // NUL ends a C string (PostgreSQL refuses it); a lone surrogate is not Unicode (it used to be saved as U+FFFD).
  const BAD = ['Acme\u0000Corp', 'Acme \ud800', '\udfff'];

  it('refuses it in every text field with a 400 naming the field, and stores nothing', async () => {
    const owner = await server.createUser();
    const own = (await createWorkspace(server, [[owner, 'owner']])).id;
    for (const bad of BAD) {
      const attempts = [
        { method: 'POST', url: '/api/workspaces', payload: { name: bad, language: 'en' }, field: 'name' },
        { method: 'PATCH', url: `/api/workspaces/${own}`, payload: { name: bad }, field: 'name' },
        { method: 'PATCH', url: '/api/users/me', payload: { first_name: bad }, field: 'first_name' },
        {
          method: 'POST',
          url: `/api/workspaces/${own}/saved-queries`,
          payload: { name: bad, query: 'nova' },
          field: 'name',
        },
        {
          method: 'POST',
          url: '/social/query/validate',
          payload: { workspace_id: bad, query: 'nova' },
          field: 'workspace_id',
        },
      ] as const;
      for (const { field, ...request } of attempts) {
        const res = await as(server, owner, request);
        expect(res.statusCode, `${request.method} ${request.url} ${JSON.stringify(bad)}`).toBe(400);
        expect(res.json().fields.map((f: { path: string }) => f.path)).toContain(field);
      }
    }
    // Surrogate pairs (emoji beyond the BMP) and other scripts are ordinary text.
    const good = await as(server, owner, {
      method: 'POST',
      url: '/api/workspaces',
      payload: { name: '🚀 Équipe 東京 𠮷', language: 'en' },
    });
    expect(good.statusCode).toBe(201);
    expect(good.json().name).toBe('🚀 Équipe 東京 𠮷');
    const res = await as(server, owner, { method: 'GET', url: '/api/workspaces/%00' });
    expect(res.statusCode).toBe(400);
    const names = await as(server, owner, { method: 'GET', url: `/api/workspaces/${own}` });
    expect(names.json().name).not.toMatch(/\uFFFD/);
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

describe('what a 500 writes to the log', () => {
  it('logs an error id, the route and a fingerprint of the statement, never its text, parameters or message', async () => {
    const { Writable } = await import('node:stream');
    const { sql } = await import('drizzle-orm');
    const { buildApp } = await import('@server/app');
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const app = await buildApp({
      db: server.db,
      config: server.config,
      accessTokens: server.accessTokens,
      logger: { level: 'warn', stream },
    });
    const SECRET = 'user-typed-4f1c9e';
    app.get('/api/probe/:value', async (request) => {
      const { value } = request.params as { value: string };
      return server.db.execute(sql`SELECT ${value}::int AS n`);
    });
    await app.ready();
    try {
      const res = await app.inject({ method: 'GET', url: `/api/probe/${SECRET}` });
      expect(res.statusCode).toBe(500);
      const { message } = res.json();
      const errorId = /error ([0-9a-f]{12})/.exec(message)?.[1];
      expect(errorId, message).toBeDefined();
      const log = lines.join('');
      expect(log).toContain(errorId);
      expect(log).toContain('/api/probe/:value');
      expect(log).toMatch(/"sqlstate":"22P02"/);
      expect(log).toMatch(/"statement":"[0-9a-f]{12}"/);
      expect(log).not.toContain(SECRET);
      expect(log).not.toContain('SELECT');
    } finally {
      await app.close();
    }
  });
});
