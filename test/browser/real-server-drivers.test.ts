// "Why this spike" end to end against the REAL server: a quiet week of coffee posts and, three hours ago, an hour of
// posts by one account about an outage. Ana opens the overview, sees the spike marked, opens "Why this spike", reads
// the drivers the API computes (the outage's word, hashtag and account among the first) and their sentence, and
// drills into a driver: filtered posts shows the window's and the driver's chips and exactly its posts. axe-core finds
// no violation in the open panel. Then a range of two buckets (the one before the spike's and the spike's), chosen
// with "Explain from … to …": the panel shows the API's answer for the window its address names, whose posts are
// the two buckets' mentions, and the address opens it again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { driversSentence, type DriversResponse } from '@contract/insights-drivers';
import type { OverviewResponse } from '@contract/insights-responses';
import { demoUserIds } from '@server/seed';
import { launchBrowser, newTestPage, type TestPage } from '@test/support/browser';
import { waitForHeading } from '@test/support/browser-harness';
import { axeViolations } from '@test/support/axe';
import { startRealServer, type RealServer } from '@test/support/real-server';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import { signInThroughProvider } from '@test/support/dev-sign-in';

const PORT = Number(process.env.MURMUR_REAL_E2E_PORT ?? 4781) + 9;
const HOUR = 3_600_000;

let server: RealServer;
let browser: Browser;
const pages: TestPage[] = [];
let token = '';
/** The spike's hour: three whole hours before now. */
const spikeHour = Math.floor(Date.now() / HOUR) * HOUR - 3 * HOUR;

beforeAll(async () => {
  [server, browser] = await Promise.all([startRealServer(PORT), launchBrowser()]);
  token = await server.tokenFor((await demoUserIds(server.db)).get('ana@murmur.local')!);
  const ids = await insertProfiles(server.db, [
    { platform: 'x', externalId: 'drv-1', handle: 'nestwatch', displayName: 'Nest Watch', followers: 900 },
    { platform: 'reddit', externalId: 'drv-2', handle: 'brewbot', displayName: 'Brew Bot', followers: 12 },
  ]);
  const quiet = Array.from({ length: 14 }, (_, i) => ({
    platform: 'reddit' as const,
    externalId: `drv-quiet-${i}`,
    authorId: ids[1]!,
    text: i % 2 ? 'A calm pour-over and a good book #coffee' : 'New roast arrives on Monday #beans',
    language: 'en',
    postedAt: new Date(spikeHour - (i + 1) * 11 * HOUR),
    hashtags: [i % 2 ? 'coffee' : 'beans'],
  }));
  const spike = Array.from({ length: 12 }, (_, i) => ({
    platform: 'x' as const,
    externalId: `drv-spike-${i}`,
    authorId: ids[0]!,
    text: `CloudNest outage again, login failing ${i} #nestdown`,
    language: 'en',
    postedAt: new Date(spikeHour + i * 4 * 60_000),
    likes: i,
    hashtags: ['nestdown'],
  }));
  await insertPosts(server.db, [...quiet, ...spike]);
});
afterAll(async () => {
  await Promise.allSettled(pages.map((current) => current.context.close()));
  await Promise.allSettled([browser?.close(), server?.close()]);
});

const api = <T>(url: string, payload: object) =>
  server.app
    .inject({ method: 'POST', url, headers: { authorization: `Bearer ${token}` }, payload })
    .then((response) => {
      expect(response.statusCode, response.body).toBe(200);
      return response.json<T>();
    });

describe('Why this spike (real server)', () => {
  it("opens a spike's drivers and drills into one", async () => {
    const current = await newTestPage(browser, server.origin);
    pages.push(current);
    const { page } = current;
    await signInThroughProvider(page, /Ana/, (url) => url.pathname.startsWith('/workspace/demo'));
    await page.goto('/workspace/demo/insight/overview?range=7d');
    await waitForHeading(page, 'Overview');
    const open = page.getByRole('button', { name: /^Why this spike: / });
    await expect.poll(() => open.count(), { timeout: 20_000 }).toBe(1);
    await open.click();
    const panel = page.getByRole('region', { name: /^Why this spike: / });
    await panel.getByRole('table').waitFor({ timeout: 20_000 });

    // The API's answer for the spike's bucket (a day of the last 7) is what the panel shows.
    const range = { from: new Date(Date.now() - 7 * 24 * HOUR).toISOString(), to: new Date().toISOString() };
    const overview = await api<OverviewResponse>('/social/insights/overview', {
      workspace_id: 'demo',
      query: '',
      filters: range,
    });
    const at = overview.over_time.findIndex((b) => b.spike);
    const window = { from: overview.over_time[at]!.start, to: overview.over_time[at + 1]?.start ?? range.to };
    const answer = await api<DriversResponse>('/social/insights/drivers', {
      workspace_id: 'demo',
      query: '',
      filters: window,
    });
    expect(answer.posts.window).toBe(overview.over_time[at]!.mentions);
    const labels = answer.drivers.map((d) => d.label);
    expect(labels).toEqual(expect.arrayContaining(['outage', '#nestdown', '@nestwatch']));
    await expect.poll(() => panel.locator('.drivers-sentence').innerText()).toBe(driversSentence(answer));
    const rows = panel.getByRole('table').locator('tbody tr th');
    await expect.poll(() => rows.allInnerTexts()).toEqual(answer.drivers.map((d) => d.label));
    expect(await axeViolations(page)).toEqual([]);

    // The word's drill-down: filtered posts of that day with it, all 12.
    await panel.getByRole('button', { name: 'Posts of this window with outage' }).click();
    await waitForHeading(page, 'Filtered posts');
    await expect.poll(() => page.getByText('Word: only outage').count()).toBe(1);
    await expect.poll(() => page.locator('.post-card').count(), { timeout: 20_000 }).toBe(12);
    const texts = await page.locator('.post-card .post-text').allInnerTexts();
    expect(texts.every((text) => text.includes('outage'))).toBe(true);
  });

  it('explains a range of two buckets as one window, as the API counts it', async () => {
    const current = await newTestPage(browser, server.origin);
    pages.push(current);
    const { page } = current;
    await signInThroughProvider(page, /Ana/, (url) => url.pathname.startsWith('/workspace/demo'));
    await page.goto('/workspace/demo/insight/overview?range=7d');
    await waitForHeading(page, 'Overview');
    const range = { from: new Date(Date.now() - 7 * 24 * HOUR).toISOString(), to: new Date().toISOString() };
    const overview = await api<OverviewResponse>('/social/insights/overview', {
      workspace_id: 'demo',
      query: '',
      filters: range,
    });
    const spike = overview.over_time.find((b) => b.spike)!.start;

    // From the bucket with posts before the spike's to the spike's, from the keyboard's controls.
    const from = page.getByRole('combobox', { name: 'Explain from' });
    await expect.poll(() => from.count(), { timeout: 20_000 }).toBe(1);
    const starts = await from
      .locator('option')
      .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));
    const first = starts[starts.indexOf(spike) - 1]!;
    expect(first).toBeTruthy();
    await from.selectOption(first);
    await page.getByRole('combobox', { name: 'to' }).selectOption(spike);
    await page.getByRole('button', { name: 'Why this range' }).click();
    const panel = page.getByRole('region', { name: /^Why .+ – .+/ });
    await panel.getByRole('table').waitFor({ timeout: 20_000 });

    // The window the page asked is in its address; the API's answer for it is what the panel shows.
    const why = new URL(page.url()).searchParams.get('why')!;
    const [windowFrom, windowTo] = why.split('/') as [string, string];
    expect(windowFrom).toBe(first);
    expect(Date.parse(windowTo)).toBeGreaterThan(Date.parse(spike));
    const answer = await api<DriversResponse>('/social/insights/drivers', {
      workspace_id: 'demo',
      query: '',
      filters: { from: windowFrom, to: windowTo },
    });
    const inWindow = overview.over_time.filter(
      (b) => Date.parse(b.start) >= Date.parse(windowFrom) && Date.parse(b.start) < Date.parse(windowTo),
    );
    expect(inWindow.map((b) => b.start)).toEqual([first, spike]);
    expect(answer.posts.window).toBe(inWindow.reduce((sum, b) => sum + b.mentions, 0));
    await expect.poll(() => panel.locator('.drivers-sentence').innerText()).toBe(driversSentence(answer));
    expect(await panel.innerText()).toContain(`${answer.posts.window} posts in this window`);
    const rows = panel.getByRole('table').locator('tbody tr th');
    await expect.poll(() => rows.allInnerTexts()).toEqual(answer.drivers.map((d) => d.label));

    // The address opens the same range again.
    await page.reload();
    await waitForHeading(page, 'Overview');
    await expect
      .poll(
        () =>
          page
            .getByRole('region', { name: /^Why .+ – .+/ })
            .locator('.drivers-sentence')
            .innerText(),
        {
          timeout: 20_000,
        },
      )
      .toBe(driversSentence(answer));
    expect(await axeViolations(page)).toEqual([]);
  });

  it('explains the buckets a drag across the mentions chart crosses', async () => {
    const current = await newTestPage(browser, server.origin);
    pages.push(current);
    const { page } = current;
    await signInThroughProvider(page, /Ana/, (url) => url.pathname.startsWith('/workspace/demo'));
    await page.goto('/workspace/demo/insight/overview?range=7d');
    await waitForHeading(page, 'Overview');
    const card = page.locator('section.chart-card', {
      has: page.getByRole('heading', { name: 'Mentions over time' }),
    });
    await card.locator('.chart-canvas[data-drawn]').waitFor({ timeout: 20_000 });
    await card.locator('canvas').scrollIntoViewIfNeeded();
    const box = (await card.locator('canvas').boundingBox())!;
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x + box.width * 0.5, y);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.7, y, { steps: 5 });
    await expect.poll(() => card.locator('.chart-brush').count()).toBe(1);
    await page.mouse.move(box.x + box.width * 0.98, y, { steps: 5 });
    await page.mouse.up();
    expect(await card.locator('.chart-brush').count()).toBe(0);
    const panel = page.getByRole('region', { name: /^Why .+ – .+/ });
    await panel.getByRole('table').waitFor({ timeout: 20_000 });
    expect(new URL(page.url()).pathname).toBe('/workspace/demo/insight/overview');
    const first = await page.getByRole('combobox', { name: 'Explain from' }).inputValue();
    const last = await page.getByRole('combobox', { name: 'to' }).inputValue();
    expect(Date.parse(last)).toBeGreaterThan(Date.parse(first));
    const [windowFrom, windowTo] = new URL(page.url()).searchParams.get('why')!.split('/') as [
      string,
      string,
    ];
    expect(windowFrom).toBe(first);
    const answer = await api<DriversResponse>('/social/insights/drivers', {
      workspace_id: 'demo',
      query: '',
      filters: { from: windowFrom, to: windowTo },
    });
    await expect.poll(() => panel.locator('.drivers-sentence').innerText()).toBe(driversSentence(answer));
  });
});
