// A dashboard as a PDF report (docs/sharing.md): the view is given a share link of a few minutes (purpose 'report',
// never listed), the server's own Chromium (REPORT_CHROMIUM_PATH, through playwright-core) opens that link's page in
// report mode — every chart drawn with its table beside it, the "what is counted" sentences open, the time it was
// made — and prints it; the link is deleted once printed. One report is printed at a time (each is a Chromium
// process); more than REPORT_QUEUE waiting are refused with 503 busy.
import { existsSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import { chromium } from 'playwright-core';
import type { Dashboard } from '@contract/insights-dashboards';
import type { SharedView } from '@contract/share-links';
import type { Db } from '@server/db/database';
import { shareLinks } from '@server/db/social-schema';
import { ApiError } from '@server/errors';
import { hashShareToken, newShareToken } from './links';

/** How long a report's link lives: the printing takes seconds. */
const REPORT_LINK_MS = 3 * 60_000;
/** Reports waiting for the printer at most; more are refused. */
const REPORT_QUEUE = 4;
/** The longest a report's page may take to draw. */
const DRAW_TIMEOUT_MS = 45_000;

let queue: Promise<unknown> = Promise.resolve();
let waiting = 0;

/** `job` after the reports before it, one at a time; 503 busy when too many wait. */
function oneAtATime<T>(job: () => Promise<T>): Promise<T> {
  if (waiting >= REPORT_QUEUE) {
    throw new ApiError(503, 'busy', 'Several reports are being printed right now. Try again in a minute.');
  }
  waiting += 1;
  const run = queue.then(job, job).finally(() => {
    waiting -= 1;
  });
  queue = run.catch(() => {});
  return run;
}

export interface ReportAsk {
  db: Db;
  /** Where this server answers (its own address), for Chromium to open the report's page. */
  origin: string;
  chromiumPath: string;
  workspaceId: string;
  userId: string | undefined;
  dashboard: Dashboard;
  view: SharedView;
}

/** The PDF of the view's dashboard, as its shared page draws it in report mode. */
export async function printReport(ask: ReportAsk): Promise<Buffer> {
  if (!existsSync(ask.chromiumPath)) {
    throw new ApiError(
      503,
      'report_unavailable',
      'Reports cannot be made on this server: no Chromium at REPORT_CHROMIUM_PATH.',
    );
  }
  return oneAtATime(async () => {
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
    const browser = await chromium.launch({
      executablePath: ask.chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1100, height: 1400 } });
      await page.goto(`${ask.origin}/shared#token=${token}&report=1`);
      // The page marks the document when it has drawn the report, or failed to.
      await page.waitForSelector('html[data-report]', { state: 'attached', timeout: DRAW_TIMEOUT_MS });
      if ((await page.locator('html').getAttribute('data-report')) !== 'ready') {
        const reason = await page
          .locator('[role="alert"]')
          .first()
          .innerText()
          .catch(() => '');
        throw new ApiError(503, 'report_failed', reason || 'The report could not be drawn.');
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
    } finally {
      await browser.close();
      await ask.db.delete(shareLinks).where(eq(shareLinks.id, link!.id));
    }
  });
}
