// The scraping area end to end against the REAL server with its collector running (issue 19): Sam (staff) creates a
// job against a local replay of a Mastodon hashtag timeline (two pages, one malformed status, a 429 before page 2),
// watches it run to completion on the list (status and progress read again while he looks), opens the run and reads
// its log and the refused status; he uploads a small NDJSON file and sees it land in the corpus totals as its row
// turns Done (read again when a run finishes, not on a timer). Ana (not
// staff) is refused the screen in her browser and gets 403 from the API. axe-core finds no violation on the screen.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { demoUserIds } from '@server/seed';
import { launchBrowser, newTestPage, type TestPage } from '@test/support/browser';
import { axeViolations } from '@test/support/axe';
import { waitForHeading } from '@test/support/browser-harness';
import { startRealServer, type RealServer } from '@test/support/real-server';
import { mastodonTagRoutes, startReplayServer, type ReplayServer } from '@test/support/replay-server';
import { signInThroughProvider } from '@test/support/dev-sign-in';

const PORT = Number(process.env.MURMUR_REAL_E2E_PORT ?? 4781);

let server: RealServer;
let browser: Browser;
let replay: ReplayServer;
const pages: TestPage[] = [];

beforeAll(async () => {
  let replayUrl = '';
  // Each page takes a little while, so the list can be seen between "Running" and "Done".
  const routes = mastodonTagRoutes(() => replayUrl);
  const timeline = routes['/api/v1/timelines/tag/murmur']!;
  [server, browser, replay] = await Promise.all([
    startRealServer(PORT, { collector: true }),
    launchBrowser(),
    startReplayServer({
      '/api/v1/timelines/tag/murmur': (url, count, request) => ({
        ...timeline(url, count, request),
        delayMs: 700,
      }),
    }),
  ]);
  replayUrl = replay.url;
});
afterAll(async () => {
  await Promise.allSettled(pages.map((current) => current.context.close()));
  await Promise.allSettled([browser?.close(), server?.close(), replay?.close()]);
});

async function signIn(who: RegExp): Promise<Page> {
  const current = await newTestPage(browser, server.origin);
  pages.push(current);
  const { page } = current;
  await signInThroughProvider(page, who, (url) => /^\/(workspace|scraping)/.test(url.pathname));
  return page;
}

const jobRow = (page: Page, name: string) =>
  page
    .locator('.scraping-table tbody tr')
    .filter({ has: page.getByRole('button', { name: `${name}: runs and log` }) });

describe('Scraping (real server)', () => {
  let sam: Page;

  it('staff create a job against a source, watch it run on the list, and read its log and refused item', async () => {
    sam = await signIn(/Sam/);
    await sam.goto('/scraping');
    await waitForHeading(sam, 'Scraping');
    await sam.getByRole('heading', { name: 'No scraping jobs' }).waitFor();
    expect(await axeViolations(sam)).toEqual([]);

    // The form checks each source's parameters before sending; focus goes to the first invalid field.
    await sam.getByRole('button', { name: 'New job' }).click();
    const form = sam.getByRole('form', { name: 'New collection job' });
    await expect.poll(() => sam.evaluate(() => document.activeElement?.id)).toBe('job-name');
    await form.getByLabel('Hashtag').fill('two words');
    await form.getByRole('button', { name: 'Create and run' }).click();
    await form.getByText('Give the job a name').waitFor();
    await form.getByText('Letters, digits and underscores only (no spaces)').waitFor();
    expect(await form.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => sam.evaluate(() => document.activeElement?.id)).toBe('job-name');
    expect(await axeViolations(sam)).toEqual([]);

    await form.getByLabel('Name').fill('Murmur on the replay');
    await form.getByLabel('Instance').fill(replay.url);
    await form.getByLabel('Hashtag').fill('murmur');
    await form.getByRole('button', { name: 'Create and run' }).click();
    await form.waitFor({ state: 'detached' });

    // Live: the list shows the run under way, then done with the counts the API reports.
    const row = jobRow(sam, 'Murmur on the replay');
    await row.getByRole('cell', { name: /^(Queued|Running|Waiting \(rate limit or retry\))$/ }).waitFor();
    await row.getByRole('cell', { name: 'Done' }).waitFor({ timeout: 30_000 });
    await row.getByText('3 pages · 5 fetched · 4 new · 0 updated · 1 refused').waitFor();
    const token = await server.tokenFor((await demoUserIds(server.db)).get('sam@murmur.local')!);
    const listed = await server.app.inject({
      url: '/api/scraping/jobs',
      headers: { authorization: `Bearer ${token}` },
    });
    const [job] = listed.json<{
      jobs: Array<{ name: string; last_run: { status: string; inserted: number } }>;
    }>().jobs;
    expect(job).toMatchObject({
      name: 'Murmur on the replay',
      last_run: { status: 'succeeded', inserted: 4 },
    });

    // The run: its log (the 429 waited out) and the malformed status refused with its reason.
    await row.getByRole('button', { name: 'Murmur on the replay: runs and log' }).click();
    await sam.getByRole('heading', { name: 'Murmur on the replay: runs' }).waitFor();
    const log = sam.getByRole('list', { name: 'Run log' });
    await log.getByText(/answered 429; Retry-After 1 s/).waitFor();
    await log.getByText(/Done after 3 pages/).waitFor();
    const refused = sam.getByRole('table', { name: 'Refused items' });
    await refused.getByRole('cell', { name: 'https://replay.example/users/ana/statuses/101' }).waitFor();
    await refused.getByRole('cell', { name: /posted_at: must be an ISO 8601 date-time/ }).waitFor();
    expect(await axeViolations(sam)).toEqual([]);
  });

  it('staff upload an NDJSON file and see it land in the corpus', async () => {
    const rows = [
      ...Array.from({ length: 30 }, (_, i) =>
        JSON.stringify({
          platform: 'rss',
          external_id: `upload-${i}`,
          author_external_id: 'feed-1',
          author_handle: 'roastery_news',
          text: `Roastery news number ${i}: a new single origin arrives`,
          posted_at: new Date(Date.now() - 3_600_000).toISOString(),
        }),
      ),
      '{"platform":"rss","external_id":"broken"}',
    ];
    const file = path.join(server.dataDir, 'roastery.ndjson');
    writeFileSync(file, rows.join('\n'));
    // The screen's reads of the job list and of the corpus totals, in the order they are answered.
    const reads: Array<'jobs' | 'totals'> = [];
    sam.on('response', (response) => {
      const { pathname } = new URL(response.url());
      if (pathname === '/api/scraping/jobs') reads.push('jobs');
      if (pathname === '/api/scraping/totals') reads.push('totals');
    });
    await sam.getByLabel('Corpus file', { exact: true }).setInputFiles(file);
    await sam.getByText('“roastery.ndjson” was uploaded; its import is in the jobs below.').waitFor();
    const row = jobRow(sam, 'roastery.ndjson');
    await row.getByRole('cell', { name: 'Done' }).waitFor({ timeout: 30_000 });
    await row.getByText('31 rows · 30 new · 0 updated · 1 refused').waitFor();
    // The totals are read again as the row turns Done: RSS & Atom has the 30 posts on their UTC day and in all.
    const totals = sam.locator('.scraping-totals');
    const day = new Date(Date.now() - 3_600_000).toISOString().slice(0, 10);
    const column = await totals
      .locator('thead th')
      .evaluateAll(
        (cells, wanted) =>
          cells.findIndex((cell) => cell.querySelector('time')?.getAttribute('datetime') === wanted),
        day,
      );
    expect(column).toBeGreaterThan(0);
    const rss = totals.getByRole('row', { name: /^RSS & Atom/ });
    await expect.poll(() => rss.locator('td').last().innerText()).toBe('30');
    expect(
      await rss
        .locator('td')
        .nth(column - 1)
        .innerText(),
    ).toBe('30');
    // Nothing is running: the list is read every few seconds, the totals not again until a run finishes.
    const totalsRead = reads.filter((read) => read === 'totals').length;
    const jobsRead = reads.filter((read) => read === 'jobs').length;
    await expect
      .poll(() => reads.filter((read) => read === 'jobs').length, { timeout: 20_000 })
      .toBeGreaterThan(jobsRead + 2);
    expect(reads.filter((read) => read === 'totals').length).toBe(totalsRead);
    expect(await axeViolations(sam)).toEqual([]);
  });

  it('refuses the screen and the API to a member who is not staff', async () => {
    const ana = await signIn(/Ana/);
    await ana.goto('/scraping');
    await ana.waitForURL((url) => url.pathname.startsWith('/workspace/demo'));
    await ana.getByText(/staff/i).first().waitFor();
    expect(await ana.getByRole('heading', { name: 'Scraping', exact: true }).count()).toBe(0);
    const status = await ana.evaluate(async (origin) => {
      const { access_token } = JSON.parse(localStorage.getItem('auth_tokens')!) as { access_token: string };
      const response = await fetch(`${origin}/api/scraping/jobs`, {
        headers: { authorization: `Bearer ${access_token}` },
      });
      return { status: response.status, body: (await response.json()) as { error?: string } };
    }, server.origin);
    expect(status).toEqual({ status: 403, body: expect.objectContaining({ error: 'staff_only' }) });
  });
});
