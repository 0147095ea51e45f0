// `npm run bench:lighthouse`: Lighthouse (mobile preset: emulated mid-range phone, simulated slow 4G) on /login and on
// the overview dashboard, through the real server with the demo corpus, in Debian's Chromium. Prints the performance
// score, FCP, LCP, TBT, CLS and bytes transferred, with the targets. The dashboard needs a signed-in browser: the
// script signs in through the development OpenID provider in a persistent profile, then Lighthouse opens its pages in
// that same browser with storage kept (the tokens live in localStorage).
//
// The server: `npm start`'s, started here on its own port and a temporary data directory with the demo corpus
// (scripts/demo-app.ts, which removes it afterwards, the database's files included), so the figures are always of
// this checkout's code. BENCH_URL=<origin> measures a server already running there instead (its `/login` must answer,
// and it must have the development provider's demo accounts).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import lighthouse from 'lighthouse';
import { chromium } from 'playwright-core';
import { signInAs, startDemoApp, type DemoApp } from './demo-app';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const DEBUG_PORT = 9300 + Math.floor(Math.random() * 600);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
/** BENCH_REPORT_DIR=<dir> keeps each run's Lighthouse report there (JSON), to see where the time went. */
const REPORT_DIR = process.env.BENCH_REPORT_DIR;

interface Figures {
  score: number;
  fcp: number;
  lcp: number;
  tbt: number;
  cls: number;
  bytes: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * Lighthouse's median run of `url`. Signed out, Lighthouse resets storage and cache itself; signed in, storage must
 * stay (the tokens), so `clearCache` empties the HTTP cache before each run instead: every run is a first visit's load.
 */
async function measure(url: string, clearCache?: () => Promise<void>): Promise<Figures> {
  const runs: Figures[] = [];
  for (let i = 0; i < RUNS; i++) {
    await clearCache?.();
    const result = await lighthouse(url, {
      port: DEBUG_PORT,
      output: 'json',
      logLevel: 'error',
      onlyCategories: ['performance'],
      disableStorageReset: clearCache !== undefined,
    });
    if (!result) throw new Error(`Lighthouse gave no result for ${url}`);
    const { lhr } = result;
    if (REPORT_DIR) {
      mkdirSync(REPORT_DIR, { recursive: true });
      const name = new URL(url).pathname.replace(/\W+/g, '-').replace(/^-|-$/g, '');
      writeFileSync(join(REPORT_DIR, `${name}-${i + 1}.json`), JSON.stringify(lhr, null, 1));
    }
    if (lhr.runtimeError) throw new Error(`Lighthouse: ${lhr.runtimeError.message}`);
    const audit = (id: string) => lhr.audits[id]?.numericValue ?? Number.NaN;
    runs.push({
      score: lhr.categories.performance?.score ?? Number.NaN,
      fcp: audit('first-contentful-paint'),
      lcp: audit('largest-contentful-paint'),
      tbt: audit('total-blocking-time'),
      cls: audit('cumulative-layout-shift'),
      bytes: audit('total-byte-weight'),
    });
  }
  // The run with the median score, so the figures belong together.
  const middle = median(runs.map((run) => run.score));
  return runs.find((run) => run.score === middle)!;
}

function print(name: string, figures: Figures, target: string) {
  console.log(
    `${name.padEnd(22)} score ${figures.score.toFixed(2)}  FCP ${(figures.fcp / 1000).toFixed(2)} s  ` +
      `LCP ${(figures.lcp / 1000).toFixed(2)} s  TBT ${Math.round(figures.tbt)} ms  CLS ${figures.cls.toFixed(3)}  ` +
      `${(figures.bytes / 1024).toFixed(1)} KiB transferred   (target: ${target})`,
  );
}

async function main() {
  let started: DemoApp | null = null;
  if (!process.env.BENCH_URL) {
    console.log("Starting npm start's server with the demo corpus on its own port…");
    started = await startDemoApp();
  }
  const BASE = process.env.BENCH_URL ?? started!.origin;
  const profile = mkdtempSync(join(tmpdir(), 'murmur-lighthouse-profile-'));
  const context = await chromium
    .launchPersistentContext(profile, {
      baseURL: BASE,
      executablePath: CHROMIUM,
      headless: true,
      args: [
        `--remote-debugging-port=${DEBUG_PORT}`,
        '--no-sandbox',
        '--no-first-run',
        '--disable-background-networking',
      ],
    })
    .catch(async (error: unknown) => {
      rmSync(profile, { recursive: true, force: true });
      await started?.stop();
      throw error;
    });
  try {
    const login = await measure(`${BASE}/login`);

    // Sign in as Ana (owner of the demo workspace) through the development provider.
    const page = context.pages()[0] ?? (await context.newPage());
    await signInAs(page, 'Ana');
    const cdp = await context.newCDPSession(page);
    const overview = await measure(`${BASE}/workspace/demo/insight/overview`, async () => {
      await cdp.send('Network.clearBrowserCache');
    });

    console.log(`Lighthouse ${RUNS} runs each (median score shown), mobile preset, ${CHROMIUM}, ${BASE}`);
    print('/login', login, 'score ≥ 0.95, LCP ≤ 2.0 s');
    print('overview dashboard', overview, 'score ≥ 0.90');
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
    await started?.stop();
  }
}

main().catch((error: unknown) => {
  console.error(`bench:lighthouse failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
