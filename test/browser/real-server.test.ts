// Sign-in end to end against the REAL server: the SPA's buttons, the development OpenID provider's page (authorization
// code + PKCE, nonce from auth/nonce), /login/callback, auth/login and the login decision, in Chromium.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { demoUserIds } from '@server/seed';
import {
  AUTH_TOKENS_KEY,
  launchBrowser,
  newTestPage,
  readStorage,
  type TestPage,
} from '@test/support/browser';
import { waitForHeading, waitForPath } from '@test/support/browser-harness';
import { startRealServer, type RealServer } from '@test/support/real-server';

const PORT = Number(process.env.MURMUR_REAL_E2E_PORT ?? 4781);

let server: RealServer;
let browser: Browser;
let current: TestPage;

beforeAll(async () => {
  [server, browser] = await Promise.all([startRealServer(PORT), launchBrowser()]);
});
afterAll(async () => {
  await Promise.allSettled([browser?.close(), server?.close()]);
});
beforeEach(async () => {
  current = await newTestPage(browser, server.origin);
});
afterEach(async () => {
  await current.context.close();
});

/** On the provider's page: signs in as a new person. */
async function signInAsNewPerson(page: Page, person: { first: string; last: string; email: string }) {
  await page.waitForURL((url) => url.pathname.startsWith('/oidc/interaction/'));
  await waitForHeading(page, 'Sign in as a new person');
  await page.getByLabel('First name').fill(person.first);
  await page.getByLabel('Last name').fill(person.last);
  await page.getByLabel('E-mail address').fill(person.email);
  await page.getByRole('button', { name: 'Sign in as this person' }).click();
}

async function storedRefreshToken(page: Page): Promise<string> {
  const raw = await readStorage(page, AUTH_TOKENS_KEY);
  expect(raw).not.toBeNull();
  return (JSON.parse(raw!) as { refresh_token: string }).refresh_token;
}

describe('sign-in through the development OpenID provider (real server)', () => {
  it('a new person signs in with "Sign in with Google" and lands on workspace creation', async () => {
    const { page } = current;
    await page.goto('/login');
    await waitForHeading(page, 'Sign in to Murmur');
    await page.getByRole('button', { name: 'Sign in with Google' }).click();
    await signInAsNewPerson(page, { first: 'Nia', last: 'Newcomer', email: 'nia@example.com' });

    await waitForPath(page, '/workspace/create/name');
    expect(await storedRefreshToken(page)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Nothing of the sign-in is left behind: no pending PKCE verifier, no code in the history entry.
    expect(await page.evaluate(() => window.sessionStorage.getItem('murmur_pending_sign_in'))).toBeNull();
    expect(page.url()).not.toContain('code=');
  });

  it("paints the sign-in screen before the app's code has arrived, and carries out a press made then", async () => {
    const { page } = current;
    // The app's entry is held back until released: what shows until then is login.html's own drawing.
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/assets\/index-[^/]+\.js$/, async (route) => {
      await released;
      await route.continue();
    });
    await page.goto('/login');
    await waitForHeading(page, 'Sign in to Murmur');
    expect(await page.locator('#prerendered').count()).toBe(1);
    await page.getByRole('button', { name: 'Sign in with Google' }).click();
    release();
    // The press is not lost: the app arrives, draws the same screen in place of the prerendered one, and signs in.
    await signInAsNewPerson(page, { first: 'Pia', last: 'Early', email: 'pia@example.com' });
    await waitForPath(page, '/workspace/create/name');
    expect(await storedRefreshToken(page)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('takes the prerendered sign-in screen away once the app has drawn its own, leaving one screen', async () => {
    const { page } = current;
    const response = await page.goto('/login');
    expect(await response?.text()).toContain('<div id="prerendered"><main class="login-screen"');
    await page.waitForFunction(() => document.getElementById('prerendered') === null);
    expect(await page.locator('.login-screen').count()).toBe(1);
    expect(await page.locator('#login-title').count()).toBe(1);
  });

  it('an invited person signs in on the Microsoft screen, lands in the invited workspace, and signs out', async () => {
    const { page } = current;
    const anaId = (await demoUserIds(server.db)).get('ana@murmur.local')!;
    const created = await server.app.inject({
      method: 'POST',
      url: '/api/workspaces/demo/invites',
      headers: { authorization: `Bearer ${await server.tokenFor(anaId)}` },
      payload: { privilege: 'viewer' },
    });
    expect(created.statusCode).toBe(201);
    const { token } = created.json<{ token: string }>();

    await page.goto(`/invite?token=${token}`);
    await waitForPath(page, `/login?token=${token}`);
    await page.getByRole('link', { name: 'Sign in with Microsoft' }).click();
    await waitForPath(page, `/login/microsoft?token=${token}`);
    await page.getByRole('button', { name: 'Continue with Microsoft' }).click();
    await signInAsNewPerson(page, { first: 'Ivo', last: 'Invited', email: 'ivo@example.com' });

    await page.waitForURL((url) => url.pathname.startsWith('/workspace/demo/'));
    const refreshToken = await storedRefreshToken(page);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await waitForPath(page, '/login');
    await expect
      .poll(async () => {
        const refreshed = await server.app.inject({
          method: 'POST',
          url: '/api/auth/refresh',
          headers: { authorization: `Bearer ${refreshToken}` },
        });
        return refreshed.statusCode;
      })
      .toBe(401);
  });

  it('a signed-out person who opens a page lands there after signing in; the page never reaches the provider', async () => {
    const { page } = current;
    const toProvider: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/oidc/')) toProvider.push(request.url());
    });
    const opened = '/workspace/demo/settings/member';
    await page.goto(opened);
    await waitForPath(page, '/login');
    await waitForHeading(page, 'Sign in to Murmur');
    // Kept in this tab, not in any address.
    expect(page.url()).not.toContain('settings');
    await page.getByRole('button', { name: 'Sign in with Google' }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/oidc/interaction/'));
    await page.getByRole('button', { name: /^Ana Owner/ }).click();

    await waitForPath(page, opened);
    await waitForHeading(page, 'Members');
    expect(toProvider.length).toBeGreaterThan(0);
    for (const url of toProvider) {
      expect(decodeURIComponent(url)).not.toContain('settings');
      expect(decodeURIComponent(url)).not.toContain('/workspace/');
    }
    expect(await page.evaluate(() => window.sessionStorage.getItem('murmur:return-to'))).toBeNull();
  });

  it('after signing in, a kept page the person may not see gives way to the /login decision', async () => {
    const { page } = current;
    await page.goto('/workspace/demo/settings/member');
    await waitForPath(page, '/login');
    await page.getByRole('button', { name: 'Sign in with Google' }).click();
    // A new person is no member of the demo workspace: /login sends them to workspace creation.
    await signInAsNewPerson(page, { first: 'Otto', last: 'Outsider', email: 'otto@example.com' });
    await waitForPath(page, '/workspace/create/name');
    await waitForHeading(page, 'Name your workspace');
  });

  it('the scraping area, kept for after sign-in, opens for staff', async () => {
    const { page } = current;
    await page.goto('/scraping');
    await waitForPath(page, '/login');
    await page.getByRole('button', { name: 'Sign in with Google' }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/oidc/interaction/'));
    await page.getByRole('button', { name: /^Sam Staff/ }).click();
    await waitForPath(page, '/scraping');
    await waitForHeading(page, 'Scraping');
  });

  it('cancelling at the provider shows why, with a way back to the login screen', async () => {
    const { page } = current;
    await page.goto('/login');
    await page.getByRole('button', { name: 'Sign in with Google' }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/oidc/interaction/'));
    await page.getByRole('button', { name: 'Cancel and return to Murmur' }).click();

    await waitForHeading(page, 'Sign-in failed');
    await page.getByText('The sign-in was cancelled.').waitFor();
    expect(page.url()).not.toContain('error=');
    await page.getByRole('link', { name: 'Back to sign-in' }).click();
    await waitForPath(page, '/login');
    await waitForHeading(page, 'Sign in to Murmur');
  });
});
