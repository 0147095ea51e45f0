// `npm run bench:dashboards [-- --runs 7 --only overview,posts --query nova --posts 1000000 --data-dir DIR]`: how long
// each insight dashboard takes in Chromium, against the real server (scripts/demo-app.ts), signed in as Ana: the time
// from navigation start to every chart of the dashboard drawn, for a full page load (the dashboard's address opened
// anew) and for an in-app tab switch (its tab clicked on another dashboard), median and p90 over --runs runs after one
// warm-up, per scope (--query, repeatable: each query typed as discover's `q`; "" is every post; default both).
//
// "Drawn" (DRAWN_JS in demo-app.ts): the dashboard's heading, no skeleton, its answer shown and not being fetched
// again, its main content present (post cards, the people table, the heatmap, the tiles and charts) and every chart's
// box near the 1280×800 viewport marked `data-drawn` by Chart.js (charts further down are drawn when scrolled toward).
// An init script watches the DOM (MutationObserver) and records performance.now() the first time that holds: for a
// full load, milliseconds since the navigation started (the page's time origin); for a tab switch, since the click on the tab (the click event's time stamp). The browser's HTTP cache is warm after the
// warm-up (scripts and styles come from it, as for a returning user); the app's data cache starts empty on each full
// load, and the tab switch's source dashboard is loaded anew before each click, so its target is never cached.
//
// Corpus: by default the 30,000-post demo corpus in a fresh temporary database. --data-dir DIR uses the corpus in DIR
// (as `npm run corpus:generate` leaves it, PostgreSQL in DIR/pg; a PostgreSQL already running on it is used as it
// is), adding the demo accounts and workspace to it. --posts 1000000 is the 1M corpus of `npm run bench:insights`:
// BENCH_DATA_DIR, else /tmp/murmur-1m, generated first when absent (`npm run corpus:generate -- --posts 1000000
// --seed 42`, about 5 minutes here).
// Other options: --refine (the refinement of filtered posts and profiles, default platform:x), --port / --pg-port
// (default 4795 / 55995), --verbose (the server's output).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { DASHBOARD_TITLES } from '@contract/insights-dashboards';
import { launchBrowser } from '@test/support/browser';
import {
  DASHBOARDS,
  DEFAULT_PG_PORT,
  DEFAULT_PORT,
  DRAWN_JS,
  signInAs,
  startDemoApp,
  type Dashboard,
} from './demo-app';

const WORKSPACE = 'demo';
const DEMO_TARGET_MS = 800;
const LARGE_TARGET_MS = 1500;
const ALL = Object.keys(DASHBOARDS) as Dashboard[];

interface BenchState {
  /** Milliseconds (page clock) of the tab click; 0 for a full load. */
  start: number;
  /** Milliseconds (page clock) when the dashboard was first drawn, or null. */
  at: number | null;
}
type BenchWindow = Window & { __murmurBench: BenchState };

/**
 * The page's own stopwatch (a string, for the same reason as DRAWN_JS): which dashboard is expected comes from the
 * address on load and from the tab's link on a click; the first mutation after which it is drawn stops the watch.
 */
const STOPWATCH_JS = `(() => {
  const drawn = ${DRAWN_JS};
  const specs = ${JSON.stringify(DASHBOARDS)};
  const specOf = (pathname) => specs[pathname.split('/').pop()] ?? null;
  const state = { spec: specOf(location.pathname), start: 0, at: null };
  window.__murmurBench = state;
  const check = () => {
    if (state.spec && state.at === null && drawn(state.spec)) state.at = performance.now();
  };
  new MutationObserver(check).observe(document, {
    subtree: true,
    childList: true,
    attributes: true,
    characterData: true,
  });
  document.addEventListener(
    'click',
    (event) => {
      const link = event.target instanceof Element ? event.target.closest('.section-nav a[href]') : null;
      if (!link) return;
      state.spec = specOf(new URL(link.href).pathname);
      state.start = event.timeStamp;
      state.at = null;
    },
    true,
  );
})();`;

interface Timing {
  /** To every chart drawn. */
  drawn: number;
  /** To the dashboard's answer received (the last /social/insights/ response to end), for where the time goes. */
  answer: number;
}

/** Waits for the stopwatch; a dashboard that fails (an error card) fails the run with what it says. */
async function stopwatch(page: Page, what: string): Promise<Timing> {
  const outcome = await page.waitForFunction(
    () => {
      const state = (window as unknown as BenchWindow).__murmurBench;
      if (state && state.at !== null) {
        const answers = performance
          .getEntriesByType('resource')
          .filter((entry) => entry.name.includes('/social/insights/') && entry.startTime >= state.start)
          .map((entry) => (entry as PerformanceResourceTiming).responseEnd);
        return { drawn: state.at - state.start, answer: Math.max(0, ...answers) - state.start };
      }
      const failure = document.querySelector('.insight-failure');
      return failure ? { failed: failure.textContent ?? 'failed' } : null;
    },
    undefined,
    { timeout: 60_000 },
  );
  const value = (await outcome.jsonValue()) as Timing & { failed?: string };
  if (value.failed !== undefined) throw new Error(`${what}: ${value.failed}`);
  return value;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

function corpusDir(posts: string | undefined, dataDir: string | undefined): string | undefined {
  if (dataDir) return path.resolve(dataDir);
  if (posts === undefined) return undefined;
  const count = Number(posts.replace(/_/g, ''));
  if (!Number.isInteger(count) || count <= 0) throw new Error('--posts must be a whole number of posts');
  const dir = path.resolve(
    process.env.BENCH_DATA_DIR ?? `/tmp/murmur-${count === 1_000_000 ? '1m' : String(count)}`,
  );
  if (!existsSync(path.join(dir, 'pg', 'PG_VERSION'))) {
    console.log(`No corpus in ${dir}: generating ${count.toLocaleString('en-US')} posts (seed 42)…`);
    // The embedded PostgreSQL in that directory, whatever DATABASE_URL says.
    const { DATABASE_URL: _ignored, ...env } = process.env;
    const result = spawnSync(
      'npm',
      ['run', 'corpus:generate', '--', '--posts', String(count), '--seed', '42'],
      {
        stdio: 'inherit',
        env: { ...env, DATA_DIR: dir, EMBEDDED_PG_PORT: process.env.BENCH_PG_PORT ?? '55001' },
      },
    );
    if (result.status !== 0) throw new Error('The corpus generator failed.');
  }
  return dir;
}

async function main() {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '7' },
      only: { type: 'string' },
      query: { type: 'string', multiple: true },
      refine: { type: 'string', default: 'platform:x' },
      posts: { type: 'string' },
      'data-dir': { type: 'string' },
      port: { type: 'string', default: String(DEFAULT_PORT) },
      'pg-port': { type: 'string', default: String(DEFAULT_PG_PORT) },
      verbose: { type: 'boolean', default: false },
    },
  });
  const runs = Number(values.runs);
  const dashboards = values.only ? ALL.filter((name) => values.only!.split(',').includes(name)) : ALL;
  const queries = values.query ?? ['', 'nova'];
  const dataDir = corpusDir(values.posts, values['data-dir']);
  const targetMs = dataDir ? LARGE_TARGET_MS : DEMO_TARGET_MS;
  const corpus = dataDir ? `the corpus in ${dataDir}` : 'the demo corpus (30,000 posts)';

  console.log(`Starting the server with ${corpus}…`);
  const app = await startDemoApp({
    port: Number(values.port),
    pgPort: Number(values['pg-port']),
    dataDir,
    verbose: values.verbose,
  });
  const browser = await launchBrowser();
  try {
    const context = await browser.newContext({
      baseURL: app.origin,
      viewport: { width: 1280, height: 800 },
      serviceWorkers: 'block',
    });
    context.setDefaultTimeout(60_000);
    await context.addInitScript({ content: STOPWATCH_JS });
    const page = await context.newPage();
    await signInAs(page, 'Ana');

    /** The dashboard's address for the scope; the filtered lists (and the page their tab is clicked on) refined. */
    const address = (dashboard: Dashboard, query: string, refined = dashboard.startsWith('filtered-')) => {
      const search = new URLSearchParams();
      if (query) search.set('q', query);
      if (refined) search.set('refine', values.refine);
      return `/workspace/${WORKSPACE}/insight/${dashboard}${search.size ? `?${search}` : ''}`;
    };
    const fullLoad = async (dashboard: Dashboard, query: string) => {
      await page.goto(address(dashboard, query), { waitUntil: 'commit' });
      return stopwatch(page, `${dashboard} (full load)`);
    };
    const tabSwitch = async (dashboard: Dashboard, query: string) => {
      // From another dashboard of the same scope (refinement included: the tabs carry it).
      const source: Dashboard = dashboard === 'overview' ? 'posts' : 'overview';
      await page.goto(address(source, query, dashboard.startsWith('filtered-')), { waitUntil: 'commit' });
      await stopwatch(page, `${source} (before the tab switch)`);
      await page
        .getByRole('navigation', { name: 'Insight dashboards' })
        .getByRole('link', { name: DASHBOARD_TITLES[dashboard], exact: true })
        .click();
      return stopwatch(page, `${dashboard} (tab switch)`);
    };

    const ms = (n: number) => `${n.toFixed(0)} ms`;
    const columns = [18, 13, 8, 11, 14, 8, 11];
    const line = (cells: string[]) =>
      cells.map((cell, i) => (i === 0 ? cell.padEnd(columns[i]!) : cell.padStart(columns[i]!))).join('  ');
    for (const query of queries) {
      const scope = query ? `query "${query}"` : 'every post';
      console.log(
        `\n${corpus}, ${scope}, the last 30 days (filtered lists refined by ${values.refine}); ${runs} runs after ` +
          `a warm-up.\nFrom navigation start (full load) or the click on the tab (tab switch) to every chart drawn; ` +
          `"answer": to the dashboard's API answer received.`,
      );
      console.log(
        line(['dashboard', 'full load p50', 'p90', 'answer p50', 'tab switch p50', 'p90', 'answer p50']) +
          '  target',
      );
      for (const dashboard of dashboards) {
        const figures: Record<'full' | 'tab', Timing[]> = { full: [], tab: [] };
        for (const [mode, measure] of [
          ['full', fullLoad],
          ['tab', tabSwitch],
        ] as const) {
          await measure(dashboard, query);
          for (let run = 0; run < runs; run += 1) figures[mode].push(await measure(dashboard, query));
        }
        const sorted = (mode: 'full' | 'tab', field: keyof Timing) =>
          figures[mode].map((timing) => timing[field]).sort((x, y) => x - y);
        const [full, tab] = [sorted('full', 'drawn'), sorted('tab', 'drawn')];
        const worst = Math.max(percentile(full, 50), percentile(tab, 50));
        console.log(
          line([
            dashboard,
            ms(percentile(full, 50)),
            ms(percentile(full, 90)),
            ms(percentile(sorted('full', 'answer'), 50)),
            ms(percentile(tab, 50)),
            ms(percentile(tab, 90)),
            ms(percentile(sorted('tab', 'answer'), 50)),
          ]) + `  <= ${targetMs} ms: ${worst <= targetMs ? 'PASS' : 'OVER'}`,
        );
        if (values.verbose) {
          for (const mode of ['full', 'tab'] as const) {
            const each = figures[mode].map(
              (timing) => `${timing.drawn.toFixed(0)} (${timing.answer.toFixed(0)})`,
            );
            console.log(`  ${mode}: ${each.join(', ')}`);
          }
        }
      }
    }
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
