// Where the server's Chromium opens a report's page (report.ts). The page calls the social API at the base the SPA was
// built with, so it must be opened at that origin, or every call is a cross-origin call the API refuses: `npm start`'s
// default build (.env) calls http://localhost:8787 while the server listens on 127.0.0.1, and a build for a public
// origin (https://murmur.example.com) calls that. The origin is read from the served build itself — the settings Vite
// baked into its entry script — so it is right whatever recorded or produced them; Chromium's requests to it are
// answered by this server at its own address (report.ts), so a public origin need not be reachable from the server.
// Without a served build (`npm run dev`: Vite serves the SPA at APP_URL and the API allows it), the page is opened
// at APP_URL itself.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readBuildSettings } from '@server/spa-build';

/** The origin of the social API base baked into the build in `spaDir`, or null when none is found there. */
function builtSocialApiOrigin(spaDir: string): string | null {
  const index = join(spaDir, 'index.html');
  if (!existsSync(index)) return null;
  const html = readFileSync(index, 'utf8');
  // The entry script first (it holds the build's settings, as a literal: VITE_SOCIAL_API_BASE_URL:`http://…`), then
  // the other scripts of the build.
  const entry = /<script[^>]+type="module"[^>]+src="\/?([^"]+\.js)"/.exec(html)?.[1];
  const assets = join(spaDir, 'assets');
  const scripts = [
    ...(entry ? [join(spaDir, entry)] : []),
    ...(existsSync(assets)
      ? readdirSync(assets)
          .filter((name) => name.endsWith('.js'))
          .map((name) => join(assets, name))
      : []),
  ];
  for (const script of scripts) {
    if (!existsSync(script)) continue;
    const base = /VITE_SOCIAL_API_BASE_URL:\s*["'`]([^"'`]+)["'`]/.exec(readFileSync(script, 'utf8'))?.[1];
    if (base) return originOf(base);
  }
  return null;
}

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

const cache = new Map<string, { builtAt: number; origin: string | null }>();

export interface ReportPage {
  /** The origin the report's page is opened at. */
  origin: string;
  /** Whether this server answers that origin's requests itself (it serves the SPA); false: Chromium asks the origin. */
  servedHere: boolean;
}

/**
 * The origin a report's page is opened at: the one the served SPA calls (its build's VITE_SOCIAL_API_BASE_URL), or
 * APP_URL when no build is served here or none is found in it. Read once per build (a new build is read again).
 */
export function reportPageOrigin({ spaDir, appUrl }: { spaDir?: string; appUrl: string }): ReportPage {
  const fallback = new URL(appUrl).origin;
  if (!spaDir || !existsSync(join(spaDir, 'index.html'))) return { origin: fallback, servedHere: false };
  const builtAt = statSync(join(spaDir, 'index.html')).mtimeMs;
  let known = cache.get(spaDir);
  if (!known || known.builtAt !== builtAt) {
    // The settings `npm start` recorded beside its build (spa-build.ts) first; a build made otherwise (the tests',
    // scripts') is read for the value Vite baked in.
    const recorded = readBuildSettings(spaDir)?.VITE_SOCIAL_API_BASE_URL;
    known = { builtAt, origin: recorded ? originOf(recorded) : builtSocialApiOrigin(spaDir) };
    cache.set(spaDir, known);
  }
  return { origin: known.origin ?? fallback, servedHere: true };
}
