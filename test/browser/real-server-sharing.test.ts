// Read-only share links end to end against the REAL server: Ana Owner shares the overview of a saved query from the
// dashboard; the link, opened in a fresh browser with no session, shows the view's figures (equal to the API's answer
// for the link) and makes no request but the shared view's own two; the token leaves the address at once; Ana revokes
// the link in Settings › Share links, and the same page then says so and shows no data. The overview as a PDF report,
// printed by the server's Chromium: every chart of the screen and its text (pdftotext), its pages drawn (pdftoppm). A
// weekly digest scheduled on the Alerts page, its outside address confirmed from its consent e-mail, sent by a round at
// the week's end to a development mailbox. Compare shared and printed; a report from the default build of .env.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { demoUserIds } from '@server/seed';
import type { OverviewResponse } from '@contract/insights-responses';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import { cspViolations, launchBrowser, newTestPage, type TestPage } from '@test/support/browser';
import { waitForHeading } from '@test/support/browser-harness';
import { startRealServer, type RealServer } from '@test/support/real-server';
import { signInToDemo } from '@test/support/dev-sign-in';
import { runDigests } from '@server/digests/send';
import { startDevMailbox } from '@server/mail/dev-mailbox';
import { createMailer } from '@server/mail/mailer';
import { loadEnv } from 'vite';

const PORT = Number(process.env.MURMUR_REAL_E2E_PORT ?? 4781);
const ROOT = join(import.meta.dirname, '../..');

let server: RealServer;
let browser: Browser;
const contexts: TestPage[] = [];
let savedQueryId = '';
/** The regatta's posts, hours before the test. */
const POST_HOURS = [3, 8, 20, 30, 50];

beforeAll(async () => {
  [server, browser] = await Promise.all([startRealServer(PORT), launchBrowser()]);
  const [authorId] = await insertProfiles(server.db, [
    { platform: 'x', externalId: 'e2e-sailor', handle: 'sailor', displayName: 'Sailor' },
  ]);
  const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);
  await insertPosts(
    server.db,
    POST_HOURS.map((hours, i) => ({
      authorId: authorId!,
      platform: 'x' as const,
      externalId: `e2e-share-${i}`,
      text: `The lighthouse regatta, day ${i}`,
      postedAt: hoursAgo(hours),
    })),
  );
  const anaId = (await demoUserIds(server.db)).get('ana@murmur.local')!;
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/workspaces/demo/saved-queries',
    headers: { authorization: `Bearer ${await server.tokenFor(anaId)}` },
    payload: { name: 'Regatta', query: 'regatta' },
  });
  savedQueryId = res.json<{ id: string }>().id;
});
afterAll(async () => {
  await Promise.allSettled(contexts.map((current) => current.context.close()));
  await Promise.allSettled([browser?.close(), server?.close()]);
});

describe('Share links (real server)', () => {
  it('opens a shared overview signed out with the API’s figures and nothing else, until it is revoked', async () => {
    const ana = await signInToDemo(browser, server.origin, contexts, 'Ana Owner');
    await ana.goto(`${server.origin}/workspace/demo/insight/overview?query=${savedQueryId}&range=7d`);
    await waitForHeading(ana, 'Overview');
    await ana.getByRole('button', { name: 'Share or export…' }).click();
    const panel = ana.getByRole('region', { name: 'Share or export this view' });
    await panel.getByLabel('Name (optional)').fill('For the sailing club');
    await panel.getByLabel('Expires in').selectOption('7');
    await panel.getByRole('button', { name: 'Make read-only link' }).click();
    const url = await panel.getByRole('textbox', { name: 'Read-only link' }).inputValue();
    expect(url).toMatch(new RegExp(`^${server.origin}/shared#token=[A-Za-z0-9_-]{43}$`));
    const token = url.split('#token=')[1]!;

    // What the link answers, asked as the page will ask it.
    const answer = await server.app.inject({
      method: 'POST',
      url: '/social/shared/answer',
      payload: { token },
    });
    const expected = answer.json<OverviewResponse>();
    expect(expected.totals.mentions.value).toBe(5);

    // A fresh browser, no session: every request it makes is noted.
    const guest = await newTestPage(browser, server.origin);
    contexts.push(guest);
    const asked: string[] = [];
    guest.page.on('request', (request) => {
      const path = new URL(request.url()).pathname;
      if (path.startsWith('/api/') || path.startsWith('/social/')) asked.push(path);
    });
    await guest.page.goto(url);
    await waitForHeading(guest.page, 'Overview: Regatta');
    // The token is out of the address once read.
    expect(guest.page.url()).toBe(`${server.origin}/shared`);
    const tile = (label: string) =>
      guest.page.locator('.tile').filter({ has: guest.page.locator('.tile-label', { hasText: label }) });
    await expect
      .poll(() => tile('Mentions').first().locator('.tile-value').innerText())
      .toBe(String(expected.totals.mentions.value));
    expect(await tile('Unique authors').locator('.tile-value').innerText()).toBe(
      String(expected.totals.unique_authors.value),
    );
    expect(await guest.page.getByText('Shared read-only from Murmur Demo').count()).toBe(1);
    // Read-only: no drill-down buttons, no links into the workspace.
    expect(await guest.page.locator('a[href*="/workspace/"]').count()).toBe(0);
    expect(new Set(asked)).toEqual(new Set(['/social/shared/view', '/social/shared/answer']));
    expect(await guest.page.locator('meta[name="robots"]').getAttribute('content')).toBe('noindex, nofollow');

    // Ana revokes it in Settings › Share links.
    await ana.goto(`${server.origin}/workspace/demo/settings/share-links`);
    await waitForHeading(ana, 'Share links');
    // Listed with the name Ana gave it.
    expect(await ana.getByRole('rowheader').first().innerText()).toMatch(
      /^For the sailing club\s+Overview: Regatta/,
    );
    await ana
      .getByRole('button', { name: 'Revoke the link “For the sailing club” to Overview: Regatta' })
      .click();
    await ana.getByRole('alertdialog').getByRole('button', { name: 'Revoke' }).click();
    await ana.getByRole('cell', { name: 'Revoked' }).waitFor();

    // The same tab again (its token kept for the tab): the link says it was revoked, and shows nothing.
    await guest.page.reload();
    await waitForHeading(guest.page, 'This shared view cannot be shown');
    expect(await guest.page.getByText('This link was revoked.').count()).toBe(1);
    expect(await guest.page.locator('.tile').count()).toBe(0);
    expect(await cspViolations(ana)).toEqual([]);
  });

  it('prints the overview as a PDF report with every chart of the screen and its text', async () => {
    const anaId = (await demoUserIds(server.db)).get('ana@murmur.local')!;
    const to = new Date();
    // 30 days: a chart of 30-odd daily buckets, whose table is its top rows.
    const from = new Date(to.getTime() - 30 * 86_400_000);
    const res = await server.app.inject({
      method: 'POST',
      url: '/social/insights/report',
      headers: { authorization: `Bearer ${await server.tokenFor(anaId)}` },
      payload: {
        workspace_id: 'demo',
        dashboard: 'overview',
        view: { saved_query_id: savedQueryId, filters: { from: from.toISOString(), to: to.toISOString() } },
      },
    });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="murmur-overview-\d{4}-\d{2}-\d{2}\.pdf"$/,
    );
    const dir = mkdtempSync(join(tmpdir(), 'murmur-report-'));
    try {
      const file = join(dir, 'report.pdf');
      writeFileSync(file, res.rawPayload);
      expect(readFileSync(file).subarray(0, 5).toString()).toBe('%PDF-');
      const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
      for (const expected of [
        'Overview: Regatta',
        'Query: regatta',
        'Report made',
        'Mentions over time',
        'Sentiment',
        'Platforms',
        'Top posts',
        'Top people',
        'What is counted',
        'Posts matching the saved query "Regatta"',
        'The lighthouse regatta',
      ])
        expect(text, expected).toContain(expected);
      // Every chart of the screen has its table in the report: the buckets' rows are there as text; a chart of
      // more than 10 rows has its top 10 in its table, not all of them.
      expect(text).toMatch(/Mentions\s+Engagement|Bucket|Day/);
      expect(text).toMatch(/The 10 rows of 3\d with the most mentions; the chart shows all 3\d\./);
      // Page 1 is not left half blank: the first chart starts there, under the figures.
      const first = execFileSync('pdftotext', ['-layout', '-f', '1', '-l', '1', file, '-'], {
        encoding: 'utf8',
      });
      expect(first).toContain('Mentions over time');
      execFileSync('pdftoppm', ['-png', '-r', '50', '-f', '1', '-l', '1', file, join(dir, 'page')]);
      const page = join(dir, 'page-1.png');
      expect(statSync(page).size).toBeGreaterThan(10_000);
      // To look at it: MURMUR_KEEP_REPORT=<file.pdf>.
      if (process.env.MURMUR_KEEP_REPORT) writeFileSync(process.env.MURMUR_KEEP_REPORT, readFileSync(file));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // The report's few minutes' link is gone, and was never listed.
    const { rows } = await server.db.execute<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM share_links WHERE purpose = 'report'`,
    );
    expect(rows[0]!.n).toBe(0);
  });

  it('shares Compare from its page, read-only and as a PDF report', async () => {
    const anaId = (await demoUserIds(server.db)).get('ana@murmur.local')!;
    const lighthouse = await server.app.inject({
      method: 'POST',
      url: '/api/workspaces/demo/saved-queries',
      headers: { authorization: `Bearer ${await server.tokenFor(anaId)}` },
      payload: { name: 'Lighthouse', query: 'lighthouse' },
    });
    const lighthouseId = lighthouse.json<{ id: string }>().id;
    const ana = await signInToDemo(browser, server.origin, contexts, 'Ana Owner');
    await ana.goto(
      `${server.origin}/workspace/demo/insight/compare?compare=${savedQueryId},${lighthouseId}&range=7d`,
    );
    await waitForHeading(ana, 'Compare');
    await ana.getByRole('button', { name: 'Share or export…' }).click();
    const panel = ana.getByRole('region', { name: 'Share or export this view' });
    await panel.getByRole('button', { name: 'Make read-only link' }).click();
    const url = await panel.getByRole('textbox', { name: 'Read-only link' }).inputValue();
    const token = url.split('#token=')[1]!;

    const guest = await newTestPage(browser, server.origin);
    contexts.push(guest);
    await guest.page.goto(url);
    await waitForHeading(guest.page, 'Compare: Regatta vs Lighthouse');
    await guest.page.getByRole('heading', { name: 'Share of voice over time' }).waitFor();
    expect(await guest.page.getByRole('heading', { name: 'Top authors: Lighthouse' }).count()).toBe(1);
    // Read-only: the authors are names, not drill-downs.
    expect(await guest.page.locator('.compare-authors button').count()).toBe(0);

    // The same view as a PDF report.
    const link = await server.db.execute<{ view: object }>(
      sql`SELECT view FROM share_links WHERE dashboard = 'compare' ORDER BY created_at DESC LIMIT 1`,
    );
    const res = await server.app.inject({
      method: 'POST',
      url: '/social/insights/report',
      headers: { authorization: `Bearer ${await server.tokenFor(anaId)}` },
      payload: { workspace_id: 'demo', dashboard: 'compare', view: link.rows[0]!.view },
    });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const dir = mkdtempSync(join(tmpdir(), 'murmur-report-'));
    try {
      const file = join(dir, 'compare.pdf');
      writeFileSync(file, res.rawPayload);
      const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
      for (const expected of [
        'Compare: Regatta vs Lighthouse',
        'Share of voice over time',
        'Mentions against the previous period',
        'Top authors: Regatta',
        'Overlap',
      ])
        expect(text, expected).toContain(expected);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('schedules a weekly digest on the Alerts page, which a round at the week’s end e-mails once', async () => {
    const ana = await signInToDemo(browser, server.origin, contexts, 'Ana Owner');
    await ana.goto(`${server.origin}/workspace/demo/alerts`);
    await waitForHeading(ana, 'Alerts');
    await ana.getByRole('button', { name: 'New digest' }).click();
    const form = ana.getByRole('form', { name: 'New digest' });
    await form.getByLabel('Saved query').selectOption({ label: 'Regatta' });
    await form.getByLabel('Week (Monday to Sunday)').check();
    await form.getByLabel(/^Ana Owner/).check();
    await form.getByLabel('Other e-mail addresses').fill('skipper@example.com');
    await form.getByRole('button', { name: 'Schedule digest' }).click();
    const listed = ana.locator('.digest-list li').filter({ hasText: 'Weekly: Regatta' });
    await listed.waitFor();
    expect(await listed.innerText()).toContain('not sent yet');
    if (process.env.MURMUR_KEEP_SCREENS)
      await ana.screenshot({ path: `${process.env.MURMUR_KEEP_SCREENS}/digests.png` });

    // The round after this week ends (Monday 00:00 UTC, the demo's zone): one e-mail to each, then none.
    const mailbox = await startDevMailbox({ port: 0 });
    const mailer = createMailer({ SMTP_URL: mailbox.url, MAIL_FROM: 'Murmur <digests@murmur.test>' });
    try {
      const today = new Date();
      const monday = Date.UTC(
        today.getUTCFullYear(),
        today.getUTCMonth(),
        today.getUTCDate() + ((8 - today.getUTCDay()) % 7 || 7),
      );
      const after = () => new Date(monday + 3_600_000);
      const deps = {
        db: server.db,
        analytics: server.app.deps.analytics,
        mailer,
        appUrl: server.origin,
        unsubscribeKey: server.app.keys.digestUnsubscribe,
        now: after,
      };
      // Before the week ends, a round asks the outside address's consent (one e-mail) and sends no digest; the
      // skipper follows the link.
      expect((await runDigests({ ...deps, now: () => new Date() })).sent).toBe(0);
      const asked = mailbox.messages();
      expect(asked.map((m) => [m.to, m.subject])).toEqual([
        ['skipper@example.com', 'Confirm that you want a Murmur digest'],
      ]);
      const confirmLink = /Nothing will be sent to you unless you confirm: (\S+)/.exec(asked[0]!.text)![1]!;
      const confirming = await newTestPage(browser, server.origin);
      contexts.push(confirming);
      await confirming.page.goto(confirmLink);
      await confirming.page
        .getByText('Confirmed: skipper@example.com will receive the digests of Murmur Demo.', {
          exact: false,
        })
        .waitFor();

      expect((await runDigests(deps)).sent).toBe(1);
      expect((await runDigests(deps)).sent).toBe(0);
      const messages = mailbox.messages().filter((m) => m.subject.startsWith('Weekly digest'));
      expect(messages.map((m) => m.to).sort()).toEqual(['ana@murmur.local', 'skipper@example.com']);
      expect(messages[0]!.subject).toMatch(
        /^Weekly digest of "Regatta": \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}$/,
      );
      // The regatta's posts of this week (beforeAll: 3, 8, 20, 30 and 50 hours before the test).
      const thisWeek = POST_HOURS.filter((h) => Date.now() - h * 3_600_000 >= monday - 7 * 86_400_000).length;
      expect(messages[0]!.text).toContain(`Mentions: ${thisWeek} (`);
      // The skipper's own unsubscribe link, opened: off the digest.
      const toSkipper = messages.find((m) => m.to === 'skipper@example.com')!;
      const unsubscribe = /To stop receiving this digest: (\S+)/.exec(toSkipper.text)![1]!;
      const guest = await newTestPage(browser, server.origin);
      contexts.push(guest);
      await guest.page.goto(unsubscribe);
      await guest.page
        .getByText('You will no longer receive the weekly digest of “Regatta” from Murmur Demo.')
        .waitFor();
      expect(guest.page.url()).toBe(`${server.origin}/unsubscribe`);
    } finally {
      await mailer.close();
      await mailbox.stop();
    }
    await ana.reload();
    await listed.waitFor();
    expect(await listed.innerText()).toContain('last sent for the week of');
    expect(await listed.innerText()).not.toContain('skipper@example.com');
  });
});

describe('PDF reports of the default build (real server)', () => {
  it('prints with the SPA built from .env, which calls http://localhost:8787 whatever address the server has', async () => {
    // The build `npm start` makes from .env (its API bases on localhost:8787), served by a server on 127.0.0.1 on
    // another port: the report's page must still call the server it was built for, and be answered.
    const env = loadEnv('production', ROOT, 'VITE_');
    const built = await startRealServer(PORT + 1, { spa: { dir: 'dist-e2e-default', env } });
    try {
      expect(new URL(env.VITE_SOCIAL_API_BASE_URL!).origin).not.toBe(built.origin);
      const anaId = (await demoUserIds(built.db)).get('ana@murmur.local')!;
      const to = new Date();
      const res = await built.app.inject({
        method: 'POST',
        url: '/social/insights/report',
        headers: { authorization: `Bearer ${await built.tokenFor(anaId)}` },
        payload: {
          workspace_id: 'demo',
          dashboard: 'overview',
          view: {
            query: 'murmur',
            filters: { from: new Date(to.getTime() - 7 * 86_400_000).toISOString(), to: to.toISOString() },
          },
        },
      });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      const dir = mkdtempSync(join(tmpdir(), 'murmur-report-'));
      try {
        const file = join(dir, 'report.pdf');
        writeFileSync(file, res.rawPayload);
        const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
        expect(text).toContain('Overview: murmur');
        expect(text).toContain('Mentions over time');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    } finally {
      await built.close();
    }
  });
});
