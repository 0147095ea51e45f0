// Discover end to end against the REAL server, as an analyst works: Ana signs in, types a query with an error and sees
// it underlined at its column, fixes it, sees the count and the posts the API gives for that query, saves it as a
// query, and the copied address opened in a fresh page shows the same search.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { demoUserIds } from '@server/seed';
import {
  collectCspViolations,
  cspViolations,
  launchBrowser,
  newTestPage,
  type TestPage,
} from '@test/support/browser';
import { waitForHeading } from '@test/support/browser-harness';
import { startRealServer, type RealServer } from '@test/support/real-server';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import { signInThroughProvider } from '@test/support/dev-sign-in';

const PORT = Number(process.env.MURMUR_REAL_E2E_PORT ?? 4781);
const HOUR = 3_600_000;

let server: RealServer;
let browser: Browser;
const pages: TestPage[] = [];
let token = '';

beforeAll(async () => {
  [server, browser] = await Promise.all([startRealServer(PORT), launchBrowser()]);
  token = await server.tokenFor((await demoUserIds(server.db)).get('ana@murmur.local')!);
  // A few recent posts (the test server has no demo corpus): four say espresso, one only coffee.
  const [authorId] = await insertProfiles(server.db, [
    {
      platform: 'x',
      externalId: 'e2e-barista',
      handle: 'barista_e2e',
      displayName: 'Bea Barista',
      followers: 120,
    },
  ]);
  const texts = [
    'Espresso before the stand-up',
    'A double espresso and a croissant',
    'Coffee without espresso is just brown water',
    'Morning coffee in the sun',
    'ESPRESSO tonic, try it',
  ];
  await insertPosts(
    server.db,
    texts.map((text, i) => ({
      platform: 'x' as const,
      externalId: `e2e-${i}`,
      authorId: authorId!,
      text,
      language: 'en',
      postedAt: new Date(Date.now() - (i + 1) * HOUR),
      likes: i,
      comments: 0,
      shares: 0,
      hashtags: [],
    })),
  );
});
afterAll(async () => {
  await Promise.allSettled(pages.map((current) => current.context.close()));
  await Promise.allSettled([browser?.close(), server?.close()]);
});

const api = (url: string, payload?: object) =>
  server.app.inject({
    method: payload ? 'POST' : 'GET',
    url,
    headers: { authorization: `Bearer ${token}` },
    ...(payload ? { payload } : {}),
  });

/** The texts of the post cards on the page, in order. */
const cardTexts = (page: Page) => page.locator('.post-card .post-text').allInnerTexts();

async function expectSearchShown(page: Page, query: string, count: number, texts: string[]) {
  // A fresh page first loads the app and the editor's chunk: the polls below compare what it then shows, each within
  // expect.poll's own second, which a loaded machine can spend on the loading alone.
  await page.locator('.cm-content').waitFor({ timeout: 15_000 });
  await expect.poll(() => page.locator('.cm-content').innerText()).toBe(query);
  await expect.poll(() => page.locator('.match-count').innerText()).toBe(`${count} posts match`);
  await expect.poll(() => cardTexts(page)).toEqual(texts);
}

describe('Discover (real server)', () => {
  const story = { url: '' };

  it('shows an error at its column, then the count and the posts the API returns once fixed, and saves the query', async () => {
    const current = await newTestPage(browser, server.origin);
    pages.push(current);
    await collectCspViolations(current.context);
    const { page } = current;
    await signInThroughProvider(page, /Ana/, (url) => url.pathname.startsWith('/workspace/demo'));

    await page.goto('/workspace/demo/discover');
    await waitForHeading(page, 'Discover');
    const editor = page.getByRole('textbox', { name: 'Query' });
    await editor.click();
    // CodeMirror mounted in its shadow root without a CSP violation.
    expect(await cspViolations(page)).toEqual([]);
    await page.keyboard.type('espresso)');
    // The server's error, underlined at column 9 (the stray parenthesis) and said in words.
    await expect.poll(() => page.locator('.cm-lintRange-error').innerText()).toBe(')');
    await expect
      .poll(() => page.locator('#discover-query-status').innerText())
      .toContain('Unexpected ")" at column 9');
    await expect(page.getByRole('button', { name: 'Save as query' }).isDisabled()).resolves.toBe(true);

    await page.keyboard.press('Backspace');
    const first = (
      await api('/social/discover', { workspace_id: 'demo', query: 'espresso', sort: 'recency', limit: 25 })
    ).json<{ posts: Array<{ text: string }> }>();
    const expected = first.posts.map((post) => post.text);
    expect(expected).toHaveLength(4);
    await expectSearchShown(page, 'espresso', 4, expected);
    await expect.poll(() => page.locator('.post-card mark').first().innerText()).toMatch(/^espresso$/i);
    await expect.poll(() => new URL(page.url()).search).toBe('?q=espresso');

    await page.getByRole('button', { name: 'Save as query' }).click();
    await page.getByLabel('Name').fill('Espresso talk');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'Saved “Espresso talk”' }).first().waitFor();
    const saved = (await api('/api/workspaces/demo/saved-queries')).json<{
      saved_queries: Array<{ name: string; query: string }>;
    }>();
    expect(saved.saved_queries).toContainEqual(
      expect.objectContaining({ name: 'Espresso talk', query: 'espresso' }),
    );
    expect(await cspViolations(page)).toEqual([]);
    story.url = page.url();
  });

  it('opens the copied address in a fresh page with the same search', async () => {
    expect(story.url).toContain('/discover?q=espresso');
    const current = await newTestPage(browser, server.origin);
    pages.push(current);
    // The same person, signed in again in the fresh page.
    await signInThroughProvider(current.page, /Ana/, (url) => url.pathname.startsWith('/workspace/demo'));
    await current.page.goto(story.url);
    const first = (
      await api('/social/discover', { workspace_id: 'demo', query: 'espresso', sort: 'recency', limit: 25 })
    ).json<{ posts: Array<{ text: string }> }>();
    await expectSearchShown(
      current.page,
      'espresso',
      4,
      first.posts.map((post) => post.text),
    );
  });
});
