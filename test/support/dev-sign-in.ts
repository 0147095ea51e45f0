// Signing in to the real server as a person does: the login screen, "Sign in with Google", then the development
// OpenID provider's account picker (server/dev-oidc), then wherever the SPA lands.
import type { Browser, Page } from 'playwright-core';
import { collectCspViolations, newTestPage, type TestPage } from './browser';
import { waitForHeading } from './browser-harness';

/** Where a signed-in person lands by default: their workspace. */
const inAWorkspace = (url: URL) => url.pathname.startsWith('/workspace/');

/** Signs `page` in as the seeded person whose picker button matches `who`, and waits until `landed` holds. */
export async function signInThroughProvider(
  page: Page,
  who: RegExp,
  landed: (url: URL) => boolean = inAWorkspace,
): Promise<void> {
  await page.goto('/login');
  await waitForHeading(page, 'Sign in to Murmur');
  // The app's own screen, not the prerendered one: a press of the prerendered button is kept for the app to carry out
  // (real-server.test.ts tests that), and here the click should go to the screen that signs in.
  await page.waitForFunction(() => document.getElementById('prerendered') === null, null, SHARED_MACHINE);
  await page.getByRole('button', { name: 'Sign in with Google' }).click();
  await reach(page, (url) => url.pathname.startsWith('/oidc/interaction/'), "the provider's account picker");
  await page.getByRole('button', { name: who }).first().click();
  await reach(page, landed, 'the page after signing in');
}

/** The machine is shared with the rest of the suite: a redirect chain may take a while under its load. */
const SHARED_MACHINE = { timeout: 30_000 };

/** Waits for a URL that `reached` accepts; when none comes, the error says where the page is and what it says. */
async function reach(page: Page, reached: (url: URL) => boolean, what: string): Promise<void> {
  try {
    await page.waitForURL(reached, SHARED_MACHINE);
  } catch (error) {
    const said = await page
      .locator('[role="alert"], [role="status"]')
      .allInnerTexts()
      .catch(() => []);
    throw new Error(
      `Sign-in did not reach ${what}: the page is at ${new URL(page.url()).pathname}${said.length ? `, saying ${JSON.stringify(said)}` : ''}`,
      { cause: error },
    );
  }
}

/**
 * A new browser context on `origin` (kept in `contexts` for closing, its CSP violations collected) signed in as a
 * seeded member of the demo workspace, landed on its saved queries.
 */
export async function signInToDemo(
  browser: Browser,
  origin: string,
  contexts: TestPage[],
  account: 'Ana Owner' | 'Ben Manager' | 'Cleo Viewer',
): Promise<Page> {
  const current = await newTestPage(browser, origin);
  contexts.push(current);
  await collectCspViolations(current.context);
  const { page } = current;
  await signInThroughProvider(
    page,
    new RegExp(`^${account}`),
    (url) => url.pathname === '/workspace/demo/saved-queries',
  );
  await waitForHeading(page, 'Saved queries');
  return page;
}
