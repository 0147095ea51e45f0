// The SPA build's settings (server/spa-build.ts): the defaults of `.env` follow the server it is built for (PORT alone
// moves the SPA's calls), what the environment or `.env.local` says wins, and a build whose recorded settings differ
// from the resolved ones is rebuilt.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadServerConfig } from '@server/config';
import { originsOf, readBuildSettings, resolveBuildSettings, spaBuildStaleness } from '@server/spa-build';

const ROOT = resolve(import.meta.dirname, '..', '..');
let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'murmur-spa-settings-'));
  // The project's own defaults.
  writeFileSync(join(root, '.env'), readFileSync(join(ROOT, '.env'), 'utf8'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const server = (env: Record<string, string>) => loadServerConfig({ APP_ENV: 'local', ...env });

describe('the SPA build settings', () => {
  it('follow the port the server listens on when nothing else says where the server is', async () => {
    const settings = await resolveBuildSettings(root, server({ PORT: '8777' }), { env: {} });
    expect(settings).toMatchObject({
      VITE_APP_ENV: 'local',
      VITE_API_BASE_URL: 'http://localhost:8777/api/',
      VITE_SOCIAL_API_BASE_URL: 'http://localhost:8777/social/',
      VITE_PAYMENT_SERVER_URL: 'http://localhost:8777/payments/',
      VITE_DEV_OIDC_ISSUER: 'http://localhost:8777/oidc',
      VITE_INTERNAL_WORKSPACE_ID: 'internal',
    });
    expect(originsOf(settings)).toEqual(['http://localhost:8777']);
  });

  it('follow APP_URL, and leave the development provider out when the server does not mount it', async () => {
    const settings = await resolveBuildSettings(
      root,
      server({ APP_URL: 'https://murmur.example.com/', DEV_OIDC: 'false' }),
      { env: {} },
    );
    expect(settings.VITE_API_BASE_URL).toBe('https://murmur.example.com/api/');
    expect(settings.VITE_PAYMENT_SERVER_URL).toBe('https://murmur.example.com/payments/');
    expect(settings.VITE_DEV_OIDC_ISSUER).toBe('');
  });

  it('keep what the environment and .env.local say', async () => {
    writeFileSync(join(root, '.env.local'), 'VITE_SOCIAL_API_BASE_URL=http://social.test/social/\n');
    const settings = await resolveBuildSettings(root, server({ PORT: '8777' }), {
      env: { VITE_API_BASE_URL: 'http://api.test/api/' },
    });
    expect(settings.VITE_API_BASE_URL).toBe('http://api.test/api/');
    expect(settings.VITE_SOCIAL_API_BASE_URL).toBe('http://social.test/social/');
    expect(settings.VITE_PAYMENT_SERVER_URL).toBe('http://localhost:8777/payments/');
  });

  it('make a build stale when they differ from the ones it recorded', async () => {
    const dist = join(root, 'dist');
    mkdirSync(dist);
    writeFileSync(join(dist, 'index.html'), '<!doctype html>');
    // The build is newer than its inputs (here only .env).
    const past = new Date(Date.now() - 60_000);
    utimesSync(join(root, '.env'), past, past);
    const at8787 = await resolveBuildSettings(root, server({}), { env: {} });
    expect(spaBuildStaleness(root, dist, at8787)).toBe('it records no settings');
    writeFileSync(join(dist, 'build-settings.json'), JSON.stringify({ settings: at8787 }));
    expect(readBuildSettings(dist)).toEqual(at8787);
    expect(spaBuildStaleness(root, dist, at8787)).toBeUndefined();

    const at8788 = await resolveBuildSettings(root, server({ PORT: '8788' }), { env: {} });
    expect(spaBuildStaleness(root, dist, at8788)).toBe(
      'its settings differ (VITE_API_BASE_URL, VITE_DEV_OIDC_ISSUER, VITE_PAYMENT_SERVER_URL, VITE_SOCIAL_API_BASE_URL)',
    );
    const sentry = await resolveBuildSettings(root, server({}), {
      env: { VITE_SENTRY_DSN: 'https://key@sentry.example.com/1' },
    });
    expect(spaBuildStaleness(root, dist, sentry)).toBe('its settings differ (VITE_SENTRY_DSN)');
  });
});
