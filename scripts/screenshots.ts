// `npm run screenshots`: PNGs of the main screens in docs/screenshots/, from the real app with the demo corpus.
// Starts the server on its own ports with a fresh temporary data directory (scripts/demo-app.ts), creates two saved
// queries through the API, signs in as Ana (owner of "Murmur Demo") in Chromium and saves a 1280×800 viewport of each
// screen once its content is drawn (charts marked data-drawn, no skeleton, posts listed): never after a fixed sleep.
// The PNGs are then re-encoded losslessly with zlib at its highest level (Chromium writes them fast, not small).
// Chinese, Japanese and Korean posts and emoji need fonts Chromium can find: on Debian, fonts-noto-cjk and
// fonts-noto-color-emoji; without them those characters are drawn as boxes (the script still runs).
//
// Options: --port / --pg-port (default 4795 / 55995), --out <dir> (default docs/screenshots), --verbose.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { deflateSync, inflateSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { launchBrowser } from '@test/support/browser';
import {
  DEFAULT_PG_PORT,
  DEFAULT_PORT,
  accessToken,
  installDrawnCheck,
  signInAs,
  startDemoApp,
  waitForDrawn,
  type Dashboard,
} from './demo-app';

const ROOT = path.resolve(import.meta.dirname, '..');
const WORKSPACE = 'demo';
const VIEWPORT = { width: 1280, height: 800 };

/** Saved queries on topics of the demo corpus (server/social/corpus/generate/topics.ts), newest last. */
const SAVED_QUERIES = [
  { name: 'Nova X launch', query: '#NovaX OR #NovaLaunch OR @novamobile' },
  { name: 'CloudNest outage', query: 'cloudnest OR #CloudNestDown OR @cloudnest_status' },
] as const;
/** Typed into the saved-query editor (not saved): the live check and the preview answer it. */
const EDITOR_QUERY = { name: 'Matcha tiramisu', query: '#MatchaTiramisu OR (matcha AND tiramisu)' };
const DISCOVER_QUERY = '#AURORA9 OR starlight';

async function createSavedQueries(page: Page, origin: string): Promise<Map<string, string>> {
  const token = await accessToken(page);
  const ids = new Map<string, string>();
  for (const saved of SAVED_QUERIES) {
    const response = await fetch(`${origin}/api/workspaces/${WORKSPACE}/saved-queries`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: saved.name, query: saved.query }),
    });
    if (!response.ok) throw new Error(`Saving "${saved.name}": ${response.status} ${await response.text()}`);
    ids.set(saved.name, ((await response.json()) as { id: string }).id);
  }
  return ids;
}

/** No pending request of the page's own kind: the screen's answers are in. */
async function settled(page: Page): Promise<void> {
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
}

// ------------------------------------------------------------------------------------- PNG re-encoding

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

const paeth = (a: number, b: number, c: number) => {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
};

/** The rows filtered with `choose(row, above)` (one of the five PNG filters per row), each prefixed by its filter. */
function filterRows(
  image: Buffer,
  stride: number,
  choose: (row: Buffer, above: Buffer | null) => Buffer,
): Buffer {
  const height = image.length / stride;
  const out = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y += 1) {
    const row = image.subarray(y * stride, (y + 1) * stride);
    const above = y > 0 ? image.subarray((y - 1) * stride, y * stride) : null;
    choose(row, above).copy(out, y * (stride + 1));
  }
  return out;
}

/** A row with filter `filter` applied, prefixed by the filter's number. */
function applyFilter(filter: number, row: Buffer, above: Buffer | null, channels: number): Buffer {
  const out = Buffer.alloc(row.length + 1);
  out[0] = filter;
  for (let x = 0; x < row.length; x += 1) {
    const a = x >= channels ? row[x - channels]! : 0;
    const b = above ? above[x]! : 0;
    const c = above && x >= channels ? above[x - channels]! : 0;
    const predictor = [0, a, b, (a + b) >> 1, paeth(a, b, c)][filter]!;
    out[x + 1] = (row[x]! - predictor) & 0xff;
  }
  return out;
}

/**
 * Chromium's PNG (8-bit RGB or RGBA, not interlaced) encoded again, losslessly: the alpha channel dropped when every
 * pixel is opaque, and deflated at level 9 with no filter on any row or with each row's best filter by the usual
 * sum of absolute values, whichever is smaller (screens of flat colour and text compress best unfiltered, about a
 * fifth smaller than Chromium's own). The original is kept when it is smaller; anything else is returned unchanged.
 */
function recompressPng(png: Buffer): Buffer {
  if (!png.subarray(0, 8).equals(PNG_SIGNATURE)) return png;
  let offset = 8;
  let header: Buffer | null = null;
  const idat: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') header = data;
    else if (type === 'IDAT') idat.push(data);
    offset += 12 + length;
  }
  if (!header) return png;
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  const [depth, colour, interlace] = [header[8], header[9], header[12]];
  if (depth !== 8 || interlace !== 0 || (colour !== 2 && colour !== 6)) return png;
  const channels = colour === 6 ? 4 : 3;
  const stride = width * channels;
  const raw = inflateSync(Buffer.concat(idat));
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y += 1) {
    const filter = raw[y * (stride + 1)] ?? 0;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const row = pixels.subarray(y * stride, (y + 1) * stride);
    const above = y > 0 ? pixels.subarray((y - 1) * stride, y * stride) : null;
    for (let x = 0; x < stride; x += 1) {
      const a = x >= channels ? row[x - channels]! : 0;
      const b = above ? above[x]! : 0;
      const c = above && x >= channels ? above[x - channels]! : 0;
      const predictor = [0, a, b, (a + b) >> 1, paeth(a, b, c)][filter] ?? 0;
      row[x] = (line[x]! + predictor) & 0xff;
    }
  }
  let outChannels = channels;
  let image = pixels;
  if (channels === 4) {
    let opaque = true;
    for (let i = 3; i < pixels.length && opaque; i += 4) opaque = pixels[i] === 255;
    if (opaque) {
      outChannels = 3;
      image = Buffer.alloc(width * 3 * height);
      for (let i = 0, j = 0; i < pixels.length; i += 4, j += 3) pixels.copy(image, j, i, i + 3);
    }
  }
  const outStride = width * outChannels;
  const unfiltered = filterRows(image, outStride, (row) => applyFilter(0, row, null, outChannels));
  const adaptive = filterRows(image, outStride, (row, above) => {
    let best: Buffer | null = null;
    let bestCost = Infinity;
    for (let filter = 0; filter < 5; filter += 1) {
      const candidate = applyFilter(filter, row, above, outChannels);
      let cost = 0;
      for (let x = 1; x < candidate.length; x += 1)
        cost += candidate[x]! < 128 ? candidate[x]! : 256 - candidate[x]!;
      if (cost < bestCost) [best, bestCost] = [candidate, cost];
    }
    return best!;
  });
  const outHeader = Buffer.from(header);
  outHeader[9] = outChannels === 4 ? 6 : 2;
  const encode = (rows: Buffer) =>
    Buffer.concat([
      PNG_SIGNATURE,
      chunk('IHDR', outHeader),
      chunk('IDAT', deflateSync(rows, { level: 9, memLevel: 9 })),
      chunk('IEND', Buffer.alloc(0)),
    ]);
  return [png, encode(unfiltered), encode(adaptive)].reduce((a, b) => (b.length < a.length ? b : a));
}

// ------------------------------------------------------------------------------------------------ main

async function main() {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: String(DEFAULT_PORT) },
      'pg-port': { type: 'string', default: String(DEFAULT_PG_PORT) },
      out: { type: 'string', default: path.join(ROOT, 'docs', 'screenshots') },
      verbose: { type: 'boolean', default: false },
    },
  });
  const outDir = path.resolve(values.out);
  mkdirSync(outDir, { recursive: true });

  console.log('Starting the server with the demo corpus…');
  const app = await startDemoApp({
    port: Number(values.port),
    pgPort: Number(values['pg-port']),
    verbose: values.verbose,
  });
  const browser = await launchBrowser();
  try {
    const context = await browser.newContext({
      baseURL: app.origin,
      viewport: VIEWPORT,
      deviceScaleFactor: 1,
      // Charts skip their entry animation (src/features/insight/charts/chart-js.ts): drawn is drawn in full.
      reducedMotion: 'reduce',
      serviceWorkers: 'block',
    });
    context.setDefaultTimeout(30_000);
    await installDrawnCheck(context);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });

    await signInAs(page, 'Ana');
    const ids = await createSavedQueries(page, app.origin);
    const outage = ids.get('CloudNest outage')!;

    /**
     * Each screen: its file, how to open it and wait for it, and how much of it: the viewport, or (`until`) the page
     * from its top to the bottom of the last card of that heading, where the viewport would cut the charts.
     */
    const shots: Array<{ file: string; open: () => Promise<void>; until?: string }> = [
      {
        file: 'saved-queries.png',
        open: async () => {
          await page.goto(`/workspace/${WORKSPACE}/saved-queries`);
          // Every saved query with its 7-day sparkline.
          await page.waitForFunction(
            (count) => document.querySelectorAll('table.saved-queries .mentions').length === count,
            SAVED_QUERIES.length,
          );
        },
      },
      {
        file: 'saved-query-editor.png',
        open: async () => {
          await page.goto(`/workspace/${WORKSPACE}/saved-queries?edit=new`);
          await page.locator('.cm-content').waitFor();
          await page.getByRole('textbox', { name: 'Name' }).fill(EDITOR_QUERY.name);
          await page.locator('#saved-query-text-label').click();
          await page.keyboard.type(EDITOR_QUERY.query);
          await page.locator('.query-preview .post-card').first().waitFor();
          await settled(page);
          // The form from its heading down.
          await page.evaluate(() => {
            const form = document.querySelector('.saved-query-form');
            if (form) window.scrollTo(0, form.getBoundingClientRect().top + window.scrollY - 16);
          });
        },
      },
      {
        file: 'discover.png',
        open: async () => {
          await page.goto(`/workspace/${WORKSPACE}/discover?q=${encodeURIComponent(DISCOVER_QUERY)}`);
          await page.locator('.discover-posts .post-card').first().waitFor();
          await page.locator('.discover-profiles').waitFor();
          await settled(page);
        },
      },
      ...(
        [
          ['overview', '', 'Sentiment over time'],
          ['posts', ''],
          ['people', ''],
          ['performance', '', 'Best time to post'],
          ['conversation', '', 'Words'],
          ['filtered-posts', '&refine=sentiment:negative'],
        ] as Array<[Dashboard, string, string?]>
      ).map(([dashboard, extra, until]) => ({
        file: `${dashboard}.png`,
        until,
        open: async () => {
          await page.goto(`/workspace/${WORKSPACE}/insight/${dashboard}?query=${outage}${extra}`);
          await waitForDrawn(page, dashboard);
        },
      })),
      {
        file: 'members.png',
        open: async () => {
          await page.goto(`/workspace/${WORKSPACE}/settings/member`);
          await page
            .getByRole('table', { name: 'Members of this workspace' })
            .getByRole('rowheader', { name: 'Cleo Viewer' })
            .waitFor();
          await settled(page);
        },
      },
    ];

    for (const { file, open, until } of shots) {
      await open();
      // Fonts and images the screen asked for, then a frame with everything on it.
      await page.evaluate(() => document.fonts.ready.then(() => undefined));
      await page.evaluate(
        () =>
          new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
      );
      const bottom = until
        ? await page
            .locator('section')
            .filter({ has: page.getByRole('heading', { name: until, exact: true }) })
            .last()
            .evaluate((card) => card.getBoundingClientRect().bottom + window.scrollY)
        : null;
      if (bottom !== null) {
        // Charts further down than the viewport are drawn when scrolled toward (ChartCanvas): the page is scrolled to
        // the shot's bottom until every chart above it is drawn, then back to its top.
        await page.evaluate((y) => window.scrollTo(0, y), bottom);
        await page.waitForFunction(
          (y) =>
            [...document.querySelectorAll('.chart-canvas')].every(
              (chart) =>
                chart.hasAttribute('data-drawn') || chart.getBoundingClientRect().top + window.scrollY > y,
            ),
          bottom,
        );
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.evaluate(
          () =>
            new Promise<void>((resolve) =>
              requestAnimationFrame(() => requestAnimationFrame(() => resolve())),
            ),
        );
      }
      const png = await page.screenshot({
        animations: 'disabled',
        caret: 'hide',
        ...(bottom
          ? { fullPage: true, clip: { x: 0, y: 0, width: VIEWPORT.width, height: bottom + 24 } }
          : {}),
      });
      const small = recompressPng(png);
      writeFileSync(path.join(outDir, file), small);
      console.log(
        `${path.relative(ROOT, path.join(outDir, file))}  ${(small.length / 1024).toFixed(0)} KB ` +
          `(${(png.length / 1024).toFixed(0)} KB as Chromium wrote it)`,
      );
    }
    if (problems.length) console.warn(`The page reported:\n  ${problems.join('\n  ')}`);
    await context.close();
  } finally {
    await browser.close();
    await app.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
