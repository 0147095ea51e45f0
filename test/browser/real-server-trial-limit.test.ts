// The trial limit on the workspace-creation form, against the REAL server: the form says how many trial workspaces a
// person may own, and a person who already owns that many is told why the workspace was not created, on the form,
// and stays on it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { eq } from 'drizzle-orm';
import { TRIAL_WORKSPACES_PER_PERSON } from '@contract/workspaces';
import { memberships, workspaces } from '@server/db/schema';
import { demoUserIds } from '@server/seed';
import { launchBrowser, newTestPage, pathOf, type TestPage } from '@test/support/browser';
import { waitForHeading, waitForPath } from '@test/support/browser-harness';
import { signInThroughProvider } from '@test/support/dev-sign-in';
import { startRealServer, type RealServer } from '@test/support/real-server';

const PORT = Number(process.env.MURMUR_REAL_E2E_PORT ?? 4781) + 7;
const DAY_MS = 86_400_000;
const SENTENCE = `A new workspace starts on a free trial. You can own up to ${TRIAL_WORKSPACES_PER_PERSON} workspaces on a trial at a time.`;

let server: RealServer;
let browser: Browser;
const contexts: TestPage[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startRealServer(PORT), launchBrowser()]);
});
afterAll(async () => {
  await Promise.allSettled(contexts.map((current) => current.context.close()));
  await Promise.allSettled([browser?.close(), server?.close()]);
});

describe('the trial limit on the workspace-creation form', () => {
  it('is stated on the form, and a person at the limit is told so there and stays on it', async () => {
    // Ana owns the demo workspace (not a trial) and, here, as many running trials as a person may.
    const anaId = (await demoUserIds(server.db)).get('ana@murmur.local')!;
    for (let index = 0; index < TRIAL_WORKSPACES_PER_PERSON; index++) {
      const [trial] = await server.db
        .insert(workspaces)
        .values({ name: `Trial ${index}`, plan: 'trial', planExpiredAt: new Date(Date.now() + 14 * DAY_MS) })
        .returning();
      await server.db
        .insert(memberships)
        .values({ workspaceId: trial!.id, userId: anaId, privilege: 'owner' });
    }

    const current = await newTestPage(browser, server.origin);
    contexts.push(current);
    const { page } = current;
    await signInThroughProvider(page, /Ana Owner/);
    await page.goto('/workspace/create/name');
    await waitForHeading(page, 'Name your workspace');
    const name = page.getByLabel('Workspace name');
    // The sentence is on the form, beside the name, before anything is sent.
    await page.locator('form').getByText(SENTENCE, { exact: true }).waitFor({ state: 'visible' });

    await name.fill('One too many');
    await page.getByRole('button', { name: 'Next' }).click();
    await waitForPath(page, '/workspace/create/language');
    await page.getByRole('radio', { name: /^English/ }).check();
    await page.getByRole('button', { name: 'Next' }).click();
    await waitForPath(page, '/workspace/create/user-info');
    await page.getByRole('button', { name: 'Create workspace' }).click();

    await page
      .getByRole('alert')
      .filter({ hasText: `You already own ${TRIAL_WORKSPACES_PER_PERSON} workspaces on a free trial.` })
      .first()
      .waitFor({ state: 'visible' });
    expect(pathOf(page)).toBe('/workspace/create/user-info');
    expect(await server.db.select().from(workspaces).where(eq(workspaces.name, 'One too many'))).toEqual([]);
  });
});
