// The saved queries screen end to end against the REAL server: Ana Owner writes a query with a mistake, sees it at its
// position, fixes it and saves it; the list shows its 7-day mentions as the social API counts them; Cleo Viewer sees
// the same list with every control disabled and the reason. A few posts are written straight into the database so the
// count is not zero.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { posts, profiles } from '../../server/db/social-schema';
import { demoUserIds } from '../../server/seed';
import type { SavedQueryVolume } from '../../src/contract/saved-queries';
import { launchBrowser, newTestPage, type TestPage } from '../support/browser';
import { waitForHeading } from '../support/browser-harness';
import { startRealServer, type RealServer } from '../support/real-server';

const PORT = Number(process.env.MURMUR_REAL_E2E_PORT ?? 4781);
const NAME = 'Harbour ferries';

let server: RealServer;
let browser: Browser;
const contexts: TestPage[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startRealServer(PORT), launchBrowser()]);
  const [author] = await server.db
    .insert(profiles)
    .values({ platform: 'x', externalId: 'e2e-ferry', handle: 'ferryfan', displayName: 'Ferry Fan' })
    .returning({ id: profiles.id });
  const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);
  await server.db.insert(posts).values(
    [1, 30, 50, 75, 120].map((hours, i) => ({
      authorId: author!.id,
      platform: 'x' as const,
      externalId: `e2e-ferry-${i}`,
      text: `The harbourferry is late again #ferries`,
      postedAt: hoursAgo(hours),
    })),
  );
});
afterAll(async () => {
  await Promise.allSettled(contexts.map((current) => current.context.close()));
  await Promise.allSettled([browser?.close(), server?.close()]);
});

async function signInAs(account: 'Ana Owner' | 'Cleo Viewer'): Promise<Page> {
  const current = await newTestPage(browser, server.origin);
  contexts.push(current);
  const { page } = current;
  await page.goto('/login');
  await page.getByRole('button', { name: 'Sign in with Google' }).click();
  await page.waitForURL((url) => url.pathname.startsWith('/oidc/interaction/'));
  await page.getByRole('button', { name: new RegExp(`^${account}`) }).click();
  await page.waitForURL((url) => url.pathname === '/workspace/demo/saved-queries');
  await waitForHeading(page, 'Saved queries');
  return page;
}

describe('saved queries (real server)', () => {
  it('Ana saves a query after fixing the error shown at its position, and sees its 7-day count', async () => {
    const page = await signInAs('Ana Owner');
    await page
      .getByRole('button', { name: /New saved query|Create your first saved query/ })
      .first()
      .click();
    await page.getByRole('textbox', { name: 'Name' }).fill(NAME);
    const query = page.getByRole('textbox', { name: 'Query' });
    await query.fill('harbourferry AND (late OR');
    await page.getByRole('checkbox', { name: 'X', exact: true }).check();
    await page.getByRole('button', { name: 'Save query' }).click();

    // The parser's error, with the offending span marked under the text; the form keeps what was typed.
    const errors = page.locator('#saved-query-text-errors li');
    await errors.first().waitFor();
    const error = await errors.first().getByRole('button').innerText();
    expect(error).toMatch(/column \d+/);
    expect(await query.getAttribute('aria-invalid')).toBe('true');
    expect(await errors.first().locator('pre').innerText()).toBe('harbourferry AND (late OR');
    expect(await page.getByRole('textbox', { name: 'Name' }).inputValue()).toBe(NAME);

    await query.fill('harbourferry AND (late OR delayed)');
    expect(await errors.count()).toBe(0);
    await page.getByRole('button', { name: 'Save query' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: `Saved “${NAME}”` })
      .first()
      .waitFor();
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: NAME }) });
    await row.waitFor();
    expect(await row.getByRole('cell').nth(1).innerText()).toBe('Ana Owner');

    // The count the list shows is the one the social API gives for that saved query.
    const sparkline = row.getByRole('img', { name: /mentions in the last 7 days and today/ });
    await sparkline.waitFor();
    const label = (await sparkline.getAttribute('aria-label'))!;
    const anaId = (await demoUserIds(server.db)).get('ana@murmur.local')!;
    const answer = await server.app.inject({
      method: 'POST',
      url: '/social/saved-queries/volume',
      headers: { authorization: `Bearer ${await server.accessTokens.sign(anaId)}` },
      payload: { workspace_id: 'demo' },
    });
    expect(answer.statusCode).toBe(200);
    const volume = answer.json<SavedQueryVolume>();
    const listed = await row.getByRole('rowheader').getByRole('link').getAttribute('href');
    const id = new URL(listed!, server.origin).searchParams.get('query');
    const entry = volume.saved_queries.find((q) => q.id === id)!;
    expect(entry.total).toBe(5);
    expect(label).toMatch(new RegExp(`^${entry.total} mentions in the last 7 days and today`));
  });

  it('Cleo sees the list with every control disabled and the reason', async () => {
    const page = await signInAs('Cleo Viewer');
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: NAME }) });
    await row.waitFor();
    await page.getByText('Only owners and managers can change saved queries.').waitFor();
    for (const button of [
      page.getByRole('button', { name: 'New saved query' }),
      row.getByRole('button', { name: `Edit ${NAME}` }),
      row.getByRole('button', { name: `Duplicate ${NAME}` }),
      row.getByRole('button', { name: `Delete ${NAME}` }),
    ]) {
      expect(await button.isDisabled()).toBe(true);
      expect(await button.getAttribute('title')).toBe('Only owners and managers can change saved queries.');
    }
  });
});
