// Chromium for the end-to-end tests (Debian's /usr/bin/chromium driven by playwright-core), and helpers that
// prepare a fresh browser context: signed-in storage, the analytics collector, the e2e app handle.
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { MurmurApp } from '@/app';
import type { PageViewEvent } from '@/lib/analytics';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const AUTH_TOKENS_KEY = 'auth_tokens';
export const lastWorkspaceKey = (userId: string) => `${userId}_last_workspace_id`;

/** The window of an e2e build (VITE_E2E=true), which exposes the app object for tests. */
export type E2eWindow = Window & {
  __murmur: MurmurApp;
  __pageViews: PageViewEvent[];
};

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
  });
}

export interface TestPage {
  context: BrowserContext;
  page: Page;
}

/** A fresh context (own storage, cookies, cache) and one page in it; every test gets its own. */
export async function newTestPage(browser: Browser, baseURL: string): Promise<TestPage> {
  const context = await browser.newContext({ baseURL, serviceWorkers: 'block' });
  context.setDefaultTimeout(10_000);
  context.setDefaultNavigationTimeout(15_000);
  await collectPageViews(context);
  const page = await context.newPage();
  return { context, page };
}

/**
 * Seeds localStorage of the app's origin before its first script runs, once per tab: later reloads see whatever
 * the app left there (so a removal by the app is not undone by the seed).
 */
export async function seedStorage(context: BrowserContext, entries: Record<string, string>): Promise<void> {
  await context.addInitScript((seed: Record<string, string>) => {
    try {
      if (window.location.protocol !== 'http:') return;
      if (window.sessionStorage.getItem('__e2e_seeded') !== null) return;
      for (const [key, value] of Object.entries(seed)) window.localStorage.setItem(key, value);
      window.sessionStorage.setItem('__e2e_seeded', '1');
    } catch {
      // about:blank and opaque origins have no storage.
    }
  }, entries);
}

export interface SignInOptions {
  /** Stores `<userId>_last_workspace_id`. */
  lastWorkspace?: { userId: string; workspaceId: string };
}

/** Signs a user in the way the app keeps a session: the `auth_tokens` entry in localStorage. */
export function signIn(
  context: BrowserContext,
  tokens: { access_token: string; refresh_token: string },
  options: SignInOptions = {},
): Promise<void> {
  const entries: Record<string, string> = {
    [AUTH_TOKENS_KEY]: JSON.stringify({
      access_token: tokens.access_token,
      refresh_token: tokens.refresh_token,
    }),
  };
  if (options.lastWorkspace) {
    entries[lastWorkspaceKey(options.lastWorkspace.userId)] = options.lastWorkspace.workspaceId;
  }
  return seedStorage(context, entries);
}

/** Collects the app's PageView events ('murmur:analytics' DOM events) into window.__pageViews. */
async function collectPageViews(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const target = window as unknown as { __pageViews: unknown[] };
    target.__pageViews = [];
    window.addEventListener('murmur:analytics', (event) => {
      target.__pageViews.push((event as CustomEvent<unknown>).detail);
    });
  });
}

export function pageViews(page: Page): Promise<PageViewEvent[]> {
  return page.evaluate(() => (window as unknown as E2eWindow).__pageViews.slice());
}

export function readStorage(page: Page, key: string): Promise<string | null> {
  return page.evaluate((k) => window.localStorage.getItem(k), key);
}

/** The pathname plus search of the page's current URL, e.g. '/login?token=abc'. */
export function pathOf(page: Page): string {
  const url = new URL(page.url());
  return url.pathname + url.search;
}

/** Records every URL (pathname plus search) the page's main frame shows, history-API navigations included. */
export function trackPaths(page: Page): string[] {
  const paths: string[] = [];
  page.on('framenavigated', (frame) => {
    if (frame !== page.mainFrame()) return;
    const url = new URL(frame.url());
    paths.push(url.pathname + url.search);
  });
  return paths;
}

/** A CSP violation as the page saw it (a `securitypolicyviolation` event). */
export interface CspViolation {
  directive: string;
  blocked: string;
  sample: string;
  source: string;
}

/**
 * Records the context's CSP violations into window.__cspViolations: the `securitypolicyviolation` events, which reach
 * the document (composed) even from an element in a shadow root. Read them with cspViolations(page).
 */
export async function collectCspViolations(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const target = window as unknown as { __cspViolations: unknown[] };
    target.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (event) => {
      target.__cspViolations.push({
        directive: event.violatedDirective,
        blocked: event.blockedURI,
        sample: event.sample,
        source: `${event.sourceFile}:${event.lineNumber}:${event.columnNumber}`,
      });
    });
  });
}

export function cspViolations(page: Page): Promise<CspViolation[]> {
  return page.evaluate(() =>
    (window as unknown as { __cspViolations: CspViolation[] }).__cspViolations.slice(),
  );
}
