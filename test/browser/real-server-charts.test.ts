// The dashboards' charts as readers keep them, against the REAL server: a hashtags chart keeps every bar's label (long
// and CJK ones cut, the full text in the tooltip and the table); a chart's PNG says above the chart what it shows
// (title, query, range, time zone), as the CSV does, and carries the same in its metadata; printing draws every chart,
// those below the fold too (they are otherwise drawn only when scrolled toward).
import { readFile } from 'node:fs/promises';
import { inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, newTestPage, type TestPage } from '@test/support/browser';
import { waitForHeading } from '@test/support/browser-harness';
import { startRealServer, type RealServer } from '@test/support/real-server';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import { signInThroughProvider } from '@test/support/dev-sign-in';

const PORT = Number(process.env.MURMUR_REAL_E2E_PORT ?? 4781) + 2;
const HOUR = 3_600_000;
const LONG = 'cloudnestoutagestillnotfixedinfrankfurt';
const CJK = 'クラウドネストの障害がまだ続いています';
/** Seven hashtags, the first in 7 posts, the last in 1: the chart's order. */
const HASHTAGS = ['cloudnestdown', LONG, 'devops', CJK, 'outage', 'caídacloudnest', 'status'];

let server: RealServer;
let browser: Browser;
const pages: TestPage[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startRealServer(PORT), launchBrowser()]);
  const [author] = (
    await insertProfiles(server.db, [
      { platform: 'x', externalId: 'charts-1', handle: 'nestwatch', displayName: 'Nest Watch' },
    ])
  ).map((id) => ({ id }));
  const posts = HASHTAGS.flatMap((tag, rank) =>
    Array.from({ length: HASHTAGS.length - rank }, (_, i) => ({
      platform: 'x' as const,
      externalId: `charts-${rank}-${i}`,
      authorId: author!.id,
      text: `CloudNest outage, login failing again @cloudnest_status #${tag}`,
      language: 'en',
      postedAt: new Date(Date.now() - (rank * 7 + i + 2) * HOUR),
      hashtags: [tag],
      mentions: ['cloudnest_status'],
    })),
  );
  await insertPosts(server.db, posts);
});
afterAll(async () => {
  await Promise.allSettled(pages.map((current) => current.context.close()));
  await Promise.allSettled([browser?.close(), server?.close()]);
});

async function signedIn(viewport = { width: 1280, height: 800 }): Promise<Page> {
  const current = await newTestPage(browser, server.origin);
  pages.push(current);
  const { page } = current;
  await page.setViewportSize(viewport);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await signInThroughProvider(page, /Ana/, (url) => url.pathname.startsWith('/workspace/demo'));
  return page;
}

const card = (page: Page, title: string) =>
  page.locator('section.chart-card').filter({ has: page.getByRole('heading', { name: title, exact: true }) });

/**
 * The Chart.js chart drawn in the card titled `title`, read in the page: Chart.js's own chunk (the app's module, the
 * same instance) finds it by its canvas. `read` runs with the chart.
 */
function readChart<T>(page: Page, title: string, read: string): Promise<T> {
  // One expression, compiled by the DevTools protocol: the page's CSP (no eval) does not apply to it.
  return page.evaluate(`(async () => {
    const url = performance
      .getEntriesByType('resource')
      .map((entry) => entry.name)
      .find((name) => /\\/chart-js-[^/]*\\.js$/.test(name));
    const chunk = await import(url);
    const Chart = Object.values(chunk).find((value) => typeof value?.getChart === 'function');
    const section = [...document.querySelectorAll('section.chart-card')].find(
      (element) => element.querySelector('h2')?.textContent === ${JSON.stringify(title)},
    );
    const chart = Chart.getChart(section.querySelector('canvas'));
    return (${read})(chart);
  })()`) as Promise<T>;
}

describe('Charts (real server)', () => {
  it('keeps every label of the hashtags chart: long and CJK ones cut, in full in the tooltip and the table', async () => {
    const page = await signedIn();
    await page.goto('/workspace/demo/insight/conversation?range=7d');
    await waitForHeading(page, 'Conversation');
    const hashtags = card(page, 'Hashtags');
    await hashtags.locator('.chart-canvas[data-drawn]').waitFor();
    const labels = await readChart<string[]>(
      page,
      'Hashtags',
      '(chart) => chart.scales.y.ticks.map((tick) => tick.label)',
    );
    expect(labels).toHaveLength(7);
    expect(labels).toEqual([
      '#cloudnestdown',
      '#cloudnestoutagestillno…',
      '#devops',
      '#クラウドネストの障害が…',
      '#outage',
      '#caídacloudnest',
      '#status',
    ]);
    // The long label's bar, hovered: the tooltip's title is the whole hashtag.
    const bar = await readChart<{ x: number; y: number }>(
      page,
      'Hashtags',
      '(chart) => ({ x: chart.getDatasetMeta(0).data[1].x, y: chart.getDatasetMeta(0).data[1].y })',
    );
    const box = (await hashtags.locator('canvas').boundingBox())!;
    await page.mouse.move(box.x + bar.x - 4, box.y + bar.y);
    await expect
      .poll(() => readChart<string[]>(page, 'Hashtags', '(chart) => chart.tooltip.title'))
      .toEqual([`#${LONG}`]);
    // The table view: every hashtag in full.
    await hashtags.getByRole('button', { name: 'Table' }).click();
    expect(await hashtags.getByRole('rowheader').allInnerTexts()).toEqual(HASHTAGS.map((tag) => `#${tag}`));
  });

  it('exports a PNG that says what it shows above the chart: title, query, range and time zone', async () => {
    const page = await signedIn();
    await page.goto('/workspace/demo/insight/conversation?range=7d&q=outage');
    await waitForHeading(page, 'Conversation');
    const hashtags = card(page, 'Hashtags');
    await hashtags.locator('.chart-canvas[data-drawn]').waitFor();
    const canvas = await hashtags
      .locator('canvas')
      .evaluate((element: HTMLCanvasElement) => ({ width: element.width, height: element.height }));
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      hashtags.getByRole('button', { name: 'Download Hashtags as PNG' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^murmur-conversation-hashtags-\d{4}-\d\d-\d\d\.png$/);
    const png = await readFile((await download.path())!);
    const { width, height, text, pixels } = decodePng(png);
    // The chart, whole, under a header band.
    expect(width).toBe(canvas.width);
    const band = height - canvas.height;
    expect(band).toBeGreaterThan(50);
    // The band has writing in it (dark pixels on white), on each of its lines.
    const darkRows = new Set<number>();
    for (let y = 0; y < band; y++) {
      for (let x = 0; x < width; x++) {
        const at = (y * width + x) * 4;
        if (pixels[at]! < 128 && pixels[at + 3]! > 0) darkRows.add(y);
      }
    }
    expect(darkRows.size).toBeGreaterThan(20);
    // The same in the file's metadata, as the page states it.
    const rangeLine = await page.locator('.range-line').innerText();
    expect(text.get('Title')).toBe('Murmur – Conversation – Hashtags');
    expect(text.get('Query')).toBe('outage');
    expect(text.get('Time zone')).toBe('UTC');
    expect(text.get('Range')).toMatch(
      /^\d{4}-\d\d-\d\dT.* to \d{4}-\d\d-\d\dT.* \(UTC, from inclusive, to exclusive\)$/,
    );
    expect(text.get('Description')).toMatch(/^Posts matching "outage" posted from /);
    expect(rangeLine).toMatch(/UTC – .+ UTC/);

    // The best time to post (a heatmap drawn for the file) says the same above it.
    await page.goto('/workspace/demo/insight/performance?range=7d&q=outage');
    await waitForHeading(page, 'Performance');
    const [heatmap] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download best time to post as PNG' }).click(),
    ]);
    const best = decodePng(await readFile((await heatmap.path())!));
    expect(best.text.get('Title')).toBe('Murmur – Performance – Best time to post');
    expect(best.text.get('Query')).toBe('outage');
    expect(best.height - 7 * 24).toBeGreaterThan(50 + 24);
  });

  it('draws every chart for print media, those below the fold too', async () => {
    const page = await signedIn({ width: 1280, height: 400 });
    await page.goto('/workspace/demo/insight/overview?range=7d');
    await waitForHeading(page, 'Overview');
    await page.locator('.chart-canvas[data-drawn]').first().waitFor();
    // Below the fold: not drawn, waiting to be scrolled toward.
    expect(await page.locator('.chart-canvas[data-offscreen]').count()).toBeGreaterThan(0);
    await page.emulateMedia({ media: 'print' });
    await expect
      .poll(() =>
        page
          .locator('.chart-canvas')
          .evaluateAll((boxes) => boxes.map((box) => box.hasAttribute('data-drawn'))),
      )
      .not.toContain(false);
    // Every card laid out in print (content-visibility would skip those far from the viewport).
    const visibility = await page
      .locator('section.chart-card')
      .evaluateAll((cards) => cards.map((element) => getComputedStyle(element).contentVisibility));
    expect(new Set(visibility)).toEqual(new Set(['visible']));
    expect((await page.pdf()).subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('draws every chart in the same task as `beforeprint`, before the browser lays the printed page out', async () => {
    const page = await signedIn({ width: 1280, height: 400 });
    await page.goto('/workspace/demo/insight/overview?range=7d');
    await waitForHeading(page, 'Overview');
    await page.locator('.chart-canvas[data-drawn]').first().waitFor();
    expect(await page.locator('.chart-canvas[data-offscreen]').count()).toBeGreaterThan(0);
    const drawn = await page.evaluate(() => {
      window.dispatchEvent(new Event('beforeprint'));
      return [...document.querySelectorAll('.chart-canvas')].map((box) => box.hasAttribute('data-drawn'));
    });
    expect(drawn.length).toBeGreaterThan(1);
    expect(drawn).not.toContain(false);
  });

  it("prints a chart's table in its place when printing starts before Chart.js could be loaded (the browser's menu)", async () => {
    const page = await signedIn({ width: 1280, height: 400 });
    // Chart.js's chunk never arrives (a slow network): no chart can be drawn before the page is printed.
    await page.route(/\/chart-js-[^/]*\.js$/, () => {});
    await page.goto('/workspace/demo/insight/overview?range=7d');
    await waitForHeading(page, 'Overview');
    await page.locator('section.chart-card .chart-canvas').first().waitFor();
    const printed = await page.evaluate(() => {
      const charted = [...document.querySelectorAll('section.chart-card')].filter((card) =>
        card.querySelector('.chart-canvas'),
      );
      window.dispatchEvent(new Event('beforeprint'));
      // Read in the same task: the browser lays the printed page out right after the listeners return.
      return {
        charted: charted.length,
        canvases: document.querySelectorAll('section.chart-card .chart-canvas').length,
        tables: charted.filter((card) => card.querySelector('table')).length,
      };
    });
    expect(printed.charted).toBeGreaterThan(1);
    expect(printed).toEqual({ charted: printed.charted, canvases: 0, tables: printed.charted });
    await page.evaluate(() => window.dispatchEvent(new Event('afterprint')));
    await expect.poll(() => page.locator('section.chart-card .chart-canvas').count()).toBeGreaterThan(0);
  });
});

/** A PNG's size, its text chunks (tEXt, iTXt) and its RGBA pixels (8-bit RGBA or RGB, not interlaced). */
function decodePng(png: Buffer) {
  let at = 8;
  let width = 0;
  let height = 0;
  let colorType = 0;
  const text = new Map<string, string>();
  const idat: Buffer[] = [];
  while (at < png.length) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      colorType = data[9]!;
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'tEXt' || type === 'iTXt') {
      const zero = data.indexOf(0);
      const keyword = data.toString('latin1', 0, zero);
      if (type === 'tEXt') text.set(keyword, data.toString('latin1', zero + 1));
      else {
        const language = data.indexOf(0, zero + 3);
        const translated = data.indexOf(0, language + 1);
        text.set(keyword, data.toString('utf8', translated + 1));
      }
    }
    at += 12 + length;
  }
  const channels = colorType === 6 ? 4 : 3;
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const rows = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    for (let x = 0; x < stride; x++) {
      const value = raw[y * (stride + 1) + 1 + x]!;
      const left = x >= channels ? rows[y * stride + x - channels]! : 0;
      const up = y > 0 ? rows[(y - 1) * stride + x]! : 0;
      const upLeft = y > 0 && x >= channels ? rows[(y - 1) * stride + x - channels]! : 0;
      const predicted =
        filter === 1
          ? left
          : filter === 2
            ? up
            : filter === 3
              ? (left + up) >> 1
              : filter === 4
                ? paeth(left, up, upLeft)
                : 0;
      rows[y * stride + x] = (value + predicted) & 0xff;
    }
  }
  const pixels = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    pixels[i * 4] = rows[i * channels]!;
    pixels[i * 4 + 1] = rows[i * channels + 1]!;
    pixels[i * 4 + 2] = rows[i * channels + 2]!;
    pixels[i * 4 + 3] = channels === 4 ? rows[i * channels + 3]! : 255;
  }
  return { width, height, text, pixels };
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}
