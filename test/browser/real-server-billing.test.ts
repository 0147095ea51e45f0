// Plans and the card checkout end to end against the REAL server (issue 18), in Chromium: the owner of an expired
// workspace lands on plan-required, renews through the built-in payment provider's hosted page with the success card
// and is back in the workspace; the declined card shows the provider's message and changes nothing; the confirmation
// card works once confirmed and does nothing when abandoned; a manager and a viewer of the expired workspace see
// invalid-workspace; the plan page shows every limit with its usage before it is reached.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { memberships, workspaces } from '@server/db/schema';
import { savedQueries } from '@server/db/social-schema';
import { demoUserIds } from '@server/seed';
import { collectCspViolations, launchBrowser, newTestPage, type TestPage } from '@test/support/browser';
import { waitForHeading, waitForPath } from '@test/support/browser-harness';
import { startRealServer, type RealServer } from '@test/support/real-server';
import { signInThroughProvider } from '@test/support/dev-sign-in';

const PORT = Number(process.env.MURMUR_REAL_E2E_PORT ?? 4781);
/** Set MURMUR_BILLING_SHOTS to a directory to keep a screenshot of each screen. */
const SHOTS = process.env.MURMUR_BILLING_SHOTS;

type Account = 'Ana Owner' | 'Ben Manager' | 'Cleo Viewer';
const EMAILS: Record<Account, string> = {
  'Ana Owner': 'ana@murmur.local',
  'Ben Manager': 'ben@murmur.local',
  'Cleo Viewer': 'cleo@murmur.local',
};

let server: RealServer;
let browser: Browser;
const contexts: TestPage[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startRealServer(PORT), launchBrowser()]);
  if (SHOTS) mkdirSync(SHOTS, { recursive: true });
});
afterAll(async () => {
  await Promise.allSettled(contexts.map((current) => current.context.close()));
  await Promise.allSettled([browser?.close(), server?.close()]);
});

async function shot(page: Page, name: string) {
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

/** A workspace whose trial ended yesterday, with Ana as owner, Ben as manager and Cleo as viewer. */
async function expiredWorkspace(name: string): Promise<string> {
  const ids = await demoUserIds(server.db);
  const [row] = await server.db
    .insert(workspaces)
    .values({
      name,
      plan: 'trial',
      planExpiredAt: new Date(Date.now() - 86_400_000),
      timeZone: 'Europe/Berlin',
    })
    .returning();
  await server.db.insert(memberships).values([
    { workspaceId: row!.id, userId: ids.get(EMAILS['Ana Owner'])!, privilege: 'owner' },
    { workspaceId: row!.id, userId: ids.get(EMAILS['Ben Manager'])!, privilege: 'manager' },
    { workspaceId: row!.id, userId: ids.get(EMAILS['Cleo Viewer'])!, privilege: 'viewer' },
  ]);
  return row!.id;
}

async function signInAs(account: Account): Promise<Page> {
  const current = await newTestPage(browser, server.origin);
  contexts.push(current);
  await collectCspViolations(current.context);
  const { page } = current;
  await signInThroughProvider(page, new RegExp(`^${account}`));
  return page;
}

async function planExpiredAt(workspaceId: string) {
  const [row] = await server.db.select().from(workspaces).where(eq(workspaces.id, workspaceId));
  return row!.planExpiredAt;
}

/** From plan-required: "Renew plan", the plan and interval, then the provider's hosted page. */
async function toProviderPage(page: Page, workspaceId: string, planName = 'Team') {
  await page.goto(`/workspace/${workspaceId}`);
  await waitForPath(page, `/workspace/${workspaceId}/plan-required`);
  await waitForHeading(page, 'Your plan has expired');
  await page.getByRole('link', { name: 'Renew plan' }).click();
  await waitForPath(page, `/workspace/${workspaceId}/checkout`);
  await waitForHeading(page, 'Renew your plan');
  await page.getByRole('radio', { name: new RegExp(`^${planName}`) }).check();
  await page.getByRole('radio', { name: 'Monthly' }).check();
  await page.getByRole('button', { name: 'Continue to payment' }).click();
  await page.waitForURL((url) => url.pathname.startsWith('/payments/checkout/'));
  await waitForHeading(page, 'Pay with card');
}

async function fillCard(page: Page, number: string) {
  await page.getByLabel('Card number').fill(number);
  await page.getByLabel('Expiry (MM / YY)').fill('12 / 34');
  await page.getByLabel('Security code (CVC)').fill('123');
  await page.getByLabel('Name on card').fill('Ana Owner');
  await page.getByRole('button', { name: /^Pay / }).click();
}

describe('buying a plan for a workspace on an unlimited plan', () => {
  it('the checkout says what paying replaces, by what and when, before anyone pays', async () => {
    const page = await signInAs('Ana Owner');
    await page.goto('/workspace/demo/checkout');
    await waitForHeading(page, 'Choose a plan');
    await page.getByRole('radio', { name: /^Team/ }).check();
    await page
      .getByRole('status')
      .filter({
        hasText: /^This workspace is on Demo, without limits\. Paying replaces it at once with Team: /,
      })
      .waitFor();
    await shot(page, 'checkout-replaces-unlimited');
  });
});

describe('renewing an expired plan through the built-in provider', () => {
  it('the owner lands on plan-required, pays with the success card and is back in the workspace', async () => {
    const workspaceId = await expiredWorkspace('Harbour Renewals');
    const page = await signInAs('Ana Owner');
    await page.goto(`/workspace/${workspaceId}`);
    await waitForPath(page, `/workspace/${workspaceId}/plan-required`);
    await waitForHeading(page, 'Your plan has expired');
    await shot(page, 'plan-required');
    await page.getByRole('link', { name: 'Renew plan' }).click();
    await waitForHeading(page, 'Renew your plan');
    await shot(page, 'checkout');
    await page.getByRole('radio', { name: /^Team/ }).check();
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/payments/checkout/'));
    await waitForHeading(page, 'Pay with card');
    expect(await page.getByText('$149.00').first().isVisible()).toBe(true);
    await shot(page, 'provider-checkout');
    await fillCard(page, '4242 4242 4242 4242');
    await page.waitForURL((url) => url.pathname === '/checkout/return');
    await waitForHeading(page, 'Payment received');
    await shot(page, 'checkout-return-paid');
    expect((await planExpiredAt(workspaceId))!.getTime()).toBeGreaterThan(Date.now() + 27 * 86_400_000);
    await page.getByRole('link', { name: 'Continue to your workspace' }).click();
    await waitForPath(page, `/workspace/${workspaceId}/saved-queries`);
    await waitForHeading(page, 'Saved queries');

    // The plan and billing pages show what was bought, with dates in the workspace's zone.
    await page.goto(`/workspace/${workspaceId}/settings/plan`);
    await waitForHeading(page, 'Plan');
    await page.getByRole('heading', { name: /Team/, level: 2 }).waitFor();
    expect(await page.getByText(/^Renews on .* for \$149\.00\.$/).isVisible()).toBe(true);
    expect(await page.getByText('(Europe/Berlin)').first().isVisible()).toBe(true);
    await shot(page, 'plan');
    await page.goto(`/workspace/${workspaceId}/settings/billing`);
    await waitForHeading(page, 'Billing');
    await page.getByText('ending in').waitFor();
    expect(await page.locator('.card-line').innerText()).toMatch(/visa ending in 4242/i);
    const invoices = page.getByRole('table');
    await invoices.getByRole('cell', { name: '$149.00' }).waitFor();
    const download = page.waitForEvent('download');
    await invoices.getByRole('button', { name: /^Download invoice MUR-/ }).click();
    expect((await download).suggestedFilename()).toMatch(/^invoice-MUR-\d+\.html$/);
    await shot(page, 'billing');
  });

  it('the declined card shows the provider message and changes nothing', async () => {
    const workspaceId = await expiredWorkspace('Harbour Declined');
    const before = await planExpiredAt(workspaceId);
    const page = await signInAs('Ana Owner');
    await toProviderPage(page, workspaceId);
    await fillCard(page, '4000 0000 0000 0002');
    await page.getByRole('alert').filter({ hasText: 'Your card was declined.' }).waitFor();
    await shot(page, 'provider-declined');
    expect(new URL(page.url()).pathname).toMatch(/^\/payments\/checkout\//);
    expect(await planExpiredAt(workspaceId)).toEqual(before);
    await page.goto(`/workspace/${workspaceId}`);
    await waitForPath(page, `/workspace/${workspaceId}/plan-required`);
  });

  it('the confirmation card works after confirming', async () => {
    const workspaceId = await expiredWorkspace('Harbour Confirmed');
    const page = await signInAs('Ana Owner');
    await toProviderPage(page, workspaceId, 'Starter');
    await fillCard(page, '4000 0025 0000 3155');
    await waitForHeading(page, 'Confirm your payment');
    await shot(page, 'provider-confirm');
    await page.getByRole('button', { name: 'Complete authentication' }).click();
    await waitForHeading(page, 'Payment received');
    await page.getByRole('link', { name: 'Continue to your workspace' }).click();
    await waitForPath(page, `/workspace/${workspaceId}/saved-queries`);
  });

  it('the confirmation card does nothing when the confirmation is abandoned', async () => {
    const workspaceId = await expiredWorkspace('Harbour Abandoned');
    const before = await planExpiredAt(workspaceId);
    const page = await signInAs('Ana Owner');
    await toProviderPage(page, workspaceId);
    await fillCard(page, '4000 0025 0000 3155');
    await waitForHeading(page, 'Confirm your payment');
    // Walks away: back to the product without confirming.
    await page.goto(`/workspace/${workspaceId}`);
    await waitForPath(page, `/workspace/${workspaceId}/plan-required`);
    await waitForHeading(page, 'Your plan has expired');
    expect(await planExpiredAt(workspaceId)).toEqual(before);
  });

  it.each(['Ben Manager', 'Cleo Viewer'] as const)(
    '%s of the expired workspace sees invalid-workspace',
    async (who) => {
      const workspaceId = await expiredWorkspace(`Harbour for ${who}`);
      const page = await signInAs(who);
      await page.goto(`/workspace/${workspaceId}/saved-queries`);
      await waitForPath(page, `/workspace/${workspaceId}/invalid-workspace`);
      await waitForHeading(page, 'This workspace is not available');
      expect(await page.getByRole('link', { name: 'Renew plan' }).count()).toBe(0);
      // The checkout is the owners': opened by hand, it says so and offers nothing to buy.
      await page.goto(`/workspace/${workspaceId}/checkout`);
      await waitForHeading(page, 'Checkout');
      expect(await page.getByRole('button', { name: 'Continue to payment' }).count()).toBe(0);
    },
  );
});

describe('changing a paid plan from the plan and billing pages', () => {
  it('upgrades at once (prorated), cancels at period end and resumes, and keeps billing details', async () => {
    const workspaceId = await expiredWorkspace('Harbour Changes');
    const page = await signInAs('Ana Owner');
    await toProviderPage(page, workspaceId, 'Starter');
    await fillCard(page, '5555 5555 5555 4444');
    await waitForHeading(page, 'Payment received');

    await page.goto(`/workspace/${workspaceId}/settings/plan`);
    await page.getByRole('region', { name: /^Starter/ }).waitFor();
    await page.getByRole('button', { name: 'Upgrade to Team' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Upgrade to Team?' });
    await dialog.getByText(/prorated/).waitFor();
    await dialog.getByRole('button', { name: 'Upgrade now' }).click();
    await dialog.waitFor({ state: 'detached' });
    // The webhook applies it; the page reads the plan again while the payment is pending.
    const current = page.getByRole('region', { name: /^(Starter|Team)/ }).getByRole('heading', { level: 2 });
    await expect.poll(() => current.innerText(), { timeout: 15_000 }).toMatch(/^Team/);
    expect(await page.getByText('Current plan').count()).toBe(1);
    await shot(page, 'after-upgrade');
    await page.getByRole('button', { name: 'Downgrade to Starter' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Downgrade at period end' }).click();
    await page.getByText(/^Changes to Starter \(monthly\) on /).waitFor();

    await page.goto(`/workspace/${workspaceId}/settings/billing`);
    await waitForHeading(page, 'Billing');
    expect(await page.locator('.card-line').innerText()).toMatch(/mastercard ending in 4444/i);
    expect(await page.getByRole('table').getByRole('row').count()).toBe(3); // a header, two invoices
    await page.getByRole('button', { name: 'Cancel at period end' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Cancel at period end' }).click();
    await page.getByRole('button', { name: 'Resume plan' }).waitFor();
    await page.getByRole('button', { name: 'Resume plan' }).click();
    await page.getByRole('button', { name: 'Cancel at period end' }).waitFor();

    await page.getByLabel('Billing e-mail').fill('not an address');
    await page.getByRole('button', { name: 'Save billing details' }).click();
    await page.getByText('Enter an e-mail address such as billing@example.com, or leave it empty.').waitFor();
    await page.getByLabel('Billing e-mail').fill('billing@harbour.example');
    await page.getByLabel('Company or name').fill('Harbour Analytics GmbH');
    await page.getByLabel('Country (two-letter code, e.g. DE)').fill('de');
    await page.getByRole('button', { name: 'Save billing details' }).click();
    await page.getByRole('alert').filter({ hasText: 'Billing details saved.' }).first().waitFor();
    await page.reload();
    await waitForHeading(page, 'Billing');
    expect(await page.getByLabel('Country (two-letter code, e.g. DE)').inputValue()).toBe('DE');
    await shot(page, 'billing-after-changes');
  });
});

describe('limits shown before they are reached', () => {
  it('the plan page warns from 80 % and the trial shows its end', async () => {
    const ids = await demoUserIds(server.db);
    const [row] = await server.db
      .insert(workspaces)
      .values({ name: 'Harbour Trial', plan: 'trial', planExpiredAt: new Date(Date.now() + 10 * 86_400_000) })
      .returning();
    await server.db
      .insert(memberships)
      .values({ workspaceId: row!.id, userId: ids.get(EMAILS['Ana Owner'])!, privilege: 'owner' });
    // 20 of the trial's 25 saved queries: 80 %.
    await server.db.insert(savedQueries).values(
      Array.from({ length: 20 }, (_, i) => ({
        workspaceId: row!.id,
        name: `Topic ${i + 1}`,
        query: `coffee${i}`,
        filters: {},
        createdBy: ids.get(EMAILS['Ana Owner'])!,
      })),
    );
    const page = await signInAs('Ana Owner');
    await page.goto(`/workspace/${row!.id}/settings/plan`);
    await waitForHeading(page, 'Plan');
    await page.getByText(/^Trial: 10 days left, until /).waitFor();
    const meter = page.getByRole('meter', { name: 'Saved queries' });
    expect(await meter.getAttribute('aria-valuenow')).toBe('20');
    expect(await meter.getAttribute('aria-valuemax')).toBe('25');
    await page.getByText('Close to the limit (80 %).').waitFor();
    await page.getByText(/^Your trial ends on .* \(10 days left\)/).waitFor();
    await shot(page, 'plan-trial-usage');
  });
});
