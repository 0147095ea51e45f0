// `npm start`: builds the SPA when its build is missing or stale, then serves it on one port with history fallback.
// (The API server joins this process with the server issue; until then only the SPA is served.)
import { createReadStream, existsSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve } from 'node:path';
import { build, loadEnv } from 'vite';

const root = resolve(import.meta.dirname, '..');
const dist = join(root, 'dist');
const port = Number(process.env.PORT ?? 8787);

function newestMtime(path: string): number {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return Math.max(stats.mtimeMs, ...readdirSync(path).map((entry) => newestMtime(join(path, entry))));
}

function buildIsStale(): boolean {
  const index = join(dist, 'index.html');
  if (!existsSync(index)) return true;
  const sources = ['src', 'public', 'index.html', 'vite.config.ts', '.env', 'package-lock.json']
    .map((p) => join(root, p))
    .filter(existsSync);
  return Math.max(...sources.map(newestMtime)) > statSync(index).mtimeMs;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.map': 'application/json',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

function securityHeaders(connectOrigins: string[]): Record<string, string> {
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    // react-toastify injects its stylesheet at run time.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: https:",
    `connect-src 'self' ${connectOrigins.join(' ')}`.trim(),
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
  ].join('; ');
  return {
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
  };
}

async function main() {
  if (buildIsStale()) {
    console.log('Building the SPA…');
    await build({ root, logLevel: 'warn' });
  }
  const env = loadEnv('production', root, 'VITE_');
  const origins = [
    env.VITE_API_BASE_URL,
    env.VITE_SOCIAL_API_BASE_URL,
    env.VITE_PAYMENT_SERVER_URL,
    env.VITE_SENTRY_DSN,
  ]
    .filter((u): u is string => Boolean(u))
    .map((u) => new URL(u).origin);
  const headers = securityHeaders([...new Set(origins)]);

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...headers, allow: 'GET, HEAD' }).end();
      return;
    }
    if (
      url.pathname.startsWith('/api/') ||
      url.pathname.startsWith('/social/') ||
      url.pathname.startsWith('/payments/')
    ) {
      res.writeHead(404, { ...headers, 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ error: 'not_found', message: 'The API server is not part of this build yet.' }),
      );
      return;
    }
    const file = normalize(join(dist, decodeURIComponent(url.pathname)));
    const isFile = file.startsWith(dist) && existsSync(file) && statSync(file).isFile();
    const path = isFile ? file : join(dist, 'index.html');
    const immutable = isFile && url.pathname.startsWith('/assets/');
    res.writeHead(200, {
      ...headers,
      'content-type': TYPES[extname(path)] ?? 'application/octet-stream',
      'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
    if (req.method === 'HEAD') res.end();
    else createReadStream(path).pipe(res);
  });
  server.listen(port, () => console.log(`Murmur is running at http://localhost:${port}/`));
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

await main();
