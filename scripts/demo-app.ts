// The real app for the screenshot and dashboard-timing scripts: `npm start`'s server (server/main.ts) in a child
// process on its own ports, with the demo corpus in a temporary data directory (or an existing corpus), serving an SPA
// built for its origin (dist-scripts/, reused while its inputs and settings are unchanged); and Chromium signed in
// through the development OpenID provider as a demo account.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { runningEmbeddedUrl } from '@server/db/database';
import { buildSpaFor, localSpaEnv } from '@test/support/spa-build';

const ROOT = path.resolve(import.meta.dirname, '..');
const DIST_DIR = path.join(ROOT, 'dist-scripts');

/** Ports no other tool of the project uses by default (npm start: 8787 and 54329; the browser tests: 4781–4790). */
export const DEFAULT_PORT = 4795;
export const DEFAULT_PG_PORT = 55995;

export interface DemoAppOptions {
  port?: number;
  pgPort?: number;
  /**
   * A data directory holding a corpus (its PostgreSQL in pg/, as `npm run corpus:generate` leaves it). Absent: a
   * fresh temporary one, seeded with the demo corpus and removed afterwards. A PostgreSQL already running on it is used
   * as it is (and left running).
   */
  dataDir?: string;
  /** Server output on this process's stderr (it is always shown when the server fails to start). */
  verbose?: boolean;
}

export interface DemoApp {
  origin: string;
  stop(): Promise<void>;
}

/** Starts the server (building the SPA first when needed) and resolves once it listens. */
export async function startDemoApp(options: DemoAppOptions = {}): Promise<DemoApp> {
  const port = options.port ?? DEFAULT_PORT;
  const origin = `http://127.0.0.1:${port}`;
  if (await buildSpaFor(DIST_DIR, localSpaEnv(origin))) console.log(`Built the web app for ${origin}.`);

  const ownDir = options.dataDir ? null : mkdtempSync(path.join(tmpdir(), 'murmur-scripts-'));
  // As root, PostgreSQL runs as its own system user, which must be able to enter the directory.
  if (ownDir) chmodSync(ownDir, 0o755);
  const dataDir = path.resolve(options.dataDir ?? ownDir!);
  const running = runningEmbeddedUrl(path.join(dataDir, 'pg'));
  const { DATABASE_URL: _ignored, ...inherited } = process.env;
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    APP_ENV: 'local',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    EMBEDDED_PG_PORT: String(options.pgPort ?? DEFAULT_PG_PORT),
    DEV_OIDC_ISSUER: `${origin}/oidc`,
    // The development mailbox on a free port: beside a running `npm start`, which holds 2525.
    DEV_MAILBOX_PORT: '0',
    // The scripts sign in and open dashboards far more often than a person.
    LOGIN_RATE_LIMIT_PER_MINUTE: '1000',
    SOCIAL_RATE_LIMIT_PER_MINUTE: '100000',
    MURMUR_PREBUILT_SPA: JSON.stringify({ dir: DIST_DIR, origins: [origin] }),
  };
  if (running) {
    console.log(`Using the PostgreSQL already running on ${dataDir}/pg.`);
    env.DATABASE_URL = running;
  }
  const main = pathToFileURL(path.join(ROOT, 'server', 'main.ts')).href;
  const code =
    `const { startServer } = await import(${JSON.stringify(main)});\n` +
    `await startServer({ serveSpa: true, prebuiltSpa: JSON.parse(process.env.MURMUR_PREBUILT_SPA) });`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });

  const removeOwnDir = () => {
    if (ownDir) rmSync(ownDir, { recursive: true, force: true });
  };
  try {
    await listening(child, options.verbose ?? false);
  } catch (error) {
    await stopChild(child);
    removeOwnDir();
    throw error;
  }
  return {
    origin,
    async stop() {
      await stopChild(child);
      removeOwnDir();
    },
  };
}

/** Resolves when the server says it runs; rejects with its output when it exits first. */
function listening(child: ChildProcess, verbose: boolean): Promise<void> {
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      if (verbose) process.stderr.write(text.replace(/^(?=.)/gm, '[server] '));
      if (/Murmur is running at/.test(output)) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code, signal) =>
      reject(new Error(`The server exited (${signal ?? `code ${code}`}) before listening:\n${output}`)),
    );
  });
}

/** SIGTERM: the server closes and stops its PostgreSQL cleanly (server/main.ts). */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  await exited;
  clearTimeout(timer);
}

/** The demo accounts of server/dev-oidc/accounts.ts, by first name: Ana (owner), Ben (manager), Cleo (viewer). */
export async function signInAs(page: Page, firstName: string): Promise<void> {
  await page.goto('/login');
  await page.getByRole('button', { name: 'Sign in with Google' }).click();
  await page.waitForURL((url) => url.pathname.startsWith('/oidc/interaction/'));
  await page
    .getByRole('button', { name: new RegExp(`^${firstName}\\b`) })
    .first()
    .click();
  await page.waitForURL((url) => url.pathname.startsWith('/workspace/'));
}

/** The signed-in page's access token (the app keeps its session in localStorage), for calls to the API. */
export async function accessToken(page: Page): Promise<string> {
  const stored = await page.evaluate(() => window.localStorage.getItem('auth_tokens'));
  if (!stored) throw new Error('Not signed in: no auth_tokens in localStorage');
  return (JSON.parse(stored) as { access_token: string }).access_token;
}

/** What a dashboard shows once its answer is drawn: its heading and the elements of its main content. */
export interface DashboardSpec {
  title: string;
  content: readonly string[];
}

export const DASHBOARDS = {
  overview: { title: 'Overview', content: ['.tile', '.chart-canvas'] },
  posts: { title: 'Posts', content: ['.post-card'] },
  people: { title: 'People', content: ['.data-table'] },
  performance: { title: 'Performance', content: ['.heatmap'] },
  conversation: { title: 'Conversation', content: ['.chart-canvas'] },
  'filtered-posts': { title: 'Filtered posts', content: ['.post-card'] },
  'filtered-profiles': { title: 'Filtered profiles', content: ['.data-table'] },
} as const satisfies Record<string, DashboardSpec>;
export type Dashboard = keyof typeof DASHBOARDS;

/**
 * In-page JavaScript, `(spec) => boolean`: true once the page is the dashboard of `spec` with everything drawn — its
 * heading, no skeleton, its answer shown and not being fetched again, its main content present, and every chart's box
 * near the viewport marked `data-drawn` by Chart.js (src/features/insight/charts/ChartCanvas.tsx; a chart further down
 * is drawn when scrolled toward, its box marked `data-offscreen` until then). A string, installed as
 * `window.__murmurDrawn` by an init script (the DevTools protocol, so the page's CSP, which forbids eval, does not
 * apply); functions compiled by tsx may carry helpers the page lacks.
 */
export const DRAWN_JS = `(spec) => {
  const heading = document.getElementById('page-title');
  if (!heading || heading.textContent.trim() !== spec.title) return false;
  if (document.querySelector('.skeleton-card')) return false;
  if (!document.querySelector('.insight-body') || document.querySelector('.insight-body[aria-busy="true"]')) return false;
  if (!spec.content.every((selector) => document.querySelector(selector))) return false;
  for (const chart of document.querySelectorAll('.chart-canvas')) {
    if (!chart.hasAttribute('data-drawn') && !chart.hasAttribute('data-offscreen')) return false;
  }
  return true;
}`;

/** Installs `window.__murmurDrawn` (DRAWN_JS) in every document of the context. */
export async function installDrawnCheck(context: BrowserContext): Promise<void> {
  await context.addInitScript({ content: `window.__murmurDrawn = ${DRAWN_JS};` });
}

type DrawnWindow = Window & { __murmurDrawn: (spec: DashboardSpec) => boolean };

/** Waits until the page shows the dashboard drawn (DRAWN_JS; installDrawnCheck first). */
export async function waitForDrawn(page: Page, dashboard: Dashboard, timeout = 30_000): Promise<void> {
  await page.waitForFunction(
    (spec) => (window as unknown as DrawnWindow).__murmurDrawn(spec),
    DASHBOARDS[dashboard],
    {
      timeout,
    },
  );
}
