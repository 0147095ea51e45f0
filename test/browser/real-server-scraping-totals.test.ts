// The scraping area's corpus totals against the REAL server, in Chromium at a desktop's width and a phone's: fourteen
// UTC days, the platform and the all-time column do not fit every box, and the table must never cut a column off.
// Today's column (the one a person opening the screen looks for) and All time are in view when the screen opens; the
// platform names stay beside them; the rest is one keyboard scroll away in a frame that shows its focus.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { CorpusTotals } from '@contract/scraping';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import { launchBrowser, newTestPage, type TestPage } from '@test/support/browser';
import { signInThroughProvider } from '@test/support/dev-sign-in';
import { startRealServer, type RealServer } from '@test/support/real-server';

const PORT = Number(process.env.MURMUR_REAL_E2E_PORT ?? 4781);

let server: RealServer;
let browser: Browser;
const pages: TestPage[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startRealServer(PORT), launchBrowser()]);
  const platforms = ['x', 'reddit', 'rss'] as const;
  const authors = await insertProfiles(
    server.db,
    platforms.map((platform) => ({
      platform,
      externalId: `totals-${platform}`,
      handle: `totals_${platform}`,
      displayName: `Totals ${platform}`,
    })),
  );
  // Posts today and on earlier days of the fortnight, on three platforms.
  await insertPosts(
    server.db,
    platforms.flatMap((platform, p) =>
      [0, 1, 3, 6, 13].map((days, i) => ({
        authorId: authors[p]!,
        platform,
        externalId: `totals-${platform}-${i}`,
        text: `Corpus totals post ${i} on ${platform}`,
        // Today's: a minute ago, but not before today's UTC midnight.
        postedAt: new Date(Math.max(Date.now() - days * 86_400_000 - 60_000, days ? 0 : todayStart())),
      })),
    ),
  );
});
afterAll(async () => {
  await Promise.allSettled(pages.map((current) => current.context.close()));
  await Promise.allSettled([browser?.close(), server?.close()]);
});

async function openScrapingAs(width: number, height: number): Promise<Page> {
  const current = await newTestPage(browser, server.origin);
  pages.push(current);
  const { page } = current;
  await page.setViewportSize({ width, height });
  await signInThroughProvider(page, /Sam/, (url) => /^\/(workspace|scraping)/.test(url.pathname));
  await page.goto('/scraping');
  await page.locator('.scraping-totals tbody tr').first().waitFor();
  return page;
}

/** Where a header cell is against its scroll frame and the page: fully in view, cut, or out of view. */
async function placeOf(page: Page, selector: string) {
  return page.locator(selector).evaluate((cell) => {
    // The page scrolled (vertically only) to bring the row into the window, so what covers the cell can be asked.
    window.scrollTo(0, window.scrollY + cell.getBoundingClientRect().top - 100);
    const frame = cell.closest('.scraping-scroll')!.getBoundingClientRect();
    const box = cell.getBoundingClientRect();
    const middle = document.elementFromPoint((box.left + box.right) / 2, (box.top + box.bottom) / 2);
    const main = document.querySelector('main')!;
    const inner = main.getBoundingClientRect();
    const padding = parseFloat(getComputedStyle(main).paddingRight);
    const seen = (outer: { left: number; right: number }) =>
      box.left >= outer.left - 0.5 && box.right <= outer.right + 0.5;
    return {
      // Not under the columns that stay put (the platform, All time).
      inFrame: seen(frame) && middle !== null && cell.contains(middle),
      inPage: seen({ left: 0, right: document.documentElement.clientWidth }),
      // The frame stays inside the page's column: the table scrolls in it instead of running past the page.
      frameInColumn: frame.right <= inner.right - padding + 0.5,
    };
  });
}

const today = () => new Date().toISOString().slice(0, 10);
const todayStart = () => Date.parse(`${today()}T00:00:00Z`);
const dayCell = (day: string) => `.scraping-totals thead th:has(time[datetime="${day}"])`;

describe('corpus totals (real server)', () => {
  for (const [name, width, height] of [
    ['a desktop', 1280, 800],
    ['a laptop', 1024, 700],
    ['a phone', 390, 844],
  ] as const) {
    it(`shows today's column and All time as the screen opens, on ${name} (${width} px)`, async () => {
      const page = await openScrapingAs(width, height);
      for (const cell of [dayCell(today()), '.scraping-totals thead th:last-child']) {
        expect(await placeOf(page, cell), cell).toEqual({ inFrame: true, inPage: true, frameInColumn: true });
      }
      // The platform names stay in view beside them.
      expect(await placeOf(page, '.scraping-totals tbody tr:first-child th[scope="row"]')).toEqual({
        inFrame: true,
        inPage: true,
        frameInColumn: true,
      });
      // Today's counts are those the server gives.
      const answer = await page.evaluate(async () => {
        const { access_token } = JSON.parse(localStorage.getItem('auth_tokens')!) as { access_token: string };
        const response = await fetch('/api/scraping/totals', {
          headers: { authorization: `Bearer ${access_token}` },
        });
        return (await response.json()) as CorpusTotals;
      });
      expect(answer.days.at(-1)).toBe(today());
      const shown = await page
        .locator('.scraping-totals tbody tr')
        .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].at(-2)!.textContent));
      expect(shown).toEqual(
        answer.all_time.map(({ platform }) =>
          (answer.platforms.find((p) => p.platform === platform)?.posts.at(-1) ?? 0).toLocaleString('en-US'),
        ),
      );
      expect(answer.platforms.find((p) => p.platform === 'x')?.posts.at(-1)).toBeGreaterThanOrEqual(1);

      // The fortnight's first day is reachable with the keyboard: the frame takes focus, shows it, and scrolls.
      const first = await page.locator('.scraping-totals thead th time').first().getAttribute('datetime');
      const frame = page.locator('.scraping-scroll').filter({ has: page.locator('.scraping-totals') });
      await frame.focus();
      expect(await frame.evaluate((element) => getComputedStyle(element).outlineStyle)).not.toBe('none');
      for (let press = 0; press < 60 && !(await placeOf(page, dayCell(first!))).inFrame; press += 1) {
        await page.keyboard.press('ArrowLeft');
      }
      expect(await placeOf(page, dayCell(first!))).toEqual({
        inFrame: true,
        inPage: true,
        frameInColumn: true,
      });
    });
  }
});
