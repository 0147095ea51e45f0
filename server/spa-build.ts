// Builds the SPA when its build is missing, older than its sources, or made with other settings than the server's now,
// so `npm start` always serves current code that calls this server. The settings a build bakes in (its VITE_* values,
// resolved as below) are recorded beside it in build-settings.json (readBuildSettings).
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import type { ServerConfig } from './config';

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

/** The file in a build that records the settings it was made with. */
const SETTINGS_FILE = 'build-settings.json';

/** The VITE_* values a build bakes in, by key. */
export type BuildSettings = Record<string, string>;

/** Where the server the SPA calls is: the origin it is served from, and the server's own payment and sign-in URLs. */
export type SpaServer = Pick<ServerConfig, 'APP_URL' | 'PAYMENT_SERVER_URL' | 'DEV_OIDC' | 'DEV_OIDC_ISSUER'>;

/**
 * The keys whose `.env` values are only the defaults of a server on port 8787: unless set in the environment or in
 * `.env.local`/`.env.production`/`.env.production.local`, they follow the server the SPA is built for, so that `PORT`
 * (or APP_URL, PAYMENT_SERVER_URL, DEV_OIDC_ISSUER) alone moves the SPA's calls with the server
 * (docs/configuration.md).
 */
const FOLLOW_THE_SERVER: Record<string, (server: SpaServer) => string> = {
  VITE_API_BASE_URL: (server) => `${server.APP_URL}/api/`,
  VITE_SOCIAL_API_BASE_URL: (server) => `${server.APP_URL}/social/`,
  VITE_PAYMENT_SERVER_URL: (server) => server.PAYMENT_SERVER_URL,
  // No provider mounted: the real vendors' buttons rather than a provider that is not there.
  VITE_DEV_OIDC_ISSUER: (server) => (server.DEV_OIDC ? server.DEV_OIDC_ISSUER : ''),
};

/** The env files besides `.env` that Vite reads for a mode: a key set there is the person's choice. */
const overrideFiles = (mode: string) => ['.env.local', `.env.${mode}`, `.env.${mode}.local`];

/**
 * The VITE_* values a build made now for `server` bakes in (or Vite's dev server serves, mode development): Vite's own
 * (the env files, the environment winning), except that the keys of FOLLOW_THE_SERVER set nowhere but in `.env` are the server's.
 */
export async function resolveBuildSettings(
  root: string,
  server: SpaServer,
  {
    env = process.env,
    mode = 'production',
  }: { env?: NodeJS.ProcessEnv; mode?: 'production' | 'development' } = {},
): Promise<BuildSettings> {
  const { loadEnv } = await import('vite');
  const saved = process.env;
  // loadEnv reads process.env; the environment asked about is `env`.
  if (env !== saved) process.env = env;
  let settings: BuildSettings;
  try {
    settings = loadEnv(mode, root, 'VITE_');
  } finally {
    if (env !== saved) process.env = saved;
  }
  const chosen = new Set(Object.keys(env).filter((key) => env[key] !== undefined));
  for (const file of overrideFiles(mode)) {
    const path = join(root, file);
    if (existsSync(path))
      for (const key of Object.keys(parseEnv(readFileSync(path, 'utf8')))) chosen.add(key);
  }
  for (const [key, value] of Object.entries(FOLLOW_THE_SERVER)) {
    if (!chosen.has(key)) settings[key] = value(server);
  }
  return Object.fromEntries(Object.entries(settings).sort(([a], [b]) => a.localeCompare(b)));
}

/** The settings a build in `dist` was made with (its build-settings.json); undefined when it has none. */
export function readBuildSettings(dist: string): BuildSettings | undefined {
  try {
    const recorded = JSON.parse(readFileSync(join(dist, SETTINGS_FILE), 'utf8')) as { settings?: unknown };
    const settings = recorded.settings;
    if (typeof settings !== 'object' || settings === null) return undefined;
    return Object.fromEntries(
      Object.entries(settings).filter(([, v]) => typeof v === 'string'),
    ) as BuildSettings;
  } catch {
    return undefined;
  }
}

const sameSettings = (a: BuildSettings, b: BuildSettings) =>
  JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

/** Why the build in `dist` cannot be served as it is for `settings`; undefined when it can. */
export function spaBuildStaleness(root: string, dist: string, settings: BuildSettings): string | undefined {
  const index = join(dist, 'index.html');
  if (!existsSync(index)) return 'no build yet';
  const sources = SPA_BUILD_INPUTS.map((p) => join(root, p)).filter(existsSync);
  if (Math.max(...sources.map(newestMtime)) > statSync(index).mtimeMs) return 'its sources changed';
  const recorded = readBuildSettings(dist);
  if (!recorded) return 'it records no settings';
  if (!sameSettings(recorded, settings)) {
    const changed = [...new Set([...Object.keys(recorded), ...Object.keys(settings)])]
      .filter((key) => recorded[key] !== settings[key])
      .sort();
    return `its settings differ (${changed.join(', ')})`;
  }
  return undefined;
}

/** The origins a build's settings make the SPA call (the CSP's connect-src). */
export function originsOf(settings: BuildSettings): string[] {
  return [
    ...new Set(
      [
        settings.VITE_API_BASE_URL,
        settings.VITE_SOCIAL_API_BASE_URL,
        settings.VITE_PAYMENT_SERVER_URL,
        settings.VITE_SENTRY_DSN,
        // The development OpenID provider: discovery and the code exchange are fetched by the SPA.
        settings.VITE_DEV_OIDC_ISSUER,
      ]
        .filter((u): u is string => Boolean(u))
        .map((u) => new URL(u).origin),
    ),
  ];
}

/** Builds when stale (for `server`), recording the settings; returns the origins the built SPA calls. */
export async function ensureSpaBuild(root: string, dist: string, server: SpaServer): Promise<string[]> {
  const settings = await resolveBuildSettings(root, server);
  const stale = spaBuildStaleness(root, dist, settings);
  if (stale) {
    console.log(`Building the web app (${stale})…`);
    const { build } = await import('vite');
    // Values in process.env win over the env files in Vite; put back afterwards.
    const saved = new Map(Object.keys(settings).map((key) => [key, process.env[key]]));
    Object.assign(process.env, settings);
    try {
      await build({ root, logLevel: 'warn', build: { outDir: dist } });
    } finally {
      for (const [key, value] of saved) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
    // After the build, which empties dist.
    writeFileSync(join(dist, SETTINGS_FILE), `${JSON.stringify({ settings }, null, 2)}\n`);
  }
  return originsOf(settings);
}
