// What reaches the browser compressed: the SPA's files as the build compressed them (brotli or gzip, whichever the
// client accepts, with Vary; the original without Accept-Encoding), hashed assets cached for a year and index.html
// never; API answers above 1 KB compressed on the fly, small ones sent as they are.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '@test/support/server-harness';

let server: TestServer;
let spaDir: string;
const script = `console.log(${JSON.stringify('murmur '.repeat(2000))});`;
const html = `<!doctype html><html><head><script type="module" src="/assets/index-abc123.js"></script></head><body>${'<!-- padding -->'.repeat(100)}</body></html>`;

beforeAll(async () => {
  spaDir = mkdtempSync(join(tmpdir(), 'murmur-spa-'));
  mkdirSync(join(spaDir, 'assets'));
  // As scripts/vite-precompress.ts leaves a build: each text file with its .br and .gz beside it.
  for (const [name, content] of [
    ['index.html', html],
    ['assets/index-abc123.js', script],
  ] as const) {
    writeFileSync(join(spaDir, name), content);
    writeFileSync(join(spaDir, `${name}.br`), brotliCompressSync(content));
    writeFileSync(join(spaDir, `${name}.gz`), gzipSync(content));
  }
  server = await createTestServer({ API_DOCS: 'true' }, { spaDir });
});
afterAll(async () => {
  await server?.close();
  rmSync(spaDir, { recursive: true, force: true });
});

const get = (url: string, encoding?: string) =>
  server.app.inject({ method: 'GET', url, headers: encoding ? { 'accept-encoding': encoding } : {} });

describe('compression', () => {
  it('sends a hashed asset as the build compressed it, cached for a year', async () => {
    const br = await get('/assets/index-abc123.js', 'gzip, deflate, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(script);
    expect(br.rawPayload.length).toBeLessThan(script.length / 10);

    const gz = await get('/assets/index-abc123.js', 'gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(script);

    const plain = await get('/assets/index-abc123.js');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(script);
  });

  it('sends index.html compressed and never cached, for the app’s own paths too', async () => {
    for (const url of ['/', '/login', '/workspace/demo/insight/overview']) {
      const res = await get(url, 'br');
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-encoding'], url).toBe('br');
      expect(res.headers['cache-control'], url).toBe('no-cache');
      expect(brotliDecompressSync(res.rawPayload).toString(), url).toBe(html);
    }
  });

  it('compresses API answers above 1 KB and leaves small ones alone', async () => {
    const docs = await get('/api/docs/json', 'gzip');
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-encoding']).toBe('gzip');
    const document = JSON.parse(gunzipSync(docs.rawPayload).toString()) as { openapi: string };
    expect(document.openapi).toMatch(/^3\./);

    const small = await get('/api/no/such/thing', 'gzip, br');
    expect(small.statusCode).toBe(404);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.json()).toMatchObject({ error: 'not_found' });
  });
});

describe("the sign-in screen's own page", () => {
  const login = `<!doctype html><html><body><div id="root"></div><div id="prerendered">${'<p>Sign in</p>'.repeat(100)}</div></body></html>`;
  let withLogin: TestServer;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'murmur-spa-login-'));
    for (const [name, content] of [
      ['index.html', html],
      ['login.html', login],
    ] as const) {
      writeFileSync(join(dir, name), content);
      writeFileSync(join(dir, `${name}.br`), brotliCompressSync(content));
      writeFileSync(join(dir, `${name}.gz`), gzipSync(content));
    }
    withLogin = await createTestServer({}, { spaDir: dir });
  });
  afterAll(async () => {
    await withLogin?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends the build’s login.html for /login, whatever its query, compressed and never cached', async () => {
    for (const url of ['/login', '/login?token=abc']) {
      const res = await withLogin.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'br' } });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type'], url).toBe('text/html; charset=utf-8');
      expect(res.headers['content-encoding'], url).toBe('br');
      expect(res.headers['cache-control'], url).toBe('no-cache');
      expect(brotliDecompressSync(res.rawPayload).toString(), url).toBe(login);
    }
  });

  it('sends index.html for every other page, the other sign-in screens included', async () => {
    for (const url of ['/', '/login/microsoft', '/login/callback', '/workspace/demo/saved-queries']) {
      const res = await withLogin.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).toBe(html);
    }
  });
});

describe("the dashboards' shell pages", () => {
  const shell = (name: string) =>
    `<!doctype html><html><body><div id="root"></div><div id="prerendered" data-shell="">${`<h1>${name}</h1>`.repeat(50)}</div></body></html>`;
  let withShells: TestServer;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'murmur-spa-shells-'));
    for (const [name, content] of [
      ['index.html', html],
      ['shell-overview.html', shell('Overview')],
      ['shell-people.html', shell('People')],
    ] as const) {
      writeFileSync(join(dir, name), content);
      writeFileSync(join(dir, `${name}.br`), brotliCompressSync(content));
      writeFileSync(join(dir, `${name}.gz`), gzipSync(content));
    }
    withShells = await createTestServer({}, { spaDir: dir });
  });
  afterAll(async () => {
    await withShells?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends a dashboard’s shell for its address (the overview’s for /insight), whatever the query, never cached', async () => {
    for (const [url, name] of [
      ['/workspace/demo/insight/overview', 'Overview'],
      ['/workspace/demo/insight/overview?range=30d', 'Overview'],
      ['/workspace/other/insight', 'Overview'],
      ['/workspace/demo/insight/people', 'People'],
    ] as const) {
      const res = await withShells.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'br' } });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type'], url).toBe('text/html; charset=utf-8');
      expect(res.headers['content-encoding'], url).toBe('br');
      expect(res.headers['cache-control'], url).toBe('no-cache');
      expect(brotliDecompressSync(res.rawPayload).toString(), url).toBe(shell(name));
    }
  });

  it('sends index.html for a dashboard without a shell and for every other page', async () => {
    for (const url of [
      '/workspace/demo/insight/posts',
      '/workspace/demo/insight/no-such-page',
      '/workspace/demo/saved-queries',
      '/login',
    ]) {
      const res = await withShells.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).toBe(html);
    }
  });
});
