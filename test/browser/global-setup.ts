// Vitest globalSetup of the `browser` project: builds the SPA once for end-to-end tests into dist-e2e/.
// The API base URL is baked in at build time, so the fake backend (test/browser/fake-backend.ts) must listen on the
// same port; the port and the output folder reach the test files through vitest's provide/inject.
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'vite';
import type { TestProject } from 'vitest/node';

const ROOT = path.resolve(import.meta.dirname, '../..');
export const DIST_DIR = path.join(ROOT, 'dist-e2e');
const STAMP_FILE = path.join(DIST_DIR, '.e2e-build.json');

declare module 'vitest' {
  export interface ProvidedContext {
    e2ePort: number;
    e2eDistDir: string;
  }
}

function e2eEnv(port: number): Record<string, string> {
  const origin = `http://127.0.0.1:${port}`;
  return {
    VITE_APP_ENV: 'qa',
    VITE_API_BASE_URL: `${origin}/api/`,
    VITE_SOCIAL_API_BASE_URL: `${origin}/social/`,
    VITE_PAYMENT_SERVER_URL: `${origin}/payments/`,
    VITE_SENTRY_DSN: '',
    VITE_INTERNAL_WORKSPACE_ID: 'internal',
    VITE_E2E: 'true',
  };
}

/** Newest modification time (ms) of a file or, recursively, of every file in a folder. */
function newestMtime(target: string): number {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(target);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of fs.readdirSync(target))
    newest = Math.max(newest, newestMtime(path.join(target, entry)));
  return newest;
}

/** True when dist-e2e was built with the same env and is newer than every input of the build. */
function isBuildFresh(env: Record<string, string>): boolean {
  let stamp: { env?: unknown; builtAt?: number };
  try {
    stamp = JSON.parse(fs.readFileSync(STAMP_FILE, 'utf8')) as typeof stamp;
  } catch {
    return false;
  }
  if (JSON.stringify(stamp.env) !== JSON.stringify(env) || typeof stamp.builtAt !== 'number') return false;
  if (!fs.existsSync(path.join(DIST_DIR, 'index.html'))) return false;
  const inputs = [
    'src',
    'public',
    'index.html',
    'vite.config.ts',
    'package.json',
    'package-lock.json',
    '.env',
    path.relative(ROOT, import.meta.filename),
  ];
  const newestInput = Math.max(...inputs.map((input) => newestMtime(path.join(ROOT, input))));
  return stamp.builtAt > newestInput;
}

async function buildForE2e(env: Record<string, string>): Promise<void> {
  // Env values already in process.env win over .env files in Vite; restore them afterwards so nothing leaks
  // into other projects run by the same vitest process.
  const overrides: Record<string, string> = { ...env, NODE_ENV: 'production' };
  const saved = new Map<string, string | undefined>();
  for (const [key, value] of Object.entries(overrides)) {
    saved.set(key, process.env[key]);
    process.env[key] = value;
  }
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
  // Stamped after the build: the router plugin may rewrite src/routeTree.gen.ts while building.
  fs.writeFileSync(STAMP_FILE, JSON.stringify({ env, builtAt: Date.now() }, null, 2));
}

export default async function setup(project: TestProject): Promise<void> {
  const port = Number(process.env.MURMUR_E2E_PORT ?? 4780);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) {
    throw new Error(`MURMUR_E2E_PORT must be a TCP port, got ${process.env.MURMUR_E2E_PORT}`);
  }
  const env = e2eEnv(port);
  if (process.env.CI || !isBuildFresh(env)) {
    const started = performance.now();
    await buildForE2e(env);
    console.log(`[e2e] built dist-e2e in ${Math.round(performance.now() - started)} ms`);
  }
  project.provide('e2ePort', port);
  project.provide('e2eDistDir', DIST_DIR);
}
