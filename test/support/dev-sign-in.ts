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
  await page.getByRole('button', { name: 'Sign in with Google' }).click();
  await page.waitForURL((url) => url.pathname.startsWith('/oidc/interaction/'));
  await page.getByRole('button', { name: who }).first().click();
  await page.waitForURL(landed);
}

/**
 * A new browser context on `origin` (kept in `contexts` for closing, its CSP violations collected) signed in as a
 * seeded member of the demo workspace, landed on its saved queries.
 */
export async function signInToDemo(
  browser: Browser,
  origin: string,
  contexts: TestPage[],
  account: 'Ana Owner' | 'Cleo Viewer',
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
