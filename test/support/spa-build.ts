// Builds the SPA for end-to-end tests into its own folder with the given VITE_* values baked in, unless a build with
// the same values is newer than every input (CI always rebuilds). Used by the fake-backend and real-server suites.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { newestMtime, SPA_BUILD_INPUTS } from '@server/spa-build';

const ROOT = path.resolve(import.meta.dirname, '../..');
const STAMP = '.e2e-build.json';

function isFresh(distDir: string, env: Record<string, string>, extraInputs: string[]): boolean {
  try {
    const stamp = JSON.parse(readFileSync(path.join(distDir, STAMP), 'utf8')) as {
      env?: unknown;
      builtAt?: number;
    };
    const newestInput = Math.max(
      ...[...SPA_BUILD_INPUTS.map((input) => path.join(ROOT, input)), ...extraInputs]
        .filter(existsSync)
        .map(newestMtime),
    );
    return (
      JSON.stringify(stamp.env) === JSON.stringify(env) &&
      typeof stamp.builtAt === 'number' &&
      stamp.builtAt > newestInput &&
      existsSync(path.join(distDir, 'index.html'))
    );
  } catch {
    return false;
  }
}

/** Returns true when it built, false when the existing build was fresh. */
export async function buildSpaFor(
  distDir: string,
  env: Record<string, string>,
  extraInputs: string[] = [],
): Promise<boolean> {
  if (!process.env.CI && isFresh(distDir, env, extraInputs)) return false;
  const { build } = await import('vite');
  // Values in process.env win over .env files in Vite; they are put back afterwards so nothing leaks into other
  // projects run by the same vitest process.
  const overrides: Record<string, string> = { ...env, NODE_ENV: 'production' };
  const saved = new Map(Object.keys(overrides).map((key) => [key, process.env[key]]));
  Object.assign(process.env, overrides);
  try {
    await build({
      root: ROOT,
      configFile: path.join(ROOT, 'vite.config.ts'),
      mode: 'production',
      logLevel: 'warn',
      build: { outDir: distDir, emptyOutDir: true },
    });
  } finally {
    for (const [key, value] of saved) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
  // Stamped after the build: the router plugin may rewrite src/routeTree.gen.ts while building.
  writeFileSync(path.join(distDir, STAMP), JSON.stringify({ env, builtAt: Date.now() }, null, 2));
  return true;
}

/**
 * The SPA's settings for the real server at `origin` with the development OpenID provider (no vendor sign-in, no
 * Sentry): the build the real-server browser tests and the screenshot and timing scripts serve.
 */
export function localSpaEnv(origin: string): Record<string, string> {
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
