// The workspace's time zone end to end against the REAL server: Ana (owner of the demo workspace) sees the best
// time to post in UTC, opens Settings › General, finds Asia/Tokyo in the time zone list from the keyboard (its offset
// shown), saves, and back on the dashboard the page says Asia/Tokyo and the post of 23:30 UTC sits at 08:00 of the
// next day. Cleo (a viewer) reads the zone but is offered no field to change it.
import axe from 'axe-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import { launchBrowser, newTestPage, type TestPage } from '@test/support/browser';
import { waitForHeading } from '@test/support/browser-harness';
import { startRealServer, type RealServer } from '@test/support/real-server';
import { signInThroughProvider } from '@test/support/dev-sign-in';

const PORT = Number(process.env.MURMUR_REAL_E2E_PORT ?? 4781) + 2;
const DAY_MS = 86_400_000;
const QUERY = 'zonecheck';
/** The machine is shared: a dashboard may take seconds to answer. */
const SLOW = { timeout: 15_000 };
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

let server: RealServer;
let browser: Browser;
const pages: TestPage[] = [];
/** The post's instant: 23:30 UTC two days ago (inside "the last 7 days" whenever the test runs). */
let postedAt: Date;

beforeAll(async () => {
  [server, browser] = await Promise.all([startRealServer(PORT), launchBrowser()]);
  const [author] = (
    await insertProfiles(server.db, [
      {
        platform: 'x',
        externalId: 'tz-e2e',
        handle: 'night_owl',
        displayName: 'Night Owl',
        followers: 9,
      },
    ])
  ).map((id) => ({ id }));
  const day = new Date(Date.now() - 2 * DAY_MS).toISOString().slice(0, 10);
  postedAt = new Date(`${day}T23:30:00Z`);
  await insertPosts(server.db, [
    {
      platform: 'x',
      externalId: 'tz-e2e-post',
      authorId: author!.id,
      text: `${QUERY}: a late espresso`,
      language: 'en',
      postedAt,
      likes: 4,
    },
  ]);
});
afterAll(async () => {
  await Promise.allSettled(pages.map((current) => current.context.close()));
  await Promise.allSettled([browser?.close(), server?.close()]);
});

async function signIn(who: RegExp): Promise<Page> {
  const current = await newTestPage(browser, server.origin);
  pages.push(current);
  const { page } = current;
  await signInThroughProvider(page, who, (url) => url.pathname.startsWith('/workspace/demo'));
  return page;
}

/** axe-core's violations on the page as drawn (as in real-server-dashboards.test.ts). */
async function axeViolations(page: Page) {
  await page.evaluate(axe.source);
  const result = await page.evaluate(async () => {
    const page = window as unknown as {
      axe: { run: (context: Document) => Promise<{ violations: Array<{ id: string; nodes: unknown[] }> }> };
    };
    return page.axe.run(document);
  });
  return result.violations.map((violation) => violation.id);
}

/** The best-time cells that hold posts, as their labels begin: "Thursday 23:00: 1 posts". */
const filledCells = (page: Page) =>
  page
    .locator('.heatmap-cell:not([disabled])')
    .evaluateAll((cells) => cells.map((cell) => cell.getAttribute('aria-label')!.replace(/, .*$/, '')));

/** The weekday (Monday first) of the instant's wall clock shifted by `hours`. */
const weekdayAt = (instant: Date, hours: number) =>
  DAYS[(new Date(instant.getTime() + hours * 3_600_000).getUTCDay() + 6) % 7]!;

describe('The workspace time zone (real server)', () => {
  let page: Page;

  it('shows the best time to post in UTC until the zone is set', async () => {
    page = await signIn(/Ana/);
    await page.goto(`/workspace/demo/insight/performance?q=${QUERY}`);
    await waitForHeading(page, 'Performance');
    await page.getByText('Days and hours in UTC').waitFor();
    await page.locator('.heatmap').waitFor();
    await expect.poll(() => filledCells(page), SLOW).toEqual([`${weekdayAt(postedAt, 0)} 23:00: 1 posts`]);
  });

  it('lets the owner choose Asia/Tokyo from the searchable list with the keyboard', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Settings' }).click();
    await waitForHeading(page, 'General');
    const zone = page.getByRole('combobox', { name: 'Time zone' });
    expect(await zone.inputValue()).toBe('UTC');
    await zone.click();
    await zone.fill('tokyo');
    const list = page.getByRole('listbox', { name: 'Time zone' });
    await expect
      .poll(() => list.getByRole('option').allInnerTexts(), SLOW)
      .toEqual(['Asia/Tokyo\nUTC+09:00']);
    await zone.fill('');
    await zone.pressSequentially('+9');
    await expect.poll(() => list.getByRole('option').count(), SLOW).toBeGreaterThan(3);
    expect(await axeViolations(page)).toEqual([]);
    await zone.fill('asia tok');
    await zone.press('ArrowDown');
    expect(await zone.getAttribute('aria-activedescendant')).toBe(
      await list.getByRole('option', { name: /Asia\/Tokyo/ }).getAttribute('id'),
    );
    await zone.press('Enter');
    expect(await zone.inputValue()).toBe('Asia/Tokyo');
    expect(await zone.getAttribute('aria-expanded')).toBe('false');
    await page.getByText('Now UTC+09:00 in Asia/Tokyo.').waitFor();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('alert').filter({ hasText: 'Workspace settings saved' }).first().waitFor();
  });

  it('counts the dashboard in the new zone: the post of 23:30 UTC moves to 08:00 the next day', async () => {
    // Back in the same tab: the dashboard's earlier answer is not shown again.
    await page.goBack();
    await waitForHeading(page, 'Performance');
    await page.getByText('Days and hours in Asia/Tokyo').waitFor();
    await page.locator('.heatmap').waitFor();
    await expect.poll(() => filledCells(page), SLOW).toEqual([`${weekdayAt(postedAt, 9)} 08:00: 1 posts`]);
    await page.getByText(/Average engagement per post by weekday and hour, Asia\/Tokyo\./).waitFor();
  });

  it("names the zone in the charts' PNG files", async () => {
    // What the app writes on canvases from now on (the PNGs are drawn on one each).
    await page.evaluate(() => {
      const drawn: string[] = [];
      (window as unknown as { drawn: string[] }).drawn = drawn;
      const fillText = CanvasRenderingContext2D.prototype.fillText;
      CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
        drawn.push(text);
        return fillText.call(this, text, ...rest);
      };
    });
    for (const name of ['Engagement per post by platform', 'best time to post']) {
      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: `Download ${name} as PNG` }).click();
      expect((await download).suggestedFilename()).toMatch(/\.png$/);
    }
    const drawn = await page.evaluate(() => (window as unknown as { drawn: string[] }).drawn);
    // Each file's header band (charts/chart-png.ts): its title, and the zone its range and hours are in.
    // A line wider than the file is wrapped, so the lines are read as one text.
    const all = drawn.join(' ');
    expect(all).toContain('Performance – Engagement per post by platform');
    expect(all).toContain('Performance – Best time to post');
    expect(all.match(/Time zone: Asia\/Tokyo/g)).toHaveLength(2);
    expect(all).toMatch(/Range: .+ (GMT\+9|JST) – .+ (GMT\+9|JST)/);
  });

  it('shows a viewer the zone without a field to change it', async () => {
    const viewer = await signIn(/Cleo/);
    await viewer.goto('/workspace/demo/settings/general');
    await waitForHeading(viewer, 'General');
    await viewer.getByText('Asia/Tokyo (now UTC+09:00)', { exact: false }).waitFor();
    expect(await viewer.getByRole('combobox').count()).toBe(0);
  });
});
