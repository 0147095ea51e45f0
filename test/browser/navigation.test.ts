// Navigation without dead ends (issue 16, item 3), end to end: real SPA build, real Chromium, fake backend. The header's
// workspace switcher (workspaces, create, join with a code; keyboard), sign-out from the wizard and the scraping area,
// the scraping area refused to someone who is not staff, the status pages showing a workspace's true state, an unknown
// workspace without its navigation, and the confirmation after accepting an invite link.
import axe from 'axe-core';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { AUTH_TOKENS_KEY, readStorage, signIn } from '@test/support/browser';
import { SEED, setupE2e, waitForHeading, waitForPath } from '@test/support/browser-harness';

const e2e = setupE2e();

async function signInAs(userId: string) {
  await signIn(e2e.current.context, e2e.backend.issueTokens(userId));
}

async function expectToast(page: Page, text: string) {
  await page.getByRole('alert').filter({ hasText: text }).first().waitFor({ state: 'visible' });
}

const switcher = (page: Page) => page.getByRole('banner').locator('details.switcher');
const switcherButton = (page: Page) => switcher(page).locator('summary');
/** What the switcher's button names as the current place. */
const currentPlace = (page: Page) => switcher(page).locator('.switcher-current').innerText();
const workspaceList = (page: Page) => page.getByRole('navigation', { name: 'Your workspaces' });

/** Opens the header's workspace switcher with the mouse and waits for its list. */
async function openSwitcher(page: Page) {
  await switcherButton(page).click();
  await workspaceList(page).waitFor();
}

/** The names of the workspaces the switcher lists, and which one it marks as current. */
async function listed(page: Page) {
  const links = workspaceList(page).getByRole('link');
  const names = (await links.allInnerTexts()).map((text) => text.split(' · ')[0]!.trim());
  const current = await workspaceList(page).locator('a[aria-current="page"]').allInnerTexts();
  return { names, current: current.map((text) => text.split(' · ')[0]!.trim()) };
}

/** axe-core's violations on the page as drawn, as `rule: targets` lines. */
async function axeViolations(page: Page) {
  await page.evaluate(axe.source);
  const result = await page.evaluate(async () => {
    const run = (
      window as unknown as {
        axe: {
          run: (
            context: Document,
            options: object,
          ) => Promise<{ violations: Array<{ id: string; nodes: Array<{ target: string[] }> }> }>;
        };
      }
    ).axe.run;
    return run(document, { resultTypes: ['violations'] });
  });
  return result.violations.map(
    (violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
  );
}

async function expectSignedOut(page: Page) {
  await waitForPath(page, '/login');
  await waitForHeading(page, 'Sign in to Murmur');
  expect(await readStorage(page, AUTH_TOKENS_KEY)).toBeNull();
}

describe('the workspace switcher', () => {
  it("lists the user's workspaces with the current one marked, and goes to another", async () => {
    const { page } = e2e;
    await signInAs(SEED.alice);
    await page.goto(`/workspace/${SEED.w1}/saved-queries`);
    await waitForHeading(page, 'Saved queries');
    await expect.poll(() => currentPlace(page)).toBe('Acme');

    await openSwitcher(page);
    expect(await listed(page)).toEqual({ names: ['Acme', 'Beta', 'Expired'], current: ['Acme'] });
    await workspaceList(page).getByRole('link', { name: /^Beta/ }).click();
    await waitForPath(page, `/workspace/${SEED.w2}/saved-queries`);
    await waitForHeading(page, 'Saved queries');
    await expect.poll(() => currentPlace(page)).toBe('Beta');
    // The switcher closed behind the choice.
    expect(await workspaceList(page).count()).toBe(0);
  });

  it('works from the keyboard: Enter opens it, Tab walks it, Escape closes it and returns the focus', async () => {
    const { page } = e2e;
    await signInAs(SEED.alice);
    await page.goto(`/workspace/${SEED.w1}/saved-queries`);
    await waitForHeading(page, 'Saved queries');
    await switcherButton(page).focus();
    await page.keyboard.press('Enter');
    await workspaceList(page).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toMatch(/^Acme/);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toMatch(/^Beta/);
    await page.keyboard.press('Escape');
    await expect.poll(() => workspaceList(page).count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('SUMMARY');
    // Enter on a workspace link, reached with Tab, goes there.
    await page.keyboard.press('Enter');
    await workspaceList(page).waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await waitForPath(page, `/workspace/${SEED.w2}/saved-queries`);
  });

  it('has no accessibility violation, open or closed, on a workspace page, the wizard and a status page', async () => {
    const { page } = e2e;
    await signInAs(SEED.alice);
    for (const [path, heading] of [
      [`/workspace/${SEED.w1}/saved-queries`, 'Saved queries'],
      ['/workspace/create/name', 'Name your workspace'],
      [`/workspace/${SEED.w1}/plan-required`, 'This workspace is available'],
    ] as const) {
      await page.goto(path);
      await waitForHeading(page, heading);
      expect([path, 'closed', await axeViolations(page)]).toEqual([path, 'closed', []]);
      await openSwitcher(page);
      expect([path, 'open', await axeViolations(page)]).toEqual([path, 'open', []]);
    }
  });

  it('closes on a click elsewhere', async () => {
    const { page } = e2e;
    await signInAs(SEED.alice);
    await page.goto(`/workspace/${SEED.w1}/saved-queries`);
    await waitForHeading(page, 'Saved queries');
    await openSwitcher(page);
    await page.getByRole('heading', { name: 'Saved queries', exact: true }).click();
    await expect.poll(() => workspaceList(page).count()).toBe(0);
  });

  it('offers workspace creation', async () => {
    const { page } = e2e;
    await signInAs(SEED.alice);
    await page.goto(`/workspace/${SEED.w1}/saved-queries`);
    await waitForHeading(page, 'Saved queries');
    await openSwitcher(page);
    await switcher(page).getByRole('link', { name: 'Create a workspace' }).click();
    await waitForPath(page, '/workspace/create/name');
    await waitForHeading(page, 'Name your workspace');
    await expect.poll(() => currentPlace(page)).toBe('New workspace');
  });

  it('joins a workspace with a code, says so, and lists it', async () => {
    const { page, backend } = e2e;
    backend.addJoinCode('ABCDEFGH', SEED.w3);
    await signInAs(SEED.alice);
    await page.goto(`/workspace/${SEED.w1}/saved-queries`);
    await waitForHeading(page, 'Saved queries');
    await openSwitcher(page);
    await switcher(page).getByRole('textbox', { name: 'Join code' }).fill('abcd-efgh');
    await switcher(page).getByRole('button', { name: 'Join', exact: true }).click();
    await expectToast(page, 'You joined the workspace.');
    await waitForPath(page, `/workspace/${SEED.w3}/saved-queries`);
    await expect.poll(() => currentPlace(page)).toBe('Gamma');
    await openSwitcher(page);
    expect(await listed(page)).toEqual({ names: ['Acme', 'Beta', 'Gamma', 'Expired'], current: ['Gamma'] });
  });

  it('says so when a code matches no workspace, and stays', async () => {
    const { page } = e2e;
    await signInAs(SEED.alice);
    await page.goto(`/workspace/${SEED.w1}/saved-queries`);
    await waitForHeading(page, 'Saved queries');
    await openSwitcher(page);
    await switcher(page).getByRole('textbox', { name: 'Join code' }).fill('ZZZZ-ZZZZ');
    await switcher(page).getByRole('button', { name: 'Join', exact: true }).click();
    // The fake answers 404 without the contract's error code: the message falls back to the server's.
    await switcher(page).locator('.field-error').waitFor();
    expect(new URL(page.url()).pathname).toBe(`/workspace/${SEED.w1}/saved-queries`);
  });
});

describe('sign-out from every signed-in screen', () => {
  it('from a workspace page', async () => {
    const { page } = e2e;
    await signInAs(SEED.alice);
    await page.goto(`/workspace/${SEED.w1}/saved-queries`);
    await waitForHeading(page, 'Saved queries');
    await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
    await expectSignedOut(page);
  });

  it('from the workspace-creation wizard, whose switcher also offers joining', async () => {
    const { page } = e2e;
    await signInAs(SEED.carol);
    await page.goto('/workspace/create/name');
    await waitForHeading(page, 'Name your workspace');
    await openSwitcher(page);
    await workspaceList(page).getByText('You are not in any workspace yet.').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
    await expectSignedOut(page);
  });

  it('from the scraping area', async () => {
    const { page } = e2e;
    await signInAs(SEED.staff);
    await page.goto('/scraping');
    await waitForHeading(page, 'Scraping');
    await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
    await expectSignedOut(page);
  });
});

describe('a workspace the user is not in', () => {
  it('an unknown workspace shows invalid-workspace without its navigation or its id', async () => {
    const { page } = e2e;
    await signInAs(SEED.alice);
    await page.goto('/workspace/no-such-workspace/saved-queries');
    await waitForPath(page, '/workspace/no-such-workspace/invalid-workspace');
    await waitForHeading(page, 'This workspace is not available');
    expect(await page.getByRole('navigation', { name: 'Workspace' }).count()).toBe(0);
    expect(await page.getByRole('banner').innerText()).not.toContain('no-such-workspace');
    await expect.poll(() => currentPlace(page)).toBe('Your workspaces');
    await openSwitcher(page);
    expect(await listed(page)).toEqual({ names: ['Acme', 'Beta', 'Expired'], current: [] });
  });
});

describe('the scraping area', () => {
  it('is open to staff, who reach any workspace they belong to from its switcher', async () => {
    const { page } = e2e;
    await signInAs(SEED.staff);
    await page.goto('/scraping');
    await waitForHeading(page, 'Scraping');
    // The screen's reads answered: no job yet, no credentials, an empty corpus.
    await page.getByRole('heading', { name: 'No scraping jobs' }).waitFor();
    await page.getByRole('region', { name: 'Credentials' }).getByText('No credentials yet.').waitFor();
    await page.getByRole('heading', { name: 'The corpus is empty' }).waitFor();
    await openSwitcher(page);
    expect(await listed(page)).toEqual({
      names: ['Scraping (internal)', 'Beta'],
      current: ['Scraping (internal)'],
    });
    await workspaceList(page).getByRole('link', { name: /^Beta/ }).click();
    await waitForPath(page, `/workspace/${SEED.w2}/saved-queries`);
    await waitForHeading(page, 'Saved queries');
    // And back.
    await openSwitcher(page);
    await workspaceList(page)
      .getByRole('link', { name: /^Scraping/ })
      .click();
    await waitForPath(page, '/scraping');
    await waitForHeading(page, 'Scraping');
  });

  it('turns away someone who is not staff, with a clear message, to their own workspace', async () => {
    const { page } = e2e;
    await signInAs(SEED.alice);
    await page.goto('/scraping');
    await expectToast(page, 'The scraping area is for Murmur staff only.');
    await waitForPath(page, `/workspace/${SEED.w1}/saved-queries`);
    await waitForHeading(page, 'Saved queries');
    expect(await page.getByRole('heading', { name: 'Scraping', exact: true }).count()).toBe(0);
  });

  it('turns away someone without any workspace to workspace creation', async () => {
    const { page } = e2e;
    await signInAs(SEED.carol);
    await page.goto('/scraping');
    await expectToast(page, 'The scraping area is for Murmur staff only.');
    await waitForPath(page, '/workspace/create/name');
  });
});

describe('status pages show the workspace as it is', () => {
  it.each(['plan-required', 'invalid-workspace'])(
    '%s opened directly for a healthy workspace says it is open, with the way in and the way back',
    async (status) => {
      const { page } = e2e;
      await signInAs(SEED.alice);
      await page.goto(`/workspace/${SEED.w1}/${status}`);
      await waitForHeading(page, 'This workspace is available');
      await page.getByText('You are an owner of “Acme”, and its plan is active.').waitFor();
      expect(await page.getByRole('heading', { name: 'Your plan has expired' }).count()).toBe(0);
      expect(await page.getByRole('heading', { name: 'This workspace is not available' }).count()).toBe(0);
      // A healthy workspace keeps its navigation.
      await page.getByRole('navigation', { name: 'Workspace' }).waitFor();
      await page.getByRole('link', { name: 'Go to your workspaces' }).waitFor();
      await page.getByRole('link', { name: 'Open Acme' }).click();
      await waitForPath(page, `/workspace/${SEED.w1}/saved-queries`);
      await waitForHeading(page, 'Saved queries');
    },
  );

  it("an expired plan's owner is offered renewal and a way back, without the workspace's pages", async () => {
    const { page } = e2e;
    await signInAs(SEED.alice);
    await page.goto(`/workspace/${SEED.expired}/saved-queries`);
    await waitForPath(page, `/workspace/${SEED.expired}/plan-required`);
    await waitForHeading(page, 'Your plan has expired');
    await page.getByRole('link', { name: 'Renew plan' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Workspace' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Go to your workspaces' }).click();
    await waitForPath(page, `/workspace/${SEED.w1}/saved-queries`);
  });

  it('a viewer sent to plan-required by hand is told to ask the owner, not offered renewal', async () => {
    const { page } = e2e;
    await signInAs(SEED.bob);
    await page.goto(`/workspace/${SEED.expired}/plan-required`);
    await waitForHeading(page, 'This workspace is not available');
    await page.getByText('The plan of “Expired” has expired. Ask its owner to renew it.').waitFor();
    expect(await page.getByRole('link', { name: 'Renew plan' }).count()).toBe(0);
  });

  it('a workspace the user is not in shows nothing of it, plan-required opened by hand included', async () => {
    const { page } = e2e;
    await signInAs(SEED.alice);
    await page.goto(`/workspace/${SEED.other}/plan-required`);
    await waitForHeading(page, 'This workspace is not available');
    expect(await page.getByRole('navigation', { name: 'Workspace' }).count()).toBe(0);
    expect(await page.getByRole('banner').innerText()).not.toContain('Other');
  });
});

describe('invite links', () => {
  it('accepting one confirms it, and the switcher lists the workspace', async () => {
    const { page } = e2e;
    await signInAs(SEED.alice);
    await page.goto(`/invite?token=${SEED.goodInvite}`);
    await expectToast(page, 'You joined the workspace.');
    await waitForPath(page, `/workspace/${SEED.w3}/saved-queries`);
    await expect.poll(() => currentPlace(page)).toBe('Gamma');
  });
});
