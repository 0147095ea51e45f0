// Signing in to the real server as a person does: the login screen, "Sign in with Google", then the development
// OpenID provider's account picker (server/dev-oidc), then wherever the SPA lands.
import type { Page } from 'playwright-core';
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
