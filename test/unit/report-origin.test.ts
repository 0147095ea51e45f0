// Where the server's Chromium opens a report's page (server/sharing/report-origin.ts): the origin the served SPA calls,
// from the settings `npm start` recorded beside its build, else from the value baked into the build, else APP_URL.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reportPageOrigin } from '@server/sharing/report-origin';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'murmur-report-origin-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const APP_URL = 'http://127.0.0.1:8787';

/** A build in `dir`: its page, an entry script holding `baked` as Vite writes env values, and its recorded settings. */
function build({ baked, recorded }: { baked?: string; recorded?: string }) {
  mkdirSync(join(dir, 'assets'), { recursive: true });
  writeFileSync(
    join(dir, 'index.html'),
    '<script type="module" crossorigin src="/assets/index-abc.js"></script>',
  );
  writeFileSync(
    join(dir, 'assets', 'index-abc.js'),
    baked ? `const e={VITE_APP_ENV:"local",VITE_SOCIAL_API_BASE_URL:"${baked}"};export{e};` : 'export{};',
  );
  if (recorded) {
    writeFileSync(
      join(dir, 'build-settings.json'),
      JSON.stringify({ settings: { VITE_SOCIAL_API_BASE_URL: recorded } }),
    );
  }
  // Each build is newer than the one before (the origin is read once per build).
  const when = new Date(Date.now() + Math.random() * 1e6);
  utimesSync(join(dir, 'index.html'), when, when);
}

describe('the origin a report page is opened at', () => {
  it("is the recorded settings' social API origin, served here", () => {
    build({ baked: 'http://localhost:8787/social/', recorded: 'https://murmur.example.com/social/' });
    expect(reportPageOrigin({ spaDir: dir, appUrl: APP_URL })).toEqual({
      origin: 'https://murmur.example.com',
      servedHere: true,
    });
  });

  it('is the value baked into a build that records no settings (the default .env build: localhost, not 127.0.0.1)', () => {
    build({ baked: 'http://localhost:8787/social/' });
    expect(reportPageOrigin({ spaDir: dir, appUrl: APP_URL })).toEqual({
      origin: 'http://localhost:8787',
      servedHere: true,
    });
  });

  it('is APP_URL when the build says nothing, or no build is served (npm run dev)', () => {
    build({});
    expect(reportPageOrigin({ spaDir: dir, appUrl: APP_URL }).origin).toBe(APP_URL);
    expect(reportPageOrigin({ appUrl: APP_URL })).toEqual({ origin: APP_URL, servedHere: false });
  });
});
