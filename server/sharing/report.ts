// A dashboard as a PDF report (docs/sharing.md): the view is given a share link of a few minutes (purpose 'report',
// never listed), the server's own Chromium (REPORT_CHROMIUM_PATH, through playwright-core) opens that link's page in
// report mode — every chart drawn with its table beside it, the "what is counted" sentences open, the time it was
// made — at the origin the SPA calls (report-origin.ts), and prints it; the link is deleted once printed, or failed.
// One report is printed at a time (each is a Chromium process), in turns between workspaces: each workspace has its
// own queue (a few reports waiting at most, then 503 busy for that workspace only), the workspaces waiting take a
// report each in turn, and each report has a time budget, after which it is given up (503 report_failed).
import { existsSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import { chromium, errors, type Browser } from 'playwright-core';
import type { SharedDashboard } from '@contract/share-links';
import type { Db } from '@server/db/database';
import { shareLinks } from '@server/db/social-schema';
import { ApiError } from '@server/errors';
import { hashShareToken, newShareToken, type AnyView } from './links';
import type { ReportPage } from './report-origin';

/** How long a report's link lives: the printing takes seconds. */
const REPORT_LINK_MS = 3 * 60_000;
/** The longest one report may take once its turn comes: Chromium's start, the page's drawing and the printing. */
export const REPORT_BUDGET_MS = 30_000;
/** Reports of one workspace waiting for the printer at most; its next ones are refused, other workspaces' are not. */
export const REPORTS_WAITING_PER_WORKSPACE = 3;

export interface ReportPrinterOptions {
  budgetMs?: number;
  waitingPerWorkspace?: number;
}

export interface ReportAsk {
  db: Db;
  /** Where the report's page is opened (report-origin.ts). */
  page: ReportPage;
  /** Where this server answers (its own address): it answers the page's origin's requests when it serves the SPA. */
  serverOrigin: string;
  chromiumPath: string;
  workspaceId: string;
  userId: string | undefined;
  dashboard: SharedDashboard;
  view: AnyView;
  /** Why a report failed, for the server's log (never shown to the member). */
  log?: (line: string) => void;
}

const failed = (message: string) => new ApiError(503, 'report_failed', message);

/** An error's first line, the report link's token taken out. */
const firstLine = (error: unknown) =>
  (error instanceof Error ? error.message : String(error))
    .split('\n')[0]!
    .replace(/token=[^&\s]+/g, 'token=…');

/** Prints the report of one ask, within `budgetMs`; its link is removed whatever happens. */
async function printOne(ask: ReportAsk, budgetMs: number): Promise<Buffer> {
  const token = newShareToken();
  const [link] = await ask.db
    .insert(shareLinks)
    .values({
      workspaceId: ask.workspaceId,
      tokenHash: hashShareToken(token),
      dashboard: ask.dashboard,
      purpose: 'report',
      view: ask.view,
      createdBy: ask.userId,
      expiresAt: new Date(Date.now() + REPORT_LINK_MS),
    })
    .returning({ id: shareLinks.id });
  const deadline = Date.now() + budgetMs;
  const left = () => Math.max(1, deadline - Date.now());
  let browser: Browser | null = null;
  let overBudget = false;
  // Past the budget, Chromium is closed: whatever it was doing fails at once.
  const timer = setTimeout(() => {
    overBudget = true;
    void browser?.close().catch(() => undefined);
  }, budgetMs);
  try {
    try {
      browser = await chromium.launch({
        executablePath: ask.chromiumPath,
        headless: true,
        timeout: left(),
        args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
      });
    } catch (error) {
      if (overBudget || error instanceof errors.TimeoutError) throw error;
      ask.log?.(`report: Chromium did not start: ${firstLine(error)}`);
      throw failed("The report could not be made: the server's Chromium did not start. Try again later.");
    }
    if (overBudget) throw new errors.TimeoutError('over budget');
    const context = await browser.newContext({ viewport: { width: 1100, height: 1400 } });
    const { origin } = ask.page;
    if (ask.page.servedHere && origin !== ask.serverOrigin) {
      // The page and its calls are at the SPA's origin; this server answers them at its own address.
      await context.route(
        (url) => url.origin === origin,
        async (route) => {
          const asked = new URL(route.request().url());
          try {
            const response = await route.fetch({
              url: `${ask.serverOrigin}${asked.pathname}${asked.search}`,
              maxRedirects: 0,
              timeout: left(),
            });
            await route.fulfill({ response });
          } catch {
            await route.abort().catch(() => undefined);
          }
        },
      );
    }
    const page = await context.newPage();
    const response = await page.goto(`${origin}/shared#token=${token}&report=1`, { timeout: left() });
    if (!response?.ok()) {
      ask.log?.(`report: the page answered ${response?.status() ?? 'nothing'}`);
      throw failed(
        `The report could not be made: its page could not be opened (${response ? `HTTP ${response.status()}` : 'no answer'}).`,
      );
    }
    // The page marks the document when it has drawn the report, or failed to.
    await page.waitForSelector('html[data-report]', { state: 'attached', timeout: left() });
    if ((await page.locator('html').getAttribute('data-report')) !== 'ready') {
      const reason = await page
        .locator('[role="alert"]')
        .first()
        .innerText({ timeout: 1_000 })
        .catch(() => '');
      throw failed(reason || 'The report could not be drawn.');
    }
    // Every chart in view, so each has been drawn (a chart below the fold waits to be seen): the window as tall
    // as the page, then a moment for the last ones to draw.
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.setViewportSize({ width: 1100, height: Math.min(Math.max(height, 1400), 30_000) });
    await page.waitForTimeout(400);
    await page.emulateMedia({ media: 'print' });
    return await page.pdf({
      format: 'A4',
      printBackground: true,
      margin: { top: '14mm', bottom: '14mm', left: '12mm', right: '12mm' },
    });
  } catch (error) {
    if (overBudget || error instanceof errors.TimeoutError) {
      ask.log?.(`report: given up after ${budgetMs} ms: ${firstLine(error)}`);
      throw failed(
        `The report was not ready within ${Math.round(budgetMs / 1000)} seconds, so it was given up. Try again in a minute.`,
      );
    }
    if (error instanceof ApiError) throw error;
    ask.log?.(`report: ${firstLine(error)}`);
    throw failed('The report could not be made: its page could not be printed. Try again in a minute.');
  } finally {
    clearTimeout(timer);
    await browser?.close().catch(() => undefined);
    await ask.db.delete(shareLinks).where(eq(shareLinks.id, link!.id));
  }
}

/**
 * The server's report printer: one report at a time, the workspaces with reports waiting taking turns (one report
 * each, in the order they first asked), at most `waitingPerWorkspace` waiting per workspace (then 503 busy for it).
 */
export function reportPrinter({
  budgetMs = REPORT_BUDGET_MS,
  waitingPerWorkspace = REPORTS_WAITING_PER_WORKSPACE,
}: ReportPrinterOptions = {}) {
  /** Each workspace's reports waiting, first asked first. */
  const waiting = new Map<string, (() => Promise<void>)[]>();
  /** The workspaces whose turn is coming, in order (the one printing joins the end when its report is done). */
  const turns: string[] = [];
  let printing = false;

  const next = () => {
    if (printing) return;
    const workspaceId = turns.shift();
    if (workspaceId === undefined) return;
    const jobs = waiting.get(workspaceId)!;
    const job = jobs.shift()!;
    printing = true;
    void job().finally(() => {
      printing = false;
      if (jobs.length) turns.push(workspaceId);
      else waiting.delete(workspaceId);
      next();
    });
  };

  return {
    /** The PDF of the view's dashboard, as its shared page draws it in report mode. */
    print(ask: ReportAsk): Promise<Buffer> {
      if (!existsSync(ask.chromiumPath)) {
        throw new ApiError(
          503,
          'report_unavailable',
          'Reports cannot be made on this server: no Chromium at REPORT_CHROMIUM_PATH.',
        );
      }
      const jobs = waiting.get(ask.workspaceId) ?? [];
      if (jobs.length >= waitingPerWorkspace) {
        throw new ApiError(
          503,
          'busy',
          'Several reports of this workspace are being printed right now. Try again in a minute.',
          { retryAfterSeconds: 60 },
        );
      }
      return new Promise<Buffer>((resolve, reject) => {
        jobs.push(() => printOne(ask, budgetMs).then(resolve, reject));
        // A workspace new to the queue takes its turn after those already waiting; one printing rejoins when done.
        if (!waiting.has(ask.workspaceId)) {
          waiting.set(ask.workspaceId, jobs);
          turns.push(ask.workspaceId);
        }
        next();
      });
    },
  };
}
