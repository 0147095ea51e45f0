// The REAL server for browser tests: the Fastify app with the development OpenID provider, a fresh embedded
// PostgreSQL, and its own SPA build (dist-e2e-real/) whose API base and provider issuer are this server's origin.
// The build is reused while its inputs and settings are unchanged, like dist-e2e/ (test/browser/global-setup.ts).
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../server/app';
import { loadServerConfig } from '../../server/config';
import { connect, ensureDatabase, startEmbeddedPostgres } from '../../server/db/database';
import { createAccessTokens } from '../../server/auth/access-token';
import { seedDevData } from '../../server/seed';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DIST_DIR = path.join(ROOT, 'dist-e2e-real');
const STAMP_FILE = path.join(DIST_DIR, '.e2e-build.json');
const INPUTS = ['src', 'public', 'index.html', 'vite.config.ts', 'package.json', 'package-lock.json', '.env'];

function spaEnv(origin: string): Record<string, string> {
  return {
    VITE_APP_ENV: 'local',
    VITE_API_BASE_URL: `${origin}/api/`,
    VITE_SOCIAL_API_BASE_URL: `${origin}/social/`,
    VITE_PAYMENT_SERVER_URL: `${origin}/payments/`,
    VITE_SENTRY_DSN: '',
    VITE_INTERNAL_WORKSPACE_ID: 'internal',
    VITE_GOOGLE_CLIENT_ID: '',
    VITE_MICROSOFT_CLIENT_ID: '',
    VITE_DEV_OIDC_ISSUER: `${origin}/oidc`,
    VITE_E2E: 'false',
  };
}

function newestMtime(target: string): number {
  if (!existsSync(target)) return 0;
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(target).map((entry) => newestMtime(path.join(target, entry))));
}

function isFresh(env: Record<string, string>): boolean {
  try {
    const stamp = JSON.parse(readFileSync(STAMP_FILE, 'utf8')) as { env?: unknown; builtAt?: number };
    const newestInput = Math.max(...INPUTS.map((input) => newestMtime(path.join(ROOT, input))));
    return (
      JSON.stringify(stamp.env) === JSON.stringify(env) &&
      typeof stamp.builtAt === 'number' &&
      stamp.builtAt > newestInput &&
      existsSync(path.join(DIST_DIR, 'index.html'))
    );
  } catch {
    return false;
  }
}

async function buildSpa(env: Record<string, string>): Promise<void> {
  if (!process.env.CI && isFresh(env)) return;
  const { build } = await import('vite');
  // Values in process.env win over .env files in Vite; they are put back afterwards.
  const overrides = { ...env, NODE_ENV: 'production' };
  const saved = new Map(Object.keys(overrides).map((key) => [key, process.env[key]]));
  Object.assign(process.env, overrides);
  try {
    await build({
      root: ROOT,
      configFile: path.join(ROOT, 'vite.config.ts'),
      mode: 'production',
      logLevel: 'warn',
      build: { outDir: DIST_DIR, emptyOutDir: true },
    });
  } finally {
    for (const [key, value] of saved) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
  writeFileSync(STAMP_FILE, JSON.stringify({ env, builtAt: Date.now() }, null, 2));
}

export interface RealServer {
  origin: string;
  app: FastifyInstance;
  accessTokens: ReturnType<typeof createAccessTokens>;
  db: Awaited<ReturnType<typeof connect>>['db'];
  close(): Promise<void>;
}

export async function startRealServer(port: number): Promise<RealServer> {
  const origin = `http://127.0.0.1:${port}`;
  const dir = mkdtempSync(path.join(tmpdir(), 'murmur-real-e2e-'));
  // As root, PostgreSQL runs as its own system user, which must be able to enter the directory.
  chmodSync(dir, 0o755);
  const [, postgres] = await Promise.all([
    buildSpa(spaEnv(origin)),
    startEmbeddedPostgres(path.join(dir, 'pg'), 55_000 + Math.floor(Math.random() * 500)),
  ]);
  const stops: (() => Promise<unknown>)[] = [
    () => postgres.stop(),
    async () => rmSync(dir, { recursive: true, force: true }),
  ];
  const close = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
  };
  try {
    await ensureDatabase(postgres.urlFor('postgres'), 'murmur');
    const database = await connect(postgres.urlFor('murmur'));
    stops.push(() => database.close());
    const config = loadServerConfig({
      APP_ENV: 'local',
      PORT: String(port),
      DEV_OIDC_ISSUER: `${origin}/oidc`,
      LOGIN_RATE_LIMIT_PER_MINUTE: '1000',
    });
    const accessTokens = createAccessTokens(randomBytes(32), config.ACCESS_TOKEN_TTL_SECONDS);
    const app = await buildApp({
      db: database.db,
      config,
      accessTokens,
      spaDir: DIST_DIR,
      connectOrigins: [origin],
      dataDir: dir,
    });
    stops.push(() => app.close());
    await seedDevData(database.db, config);
    await app.listen({ host: '127.0.0.1', port });
    return { origin, app, accessTokens, db: database.db, close };
  } catch (error) {
    await close();
    throw error;
  }
}
