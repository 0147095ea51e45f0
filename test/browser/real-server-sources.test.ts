// A source with credentials end to end against the REAL server with its collector running (issue 32): Sam (staff)
// adds Reddit credentials on the scraping screen (the fields never shown again), tests the connection against a local
// stand-in of Reddit's API (test/support/reddit-replay.ts) and reads the answer in words, creates a subreddit job with
// those credentials, watches it run to Done with the counts the API reports; the posts and their comments are then in
// Ana's posts dashboard, as many as the API counts, and in Sam's once the team adds him to its workspace. Ana (not
// staff) is refused the credentials API. axe-core finds no violation on the screen.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { PostsResponse } from '@contract/insights-responses';
import { youtubeUnitsPerRun } from '@contract/scraping';
import { memberships } from '@server/db/schema';
import { demoUserIds } from '@server/seed';
import { cspViolations, launchBrowser, newTestPage, type TestPage } from '@test/support/browser';
import { axeViolations } from '@test/support/axe';
import { waitForHeading } from '@test/support/browser-harness';
import { asAna, startRealServer, type RealServer } from '@test/support/real-server';
import { startReplayServer, type ReplayServer } from '@test/support/replay-server';
import { redditComments, redditPosts, redditReplay } from '@test/support/reddit-replay';
import { signInThroughProvider, signInToDemo } from '@test/support/dev-sign-in';

const PORT = Number(process.env.MURMUR_REAL_E2E_PORT ?? 4781);

let server: RealServer;
let browser: Browser;
let replay: ReplayServer;
const pages: TestPage[] = [];

// Twelve posts of the last hours in r/coffee, every fourth with two comments.
const posts = redditPosts(12, {
  newest: Math.floor(Date.now() / 1000) - 3_600,
  commentsEvery: 4,
  subreddit: 'coffee',
});
const source = redditReplay(posts, redditComments(posts), {
  credentials: { client_id: 'e2e-client-id', client_secret: 'e2e-client-secret-value' },
});

beforeAll(async () => {
  [replay, browser] = await Promise.all([startReplayServer(source.routes), launchBrowser()]);
  server = await startRealServer(PORT, {
    collector: true,
    env: { SCRAPING_REDDIT_URL: replay.url, SCRAPING_REDDIT_AUTH_URL: replay.url },
  });
});
afterAll(async () => {
  await Promise.allSettled(pages.map((current) => current.context.close()));
  await Promise.allSettled([browser?.close(), server?.close(), replay?.close()]);
});

async function signInSam(): Promise<Page> {
  const current = await newTestPage(browser, server.origin);
  pages.push(current);
  await signInThroughProvider(current.page, /Sam/, (url) => /^\/(workspace|scraping)/.test(url.pathname));
  return current.page;
}

describe('Sources with credentials (real server)', () => {
  it('staff add Reddit credentials, test them, collect a subreddit, and the posts are in a dashboard', async () => {
    const sam = await signInSam();
    await sam.goto('/scraping');
    await waitForHeading(sam, 'Scraping');
    const panel = sam.getByRole('region', { name: 'Credentials' });
    await panel.getByText('No credentials yet.').waitFor();

    await panel.getByRole('button', { name: 'Add credentials' }).click();
    const form = sam.getByRole('form', { name: 'New credentials' });
    await form.getByLabel('Source').selectOption('reddit');
    await form.getByLabel('Name', { exact: true }).fill('Murmur Reddit app');
    await form.getByLabel('Client id').fill('e2e-client-id');
    await form.getByLabel('Client secret').fill('e2e-client-secret-value');
    expect(await form.getByLabel('Client secret').getAttribute('type')).toBe('password');
    await form.getByRole('button', { name: 'Save credentials' }).click();
    await form.waitFor({ state: 'detached' });
    const row = panel.getByRole('row', { name: /Murmur Reddit app/ });
    await row.getByText('Not tested yet').waitFor();
    // The page never holds the secret again.
    expect(await sam.content()).not.toContain('e2e-client-secret-value');

    await row.getByRole('button', { name: 'Test connection: Murmur Reddit app' }).click();
    await row
      .getByText(/✓ Reddit accepted the client id and secret; \d+ requests left in this window/)
      .waitFor();
    expect(await axeViolations(sam)).toEqual([]);

    // A job on r/coffee with those credentials, comments one level deep.
    await sam.getByRole('button', { name: 'New job' }).click();
    const jobForm = sam.getByRole('form', { name: 'New collection job' });
    await jobForm.getByLabel('Source').selectOption('reddit_subreddit');
    await jobForm.getByLabel('Name', { exact: true }).fill('r/coffee');
    await jobForm.getByLabel('Credentials').selectOption({ label: 'Murmur Reddit app' });
    await jobForm.getByLabel('Subreddit', { exact: true }).fill('coffee');
    await jobForm.getByLabel('Comment depth').fill('1');
    await jobForm.getByRole('button', { name: 'Create and run' }).click();
    await jobForm.waitFor({ state: 'detached' });
    const jobRow = sam
      .locator('.scraping-jobs tbody tr')
      .filter({ has: sam.getByRole('button', { name: 'r/coffee: runs and log' }) });
    await jobRow.getByRole('cell', { name: 'Done' }).waitFor({ timeout: 30_000 });
    // 12 posts and the first comment (depth 1) under each of the 3 posts with comments.
    await jobRow.getByText('4 pages · 15 fetched · 15 new · 0 updated · 0 refused').waitFor();
    const samId = (await demoUserIds(server.db)).get('sam@murmur.local')!;
    const token = await server.tokenFor(samId);
    const listed = await server.app.inject({
      url: '/api/scraping/jobs',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(listed.json<{ jobs: Array<{ name: string; last_run: unknown }> }>().jobs[0]).toMatchObject({
      name: 'r/coffee',
      last_run: { status: 'succeeded', inserted: 15, pages: 4 },
    });
    expect(await axeViolations(sam)).toEqual([]);

    // Ana's posts dashboard on a saved query of Reddit: the collected posts, as many as the API counts.
    const saved = await asAna(server, 'POST', '/api/workspaces/demo/saved-queries', {
      name: 'Reddit coffee',
      query: 'platform:reddit',
    });
    expect(saved.statusCode, saved.body).toBe(201);
    const queryId = saved.json<{ id: string }>().id;
    const api = (
      await asAna(server, 'POST', '/social/insights/posts', {
        workspace_id: 'demo',
        saved_query_id: queryId,
        filters: { from: new Date(Date.now() - 7 * 86_400_000).toISOString() },
      })
    ).json<PostsResponse>();
    expect(api.total).toBe(15);
    const ana = await signInToDemo(browser, server.origin, pages, 'Ana Owner');
    await ana.goto(`${server.origin}/workspace/demo/insight/posts?query=${queryId}&range=7d`);
    await waitForHeading(ana, 'Posts');
    const cards = ana.locator('article.post-card');
    await cards.first().waitFor();
    await ana.getByText(api.posts[0]!.text.slice(0, 40)).first().waitFor();
    expect(await cards.count()).toBe(Math.min(api.total, api.posts.length));
    await ana.getByText(`1–${api.total} of ${api.total} posts`).waitFor();
    expect(await ana.locator('article.post-card').filter({ hasText: 'Reddit' }).count()).toBe(api.total);
    expect(await cspViolations(ana)).toEqual([]);

    // Sam, once the team adds him to its workspace, sees the same posts in the same dashboard.
    await server.db.insert(memberships).values({ workspaceId: 'demo', userId: samId, privilege: 'viewer' });
    await sam.goto(`${server.origin}/workspace/demo/insight/posts?query=${queryId}&range=7d`);
    await waitForHeading(sam, 'Posts');
    await sam.getByText(`1–${api.total} of ${api.total} posts`).waitFor();
    expect(await sam.locator('article.post-card').filter({ hasText: 'Reddit' }).count()).toBe(api.total);

    // Not staff: no credentials API.
    const refused = await asAna(server, 'GET', '/api/scraping/credentials');
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ error: 'staff_only' });
  });

  it('staff replace credentials’ fields (never shown) and read a YouTube job’s most units before it runs', async () => {
    const samId = (await demoUserIds(server.db)).get('sam@murmur.local')!;
    const headers = { authorization: `Bearer ${await server.tokenFor(samId)}` };
    const post = (payload: object) =>
      server.app.inject({ method: 'POST', url: '/api/scraping/credentials', headers, payload });
    const stale = await post({
      kind: 'reddit',
      name: 'Rotated Reddit app',
      secret: { client_id: 'e2e-client-id', client_secret: 'an-old-secret-Reddit-refuses' },
    });
    expect(stale.statusCode, stale.body).toBe(201);
    const youtube = await post({
      kind: 'youtube',
      name: 'Murmur YouTube key',
      secret: { api_key: 'AIza-e2e-youtube-key' },
      daily_quota: 2_000,
    });
    expect(youtube.statusCode, youtube.body).toBe(201);

    const sam = await signInSam();
    await sam.goto('/scraping');
    await waitForHeading(sam, 'Scraping');
    const panel = sam.getByRole('region', { name: 'Credentials' });
    const row = panel.getByRole('row', { name: /Rotated Reddit app/ });
    await row.getByRole('button', { name: 'Test connection: Rotated Reddit app' }).click();
    await row.getByText(/✗ .*Reddit refused/).waitFor();
    await panel
      .getByRole('row', { name: /Murmur YouTube key/ })
      .getByText('0 of 2,000 units')
      .waitFor();

    // "Replace…": every field empty (the old ones are never shown), the source fixed; the new ones take effect.
    await row.getByRole('button', { name: 'Replace the fields of Rotated Reddit app' }).click();
    const form = sam.getByRole('form', { name: 'New fields for “Rotated Reddit app”' });
    expect(await form.getByLabel('Source').isDisabled()).toBe(true);
    expect(await form.getByLabel('Name', { exact: true }).inputValue()).toBe('Rotated Reddit app');
    expect(await form.getByLabel('Client id').inputValue()).toBe('');
    expect(await form.getByLabel('Client secret').inputValue()).toBe('');
    expect(await sam.content()).not.toContain('an-old-secret-Reddit-refuses');
    expect(await axeViolations(sam)).toEqual([]);
    await form.getByLabel('Client id').fill('e2e-client-id');
    await form.getByLabel('Client secret').fill('e2e-client-secret-value');
    await form.getByRole('button', { name: 'Save credentials' }).click();
    await form.waitFor({ state: 'detached' });
    await row.getByRole('button', { name: 'Test connection: Rotated Reddit app' }).click();
    await row.getByText(/✓ Reddit accepted the client id and secret/).waitFor();

    // A YouTube search job's form says the most units a run spends, as the contract counts them.
    await sam.getByRole('button', { name: 'New job' }).click();
    const jobForm = sam.getByRole('form', { name: 'New collection job' });
    await jobForm.getByLabel('Source').selectOption('youtube_search');
    await jobForm.getByLabel('Credentials').selectOption({ label: 'Murmur YouTube key' });
    await jobForm.getByLabel('Search', { exact: true }).fill('espresso');
    await jobForm.getByLabel('Comment pages per video').fill('2');
    await jobForm.getByLabel('Pages per run').fill('3');
    const units = youtubeUnitsPerRun({
      source: 'youtube_search',
      credential_id: youtube.json<{ id: string }>().id,
      query: 'espresso',
      comment_pages: 2,
      max_pages: 3,
    });
    expect(units).toBe(3 * (100 + 1 + 50 * 2));
    await jobForm
      .getByRole('status')
      .getByText(`A run spends at most ${units.toLocaleString('en-US')} quota units`, { exact: false })
      .waitFor();
    await jobForm.getByRole('button', { name: 'Close' }).click();
    await jobForm.waitFor({ state: 'detached' });
  });
});
