// Shared set-up of the browser test files: one fake backend and one Chromium per file, a fresh context per test,
// and the standard seed data every scenario starts from.
import { afterAll, afterEach, beforeAll, beforeEach, inject } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startFakeBackend, type FakeBackend } from './fake-backend';
import { launchBrowser, newTestPage, pathOf, type TestPage } from './browser';

/** Users and workspaces of the standard seed. */
export const SEED = {
  /** Alice: owner of w1, manager of w2, owner of the expired wexp. */
  alice: 'u1',
  /** Bob: viewer of the expired wexp only. */
  bob: 'u2',
  /** Carol: no workspace at all. */
  carol: 'u3',
  /** Dave: owner of w3 (reached by the 'good' invite) and of wother (Alice is no member). */
  dave: 'u4',
  /** Sam: staff, owner of the internal workspace and viewer of w2. */
  staff: 'u5',
  w1: 'w1',
  w2: 'w2',
  w3: 'w3',
  expired: 'wexp',
  other: 'wother',
  /** The internal (scraping) workspace: the e2e build's VITE_INTERNAL_WORKSPACE_ID. */
  internal: 'internal',
  goodInvite: 'good',
} as const;

function seedStandardData(backend: FakeBackend): void {
  backend.addUser({ id: SEED.alice, email: 'alice@example.com', first_name: 'Alice', last_name: 'Archer' });
  backend.addUser({ id: SEED.bob, email: 'bob@example.com', first_name: 'Bob', last_name: 'Baker' });
  backend.addUser({ id: SEED.carol, email: 'carol@example.com', first_name: 'Carol', last_name: 'Cole' });
  backend.addUser({ id: SEED.dave, email: 'dave@example.com', first_name: 'Dave', last_name: 'Dunn' });
  backend.addUser({ id: SEED.staff, email: 'sam@example.com', first_name: 'Sam', last_name: 'Staff' });
  backend.addWorkspace({ id: SEED.internal, name: 'Internal', members: { [SEED.staff]: 'owner' } });
  backend.addWorkspace({ id: SEED.w1, name: 'Acme', members: { [SEED.alice]: 'owner' } });
  backend.addWorkspace({
    id: SEED.w2,
    name: 'Beta',
    members: { [SEED.alice]: 'manager', [SEED.staff]: 'viewer' },
  });
  backend.addWorkspace({ id: SEED.w3, name: 'Gamma', members: { [SEED.dave]: 'owner' } });
  backend.addWorkspace({ id: SEED.other, name: 'Other', members: { [SEED.dave]: 'owner' } });
  backend.addWorkspace({
    id: SEED.expired,
    name: 'Expired',
    // A day ago, in unix seconds.
    plan_expired_at: Math.floor(Date.now() / 1000) - 86_400,
    members: { [SEED.alice]: 'owner', [SEED.bob]: 'viewer' },
  });
  backend.addInvite(SEED.goodInvite, SEED.w3, 'viewer');
}

export interface E2e {
  readonly backend: FakeBackend;
  readonly browser: Browser;
  readonly origin: string;
  /** This test's fresh context and page. */
  readonly current: TestPage;
  readonly page: Page;
}

/** Registers the hooks of a browser test file and returns live handles to what they set up. */
export function setupE2e(): E2e {
  let backend: FakeBackend | undefined;
  let browser: Browser | undefined;
  let current: TestPage | undefined;
  const port = inject('e2ePort');
  const distDir = inject('e2eDistDir');
  const origin = `http://127.0.0.1:${port}`;

  beforeAll(async () => {
    [backend, browser] = await Promise.all([startFakeBackend({ port, distDir }), launchBrowser()]);
  });
  afterAll(async () => {
    await Promise.allSettled([browser?.close(), backend?.close()]);
  });
  beforeEach(async () => {
    if (!backend || !browser) throw new Error('e2e set-up failed');
    backend.reset();
    seedStandardData(backend);
    current = await newTestPage(browser, origin);
  });
  afterEach(async () => {
    await current?.context.close();
    current = undefined;
  });

  const need = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is not set up`);
    return value;
  };
  return {
    get backend() {
      return need(backend, 'backend');
    },
    get browser() {
      return need(browser, 'browser');
    },
    origin,
    get current() {
      return need(current, 'context');
    },
    get page() {
      return need(current, 'context').page;
    },
  };
}

/** Waits until the page's pathname (plus search, when `expected` has one) is exactly `expected`. */
export async function waitForPath(page: Page, expected: string): Promise<void> {
  const withSearch = expected.includes('?');
  try {
    await page.waitForURL((url) => (withSearch ? url.pathname + url.search : url.pathname) === expected, {
      waitUntil: 'commit',
    });
  } catch (error) {
    throw new Error(`Expected the page at ${expected}, it is at ${pathOf(page)}`, { cause: error });
  }
}

/** Waits for a heading with exactly this text. */
export function waitForHeading(page: Page, name: string): Promise<void> {
  return page.getByRole('heading', { name, exact: true }).first().waitFor({ state: 'visible' });
}
