// Themes of a range end to end against the REAL server: two groups of posts of the last days, one about an outage,
// one about a bake (each post with two or three of its group's words). Ana opens the conversation dashboard, the
// Themes card lists the themes the API computes for the range (their words as the buttons' names, in the API's
// order), axe-core finds no violation with it open, and a theme's button, reached from the keyboard, opens filtered
// posts refined to any of its words, listing exactly the theme's posts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { ThemesResponse } from '@contract/insights-themes';
import { demoUserIds } from '@server/seed';
import { launchBrowser, newTestPage, type TestPage } from '@test/support/browser';
import { waitForHeading } from '@test/support/browser-harness';
import { axeViolations } from '@test/support/axe';
import { startRealServer, type RealServer } from '@test/support/real-server';
import { signInThroughProvider } from '@test/support/dev-sign-in';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';

const PORT = Number(process.env.MURMUR_REAL_E2E_PORT ?? 4781) + 10;
const DAY = 86_400_000;
const HOUR = 3_600_000;
const GROUPS = [
  ['cloudnest', 'outage', 'login'],
  ['matcha', 'tiramisu', 'recipe'],
];

let server: RealServer;
let browser: Browser;
const pages: TestPage[] = [];
let token = '';

beforeAll(async () => {
  [server, browser] = await Promise.all([startRealServer(PORT), launchBrowser()]);
  token = await server.tokenFor((await demoUserIds(server.db)).get('ana@murmur.local')!);
  const ids = await insertProfiles(server.db, [
    { platform: 'x', externalId: 'thm-1', handle: 'nestwatch', displayName: 'Nest Watch', followers: 900 },
    { platform: 'reddit', externalId: 'thm-2', handle: 'bakebot', displayName: 'Bake Bot', followers: 12 },
  ]);
  const now = Math.floor(Date.now() / HOUR) * HOUR;
  await insertPosts(
    server.db,
    GROUPS.flatMap((words, g) =>
      Array.from({ length: 12 }, (_, i) => ({
        platform: g ? ('reddit' as const) : ('x' as const),
        externalId: `thm-${g}-${i}`,
        authorId: ids[g]!,
        text: `${i % 3 ? words.slice(0, 2).join(' ') : words.join(' ')} ${i % 2 ? words[2] : ''} again`.trim(),
        language: 'en',
        postedAt: new Date(now - (i + 1) * 7 * HOUR - g * HOUR),
        likes: i,
      })),
    ),
  );
});
afterAll(async () => {
  await Promise.allSettled(pages.map((current) => current.context.close()));
  await Promise.allSettled([browser?.close(), server?.close()]);
});

describe('Themes (real server)', () => {
  it("lists the range's themes and opens a theme's posts from the keyboard", async () => {
    const current = await newTestPage(browser, server.origin);
    pages.push(current);
    const { page } = current;
    await signInThroughProvider(page, /Ana/, (url) => url.pathname.startsWith('/workspace/demo'));
    await page.goto('/workspace/demo/insight/conversation?range=7d');
    await waitForHeading(page, 'Conversation');
    const card = page.getByRole('region', { name: 'Themes' });
    await card.locator('.themes-list').waitFor({ timeout: 30_000 });

    // The API's answer for the same 7 days is what the card lists.
    const to = new Date().toISOString();
    const response = await server.app.inject({
      method: 'POST',
      url: '/social/insights/themes',
      headers: { authorization: `Bearer ${token}` },
      payload: {
        workspace_id: 'demo',
        query: '',
        filters: { from: new Date(Date.now() - 7 * DAY).toISOString(), to },
      },
    });
    expect(response.statusCode, response.body).toBe(200);
    const answer = response.json<ThemesResponse>();
    expect(answer.themes.length).toBeGreaterThan(0);
    const names = answer.themes.map(
      (t) => `Posts with any of ${t.terms.map((term) => term.value).join(', ')}`,
    );
    const buttons = card.locator('.themes-list h3 button');
    await expect
      .poll(() => buttons.evaluateAll((list) => list.map((b) => b.getAttribute('aria-label'))))
      .toEqual(names);
    expect(await axeViolations(page)).toEqual([]);

    // The first theme's drill-down, from the keyboard: its words as one refinement, exactly its posts.
    const first = answer.themes[0]!;
    await buttons.first().focus();
    await page.keyboard.press('Enter');
    await waitForHeading(page, 'Filtered posts');
    const words = first.terms.map((t) => t.value).join(' or ');
    await expect.poll(() => page.getByText(`Word: only ${words}`).count()).toBe(1);
    await expect
      .poll(() => page.locator('main').innerText(), { timeout: 20_000 })
      .toContain(`of ${first.posts.toLocaleString('en-US')} posts`);
  });
});
