// Builds the SPA when its build is missing or older than its sources, so `npm start` always serves current code.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function newestMtime(path: string): number {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return Math.max(stats.mtimeMs, ...readdirSync(path).map((entry) => newestMtime(join(path, entry))));
}

/** What the SPA's build is made from: a build older than any of these is stale. */
export const SPA_BUILD_INPUTS = [
  'src',
  'public',
  'index.html',
  'vite.config.ts',
  // The build's own plugins (compression, the prerendered sign-in screen and dashboard shells).
  'scripts/vite-precompress.ts',
  'scripts/vite-prerender-login.ts',
  'scripts/prerender-login-markup.tsx',
  'scripts/prerender-shell-markup.tsx',
  '.env',
  '.env.local',
  'package.json',
  'package-lock.json',
] as const;

function spaBuildIsStale(root: string, dist: string): boolean {
  const index = join(dist, 'index.html');
  if (!existsSync(index)) return true;
  const sources = SPA_BUILD_INPUTS.map((p) => join(root, p)).filter(existsSync);
  return Math.max(...sources.map(newestMtime)) > statSync(index).mtimeMs;
}

/** Builds when stale; returns the origins the SPA's build-time config calls. */
export async function ensureSpaBuild(root: string, dist: string): Promise<string[]> {
  const { build, loadEnv } = await import('vite');
  if (spaBuildIsStale(root, dist)) {
    console.log('Building the web app…');
    await build({ root, logLevel: 'warn' });
  }
  const env = loadEnv('production', root, 'VITE_');
  return [
    ...new Set(
      [
        env.VITE_API_BASE_URL,
        env.VITE_SOCIAL_API_BASE_URL,
        env.VITE_PAYMENT_SERVER_URL,
        env.VITE_SENTRY_DSN,
        // The development OpenID provider: discovery and the code exchange are fetched by the SPA.
        env.VITE_DEV_OIDC_ISSUER,
      ]
        .filter((u): u is string => Boolean(u))
        .map((u) => new URL(u).origin),
    ),
  ];
}
