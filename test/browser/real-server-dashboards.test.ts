// The dashboards end to end against the REAL server, as analysts work: Ana opens the overview and sees the API's
// figures; from the platforms card (keyboard, table view) she drills into X, and filtered posts shows the chip and
// exactly the posts the API returns for that refinement; the chip's switch leaves those posts out instead; back restores the overview;
// Cleo (a viewer) opens the copied address in her own browser and sees the same view. axe-core finds no violation on
// any dashboard, saved queries or discover.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { demoUserIds } from '@server/seed';
import { launchBrowser, newTestPage, type TestPage } from '@test/support/browser';
import { waitForHeading } from '@test/support/browser-harness';
import { axeViolations } from '@test/support/axe';
import { startRealServer, type RealServer } from '@test/support/real-server';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import { signInThroughProvider } from '@test/support/dev-sign-in';

const PORT = Number(process.env.MURMUR_REAL_E2E_PORT ?? 4781) + 1;
const HOUR = 3_600_000;

let server: RealServer;
let browser: Browser;
const pages: TestPage[] = [];
let token = '';

beforeAll(async () => {
  [server, browser] = await Promise.all([startRealServer(PORT), launchBrowser()]);
  token = await server.tokenFor((await demoUserIds(server.db)).get('ana@murmur.local')!);
  // A small corpus of the last days: two authors, three platforms, every sentiment.
  const people = [
    {
      platform: 'x',
      externalId: 'dash-1',
      handle: 'rita_roaster',
      displayName: 'Rita Roaster',
      followers: 5400,
    },
    { platform: 'reddit', externalId: 'dash-2', handle: 'brewbot', displayName: 'Brew Bot', followers: 12 },
    {
      platform: 'instagram',
      externalId: 'dash-3',
      handle: 'latte.art',
      displayName: 'Latte Art',
      followers: 880,
    },
  ] as const;
  const ids = await insertProfiles(server.db, people);
  const authors = people.map((person, i) => ({ id: ids[i]!, platform: person.platform }));
  const texts = [
    'Love this espresso, wonderful crema #coffee',
    'Terrible burnt coffee again, awful #coffee',
    'New roast arrives on Monday #beans',
    'Great latte art today, so happy #coffee #latte',
    'The cafe was fine I guess',
    'Horrible queue, worst morning #coffee',
    'A calm pour-over and a good book',
    'Espresso tonic is wonderful in summer',
  ];
  await insertPosts(
    server.db,
    texts.map((text, i) => {
      const author = authors[i % authors.length]!;
      return {
        platform: author.platform,
        externalId: `dash-post-${i}`,
        authorId: author.id,
        text,
        language: 'en',
        postedAt: new Date(Date.now() - (i * 7 + 2) * HOUR),
        likes: 10 * i,
        comments: i,
        shares: i % 3,
        hashtags: [...text.matchAll(/#(\w+)/g)].map((match) => match[1]!.toLowerCase()),
      };
    }),
  );
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

async function signIn(current: TestPage, who: RegExp) {
  const { page } = current;
  await signInThroughProvider(page, who, (url) => url.pathname.startsWith('/workspace/demo'));
}

/** The posts' texts on the page, in order. */
const cardTexts = (page: Page) => page.locator('.post-card .post-text').allInnerTexts();

describe('Dashboards (real server)', () => {
  const story = { url: '', current: null as TestPage | null };

  it('shows the overview the API computes for the last 7 days', async () => {
    const current = await newTestPage(browser, server.origin);
    pages.push(current);
    story.current = current;
    await signIn(current, /Ana/);
    const { page } = current;
    await page.goto('/workspace/demo/insight/overview?range=7d');
    await waitForHeading(page, 'Overview');
    await page.getByRole('heading', { name: 'Mentions over time' }).waitFor();
    // The range the page asked for is stated on it; the API's figures for that range are the ones shown.
    const to = new Date().toISOString();
    const from = new Date(Date.now() - 7 * 24 * HOUR).toISOString();
    const overview = await api<{
      totals: { mentions: { value: number } };
      platforms: Array<{ platform: string; mentions: number }>;
    }>('/social/insights/overview', { workspace_id: 'demo', query: '', filters: { from, to } });
    expect(overview.totals.mentions.value).toBe(8);
    const mentionsTile = page
      .locator('.tile')
      .filter({ hasText: /^Mentions/ })
      .first();
    await expect.poll(() => mentionsTile.locator('.tile-value').innerText()).toBe('8');
    // Platforms as a table: each row a platform with its mentions, as the API counts them.
    const platforms = page
      .locator('section.chart-card')
      .filter({ has: page.getByRole('heading', { name: 'Platforms' }) });
    await platforms.getByRole('button', { name: 'Table' }).click();
    for (const row of overview.platforms) {
      const name = { x: 'X', reddit: 'Reddit', instagram: 'Instagram' }[row.platform]!;
      await expect
        .poll(() =>
          platforms
            .getByRole('row', { name: new RegExp(`^${name}`) })
            .locator('td')
            .first()
            .innerText(),
        )
        .toBe(String(row.mentions));
    }
    expect(await axeViolations(page)).toEqual([]);
  });

  it('drills into a platform from the keyboard: filtered posts show the chip and exactly the API’s posts', async () => {
    const { page } = story.current!;
    const platforms = page
      .locator('section.chart-card')
      .filter({ has: page.getByRole('heading', { name: 'Platforms' }) });
    const drill = platforms.getByRole('button', { name: 'Posts on X' });
    await drill.focus();
    await page.keyboard.press('Enter');
    await waitForHeading(page, 'Filtered posts');
    expect(new URL(page.url()).searchParams.get('refine')).toBe('platform:x');
    await page.getByRole('group', { name: 'Drill-down refinements' }).getByText('Platform: only X').waitFor();

    const end = await page.locator('.range-line').innerText();
    // Both ends of the range with the zone, as every instant of the product is written ("1 Nov 2026, 14:00 UTC").
    expect(end).toMatch(/^\d{1,2} \w{3} \d{4}, \d{2}:\d{2} UTC – \d{1,2} \w{3} \d{4}, \d{2}:\d{2} UTC/);
    const search = new URL(page.url()).searchParams;
    expect(search.get('range')).toBe('7d');
    const expected = await filteredPosts([{ field: 'platform', values: ['x'] }]);
    expect(expected.length).toBeGreaterThan(0);
    await expect.poll(() => cardTexts(page)).toEqual(expected);

    // Leave out: every post but X's.
    await page.getByRole('button', { name: 'Leave out Platform X' }).click();
    await page.getByText('Platform: not X').waitFor();
    expect(new URL(page.url()).searchParams.get('refine')).toBe('!platform:x');
    const inverted = await filteredPosts([{ field: 'platform', values: ['x'], exclude: true }]);
    expect(inverted.length).toBe(8 - expected.length);
    await expect.poll(() => cardTexts(page)).toEqual(inverted);
    expect(await axeViolations(page)).toEqual([]);
    // "Copy link to this view": the address with the range's end pinned.
    await story.current!.context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: server.origin,
    });
    await page.getByRole('button', { name: 'Copy link to this view' }).click();
    await page.getByText('Link to this view copied').waitFor();
    story.url = await page.evaluate(() => navigator.clipboard.readText());
    const copied = new URL(story.url);
    expect(copied.searchParams.get('refine')).toBe('!platform:x');
    // The view's end is its clock, rounded down to the minute, when the page opened: minutes ago on a busy machine.
    expect(Date.parse(copied.searchParams.get('end')!)).toBeGreaterThan(Date.now() - 5 * 60_000);

    // Back: the included chip, then the overview.
    await page.goBack();
    await page.getByText('Platform: only X', { exact: true }).waitFor();
    await page.goBack();
    await waitForHeading(page, 'Overview');
    expect(new URL(page.url()).searchParams.get('refine')).toBeNull();
  });

  it('opens the copied address for another member (a viewer) with the same view', async () => {
    const current = await newTestPage(browser, server.origin);
    pages.push(current);
    await signIn(current, /Cleo/);
    await current.page.goto(story.url);
    await waitForHeading(current.page, 'Filtered posts');
    await current.page.getByText('Platform: not X').waitFor();
    const inverted = await filteredPosts([{ field: 'platform', values: ['x'], exclude: true }]);
    await expect.poll(() => cardTexts(current.page)).toEqual(inverted);
  });

  it('drills down by clicking a bar of a chart', async () => {
    const { page } = story.current!;
    // Without the entry animation, the bars are where they end up from the first frame.
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await page.goto('/workspace/demo/insight/overview?range=7d');
    const platforms = page
      .locator('section.chart-card')
      .filter({ has: page.getByRole('heading', { name: 'Platforms' }) });
    // Scrolled to, as a reader would: the card is below the fold of a 1280×720 window, and what is far from the viewport
    // is neither laid out nor drawn until then (insight.css, ChartCanvas).
    await platforms.getByRole('heading', { name: 'Platforms' }).waitFor();
    await platforms.scrollIntoViewIfNeeded();
    const chart = platforms.locator('.chart-canvas[data-drawn]');
    await chart.waitFor();
    await chart.scrollIntoViewIfNeeded();
    // Platforms, most mentions first: Reddit (3, ahead of X's 3 by name), X, Instagram. The top third of the plot
    // is Reddit's bar, which reaches past the middle.
    const box = (await chart.boundingBox())!;
    await page.mouse.click(box.x + box.width * 0.6, box.y + (box.height - 30) / 6 + 4);
    await waitForHeading(page, 'Filtered posts');
    expect(new URL(page.url()).searchParams.get('refine')).toBe('platform:reddit');
    await page.getByText('Platform: only Reddit', { exact: true }).waitFor();
    await expect
      .poll(() => cardTexts(page))
      .toEqual(await filteredPosts([{ field: 'platform', values: ['reddit'] }]));
  });

  it('drills into a heatmap cell, and the CSV of the list holds the same rows as the API', async () => {
    const { page } = story.current!;
    await page.goto('/workspace/demo/insight/performance?range=7d');
    await waitForHeading(page, 'Performance');
    const cell = page.locator('.heatmap-cell:not([disabled])').first();
    await cell.waitFor();
    const label = (await cell.getAttribute('aria-label'))!;
    // "Monday 09:00: 1 posts, …": the cell's day, hour and count.
    const [, dayName, hour, count] = /^(\w+) (\d\d):00: (\d+) posts/.exec(label)!;
    const day =
      ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'].indexOf(dayName!) + 1;
    await cell.click();
    await waitForHeading(page, 'Filtered posts');
    expect(new URL(page.url()).searchParams.get('refine')).toBe(`hour_of_week:${day}-${Number(hour)}`);
    await page.getByText(`Posted: only ${dayName}s ${hour}:00–${hour}:59`).waitFor();
    const refine = [{ field: 'hour_of_week', values: [{ day, hour: Number(hour) }] }];
    const expected = await filteredPosts(refine);
    expect(expected).toHaveLength(Number(count));
    await expect.poll(() => cardTexts(page)).toEqual(expected);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download all posts (CSV)' }).click(),
    ]);
    const csv = await readFile((await download.path())!, 'utf8');
    const lines = csv.split(/\r?\n/).filter((line) => line !== '');
    expect(lines[0]).toBe('# Murmur export: posts');
    expect(csv).toContain('# Workspace time zone: UTC');
    const rows = lines.filter((line) => !line.startsWith('#'));
    const header = rows[0]!.split(',');
    const texts = rows.slice(1).map((row) => parseCsvRow(row)[header.indexOf('text')]);
    expect(texts).toEqual(expected);
  });

  it("downloads a chart's table as CSV, made in the page by the exports' writer (loaded on the first file)", async () => {
    const { page } = story.current!;
    await page.goto('/workspace/demo/insight/performance?range=7d');
    await waitForHeading(page, 'Performance');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download best time to post as CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(
      /^murmur-performance-best-time-to-post-\d{4}-\d\d-\d\d\.csv$/,
    );
    const csv = await readFile((await download.path())!, 'utf8');
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe('# Murmur export: performance – best time to post');
    expect(lines[1]).toBe('# Workspace time zone: UTC');
    const records = lines.filter((line) => line !== '' && !line.startsWith('#'));
    expect(records[0]).toBe('Day,Hour,Posts,Engagement per post');
    // A record per hour of the week, the file ending in CRLF.
    expect(records).toHaveLength(1 + 7 * 24);
    expect(records[1]).toMatch(/^Monday,00:00,\d+,/);
    expect(csv.endsWith('\r\n')).toBe(true);
  });

  it('opens a saved query’s dashboards from the saved queries list, with the API’s figures for it', async () => {
    const { page } = story.current!;
    const created = await server.app.inject({
      method: 'POST',
      url: '/api/workspaces/demo/saved-queries',
      headers: { authorization: `Bearer ${token}` },
      payload: { name: 'Wonderful things', query: 'wonderful' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const saved = created.json<{ id: string }>();
    await page.goto('/workspace/demo/saved-queries');
    await page.getByRole('link', { name: 'Wonderful things' }).click();
    await waitForHeading(page, 'Overview');
    expect(new URL(page.url()).searchParams.get('query')).toBe(saved.id);
    await expect.poll(() => page.getByLabel('Posts', { exact: true }).inputValue()).toBe(saved.id);
    const to = new Date().toISOString();
    const from = new Date(Date.now() - 30 * 24 * HOUR).toISOString();
    const overview = await api<{ totals: { mentions: { value: number } } }>('/social/insights/overview', {
      workspace_id: 'demo',
      saved_query_id: saved.id,
      filters: { from, to },
    });
    // "wonderful": the espresso post and the espresso tonic one.
    expect(overview.totals.mentions.value).toBe(2);
    const mentionsTile = page
      .locator('.tile')
      .filter({ hasText: /^Mentions/ })
      .first();
    await expect.poll(() => mentionsTile.locator('.tile-value').innerText()).toBe('2');
  });

  it('opens discover’s query in the dashboards with its range, and the figures are the API’s for that query', async () => {
    const { page } = story.current!;
    await page.goto('/workspace/demo/discover?q=coffee&range=7d');
    await waitForHeading(page, 'Discover');
    await page.getByRole('link', { name: 'Open in dashboards' }).click();
    await waitForHeading(page, 'Overview');
    const search = new URL(page.url()).searchParams;
    expect([search.get('q'), search.get('range')]).toEqual(['coffee', '7d']);
    await expect.poll(() => page.getByLabel('Posts', { exact: true }).inputValue()).toBe('discover');
    const to = new Date().toISOString();
    const from = new Date(Date.now() - 7 * 24 * HOUR).toISOString();
    const overview = await api<{ totals: { mentions: { value: number } } }>('/social/insights/overview', {
      workspace_id: 'demo',
      query: 'coffee',
      filters: { from, to },
    });
    expect(overview.totals.mentions.value).toBeGreaterThan(0);
    const mentionsTile = page
      .locator('.tile')
      .filter({ hasText: /^Mentions/ })
      .first();
    await expect
      .poll(() => mentionsTile.locator('.tile-value').innerText())
      .toBe(String(overview.totals.mentions.value));
  });

  it('has no accessibility violation on the other dashboards, saved queries and discover', async () => {
    const { page } = story.current!;
    for (const [path, heading, ready] of [
      ['/workspace/demo/insight/posts?range=7d', 'Posts', '.post-card'],
      ['/workspace/demo/insight/people?range=7d', 'People', '.data-table'],
      ['/workspace/demo/insight/performance?range=7d', 'Performance', '.heatmap'],
      ['/workspace/demo/insight/conversation?range=7d', 'Conversation', '.chart-card canvas'],
      ['/workspace/demo/insight/filtered-profiles?range=7d', 'Filtered profiles', '.data-table'],
      ['/workspace/demo/saved-queries', 'Saved queries', 'main'],
      ['/workspace/demo/discover?q=coffee', 'Discover', '.post-card'],
    ] as const) {
      await page.goto(path);
      await waitForHeading(page, heading);
      await page.locator(ready).first().waitFor();
      expect([path, await axeViolations(page)]).toEqual([path, []]);
    }
  });
});

/**
 * The posts the API lists for the last 7 days and these refinements, newest first. The page fixed its own "now" a
 * moment earlier; the seeded posts are hours old, far from either edge, so both ranges hold the same posts.
 */
async function filteredPosts(refine: object[]): Promise<string[]> {
  const to = new Date().toISOString();
  const from = new Date(Date.now() - 7 * 24 * HOUR).toISOString();
  const answer = await api<{ posts: Array<{ text: string }> }>('/social/insights/filtered-posts', {
    workspace_id: 'demo',
    query: '',
    filters: { from, to },
    refine,
    sort: 'recency',
    limit: 25,
  });
  return answer.posts.map((post) => post.text);
}

/** One CSV row (RFC 4180: quoted fields with doubled quotes). */
function parseCsvRow(row: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < row.length; i++) {
    const char = row[i]!;
    if (quoted) {
      if (char === '"' && row[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      fields.push(field);
      field = '';
    } else field += char;
  }
  fields.push(field);
  return fields;
}

describe("The dashboards' prerendered shell (real server)", () => {
  /**
   * Holds the app's entry back until the returned function is called. The page's load event may wait for it, so a
   * page.goto meanwhile waits for the response alone ('commit').
   */
  async function holdTheApp(page: Page): Promise<() => void> {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/assets\/index-[^/]+\.js$/, async (route) => {
      await released;
      await route.continue();
    });
    return release;
  }

  it("paints the overview's frame before the app's code has arrived; the app then takes its place", async () => {
    const current = await newTestPage(browser, server.origin);
    pages.push(current);
    await signIn(current, /Ana/);
    const { page } = current;
    const release = await holdTheApp(page);
    const response = await page.goto('/workspace/demo/insight/overview', { waitUntil: 'commit' });
    expect(await response?.text()).toContain('<div id="prerendered" data-shell="" inert="">');
    // Without the app: the shell is on screen, the app's root is empty.
    await page.locator('#prerendered h1', { hasText: 'Overview' }).waitFor({ state: 'visible' });
    await page.locator('#prerendered .skeleton-card').first().waitFor({ state: 'visible' });
    expect(await page.locator('#root').innerHTML()).toBe('');
    release();
    // The app draws the dashboard and the shell is gone: one page, one heading.
    await page.waitForFunction(() => document.getElementById('prerendered') === null);
    await page.getByRole('heading', { name: 'Mentions over time' }).waitFor();
    expect(await page.locator('#page-title').count()).toBe(1);
    expect(await page.locator('.workspace-shell').count()).toBe(1);
  });

  it('shows nothing of it to a visitor without a session, who lands on /login as before', async () => {
    const current = await newTestPage(browser, server.origin);
    pages.push(current);
    const { page } = current;
    const release = await holdTheApp(page);
    await page.goto('/workspace/demo/insight/overview', { waitUntil: 'commit' });
    await page.locator('#prerendered').waitFor({ state: 'attached' });
    expect(await page.locator('#prerendered').isVisible()).toBe(false);
    release();
    await page.waitForURL((url) => url.pathname === '/login');
    await waitForHeading(page, 'Sign in to Murmur');
    expect(await page.locator('#prerendered').count()).toBe(0);
  });
});
