// Each connector against a local server replaying recorded responses (test/support/replay-server.ts): paging, a 429
// with Retry-After, a malformed item (refused with its reason while the rest land), an empty page, a source that
// times out; and the idempotent upsert (the same post collected twice is one post, updated).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { sql } from 'drizzle-orm';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import {
  fixture,
  mastodonTagRoutes,
  startReplayServer,
  type ReplayServer,
  type Reply,
} from '@test/support/replay-server';
import { executeRun, RetryableRunError, type RunnerDeps } from '@server/scraping/runner';
import type { SourceParamsInput } from '@contract/scraping';

let server: TestServer;
let replay: ReplayServer;
let pool: pg.Pool;
let deps: RunnerDeps;
let staff: { token: string };

beforeAll(async () => {
  replay = await startReplayServer();
  server = await createTestServer({ SCRAPING_ALLOW_PRIVATE_HOSTS: 'true' });
  pool = (server.db as unknown as { $client: pg.Pool }).$client;
  staff = await server.createUser({ isStaff: true });
  deps = {
    pool,
    http: { timeoutMs: 1_000, allowPrivateHosts: true, userAgent: 'test' },
    urls: {
      bluesky: replay.url,
      reddit: replay.url,
      redditAuth: replay.url,
      youtube: replay.url,
      hackernews: replay.url,
      x: replay.url,
    },
    uploadDir: '/nonexistent',
    maxInlineWaitMs: 5_000,
    requeue: () => Promise.reject(new Error('no requeue in these tests')),
  };
});
afterAll(async () => {
  await server.close();
  await replay.close();
});
beforeEach(() => {
  replay.routes.clear();
  replay.requests.length = 0;
});

async function createJob(params: SourceParamsInput): Promise<string> {
  const response = await server.app.inject({
    method: 'POST',
    url: '/api/scraping/jobs',
    headers: { authorization: `Bearer ${staff.token}` },
    payload: { name: `job ${params.source}`, params },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: string }>().id;
}

/** Starts a run of the job as the dispatcher would, and executes it here (no queue). */
async function run(jobId: string, attempt = { retryCount: 0, retryLimit: 0 }) {
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO scrape_runs (job_id, queue_job_id) VALUES ($1, 'test') RETURNING id`,
    [jobId],
  );
  const runId = rows[0]!.id;
  await executeRun(deps, { runId, ...attempt, signal: new AbortController().signal });
  return runId;
}

async function runRow(runId: string) {
  const { rows } = await pool.query('SELECT * FROM scrape_runs WHERE id = $1', [runId]);
  return rows[0] as Record<string, unknown>;
}
const logOf = async (runId: string) =>
  (
    await pool.query<{ message: string }>('SELECT message FROM scrape_logs WHERE run_id = $1 ORDER BY id', [
      runId,
    ])
  ).rows.map((r) => r.message);
const refusalsOf = async (runId: string) =>
  (
    await pool.query<{ ref: string; reason: string }>(
      'SELECT ref, reason FROM scrape_refusals WHERE run_id = $1',
      [runId],
    )
  ).rows;
const postsOf = async (platform: string) =>
  (
    await server.db.execute<{
      external_id: string;
      language: string | null;
      likes: number;
      text: string;
      kind: string;
    }>(
      sql`SELECT external_id, language, likes, text, kind::text FROM posts WHERE platform = ${platform} ORDER BY external_id`,
    )
  ).rows;

describe('Mastodon hashtag timeline', () => {
  it('pages back through the timeline, waits out a 429, refuses the malformed status and stops at the empty page', async () => {
    for (const [path, route] of Object.entries(mastodonTagRoutes(() => replay.url)))
      replay.routes.set(path, route);
    const jobId = await createJob({
      source: 'mastodon_hashtag',
      instance: replay.url,
      hashtag: '#murmur',
      max_pages: 10,
    });
    const started = Date.now();
    const runId = await run(jobId);
    const row = await runRow(runId);
    expect(row).toMatchObject({
      status: 'succeeded',
      pages: 3,
      fetched: 5,
      inserted: 4,
      updated: 0,
      refused: 1,
    });
    // The 429's Retry-After (1 s) was waited out before page 2 was asked again.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(replay.requests.filter((r) => r.includes('max_id=101'))).toHaveLength(2);
    const refused = await refusalsOf(runId);
    expect(refused).toEqual([
      {
        ref: 'https://replay.example/users/ana/statuses/101',
        reason: expect.stringContaining('posted_at: must be an ISO 8601 date-time'),
      },
    ]);
    const log = await logOf(runId);
    expect(log.some((line) => line.includes('answered 429; Retry-After 1 s'))).toBe(true);
    const posts = await postsOf('mastodon');
    expect(posts.map((p) => p.external_id)).toEqual([
      'https://replay.example/users/ana/statuses/100',
      'https://replay.example/users/ana/statuses/103',
      'https://replay.example/users/ben/statuses/99',
      'https://replay.example/users/cleo/statuses/102',
    ]);
    // Languages the source left out are detected; the status's HTML is text.
    expect(posts.find((p) => p.external_id.endsWith('/102'))).toMatchObject({ language: 'fr' });
    expect(posts.find((p) => p.external_id.endsWith('/99'))).toMatchObject({ language: 'de' });
    expect(posts.find((p) => p.external_id.endsWith('/103'))!.text).toBe(
      'Murmur is a lovely tool for listening #murmur',
    );
    expect(posts.find((p) => p.external_id.endsWith('/100'))).toMatchObject({ kind: 'reply' });
    const { rows: profiles } = await pool.query(
      `SELECT handle, followers FROM profiles WHERE platform = 'mastodon' ORDER BY handle`,
    );
    expect(profiles.map((p: { handle: string }) => p.handle)).toEqual([
      `ana@127.0.0.1:${new URL(replay.url).port}`,
      `ben@127.0.0.1:${new URL(replay.url).port}`,
      `cleo@127.0.0.1:${new URL(replay.url).port}`,
    ]);

    // The next run starts after the newest status seen: since_id=103, and nothing is stored twice.
    replay.requests.length = 0;
    replay.routes.set('/api/v1/timelines/tag/murmur', () => ({ body: fixture('mastodon-empty.json') }));
    const second = await run(jobId);
    expect(replay.requests[0]).toContain('since_id=103');
    expect(await runRow(second)).toMatchObject({ status: 'succeeded', pages: 1, fetched: 0 });
    expect(await postsOf('mastodon')).toHaveLength(4);
  });

  it('collects the same post twice as one post, updated', async () => {
    const page = JSON.parse(fixture('mastodon-tag-page1.json')) as Array<Record<string, unknown>>;
    const one = page.slice(0, 1);
    replay.routes.set('/api/v1/timelines/tag/again', () => ({ body: JSON.stringify(one) }));
    const jobId = await createJob({ source: 'mastodon_hashtag', instance: replay.url, hashtag: 'again' });
    const first = await run(jobId);
    expect(await runRow(first)).toMatchObject({ inserted: 0, updated: 0, unchanged: 1 });
    // It is already there from the first test; now its counts change at the source.
    await pool.query(`UPDATE scrape_jobs SET cursor = NULL WHERE id = $1`, [jobId]);
    one[0] = { ...one[0], favourites_count: 99 };
    const second = await run(jobId);
    expect(await runRow(second)).toMatchObject({ inserted: 0, updated: 1, refused: 0 });
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n, max(likes) AS likes FROM posts WHERE external_id = $1`,
      [one[0]!.uri],
    );
    expect(rows[0]).toEqual({ n: 1, likes: 99 });
  });

  it("collects an account's public statuses after looking the account up", async () => {
    replay.routes.set('/api/v1/accounts/lookup', (url) =>
      url.searchParams.get('acct') === 'ana'
        ? { body: fixture('mastodon-lookup.json') }
        : { status: 404, body: '{}' },
    );
    replay.routes.set('/api/v1/accounts/4242/statuses', (url) =>
      url.searchParams.get('max_id')
        ? { body: '[]' }
        : {
            body: fixture('mastodon-account-page1.json'),
            headers: { link: `<${replay.url}/api/v1/accounts/4242/statuses?max_id=202>; rel="next"` },
          },
    );
    const jobId = await createJob({ source: 'mastodon_account', instance: replay.url, account: '@ana' });
    const runId = await run(jobId);
    expect(await runRow(runId)).toMatchObject({ status: 'succeeded', pages: 2, fetched: 2, inserted: 2 });
    expect(replay.requests.some((r) => r.includes('exclude_reblogs=true'))).toBe(true);
  });

  it('fails a run whose source does not answer in time, after its retries, with the reason in the log', async () => {
    replay.routes.set('/api/v1/timelines/tag/slow', () => ({ hang: true }));
    const jobId = await createJob({ source: 'mastodon_hashtag', instance: replay.url, hashtag: 'slow' });
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO scrape_runs (job_id, queue_job_id) VALUES ($1, 'test') RETURNING id`,
      [jobId],
    );
    const runId = rows[0]!.id;
    const attempt = { runId, retryLimit: 1, signal: new AbortController().signal };
    // The first attempt is retried by the queue (with backoff): the runner says so and leaves the run waiting.
    await expect(executeRun(deps, { ...attempt, retryCount: 0 })).rejects.toBeInstanceOf(RetryableRunError);
    expect(await runRow(runId)).toMatchObject({ status: 'waiting', attempts: 1 });
    // The last attempt fails the run.
    await executeRun(deps, { ...attempt, retryCount: 1 });
    expect(await runRow(runId)).toMatchObject({
      status: 'failed',
      attempts: 2,
      error: expect.stringContaining('no answer within 1 s'),
    });
    const log = await logOf(runId);
    expect(log.some((l) => l.startsWith('Attempt 1 failed') && l.includes('Retrying with backoff'))).toBe(
      true,
    );
    const { rows: job } = await pool.query('SELECT next_run_at FROM scrape_jobs WHERE id = $1', [jobId]);
    expect(job[0].next_run_at).toBeNull();
  });

  it('refuses URLs that are not http(s) (the SSRF guard itself: scraping-ssrf.test.ts)', async () => {
    const bad = await server.app.inject({
      method: 'POST',
      url: '/api/scraping/jobs',
      headers: { authorization: `Bearer ${staff.token}` },
      payload: { name: 'x', params: { source: 'feed', url: 'file:///etc/passwd' } },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('http or https');
  });
});

describe('Bluesky post search', () => {
  it('pages with the AppView cursor, waits out a 429, refuses the post without text, stops at the empty page', async () => {
    let page2 = 0;
    replay.routes.set('/xrpc/app.bsky.feed.searchPosts', (url) => {
      if (url.searchParams.get('q') !== 'murmur' || url.searchParams.get('sort') !== 'latest') {
        return { status: 400, body: '{}' };
      }
      const cursor = url.searchParams.get('cursor');
      if (!cursor) return { body: fixture('bluesky-page1.json') };
      if (cursor === 'page-2') {
        page2++;
        return page2 === 1
          ? { status: 429, headers: { 'retry-after': '1' }, body: '{"error":"RateLimitExceeded"}' }
          : { body: fixture('bluesky-page2.json') };
      }
      return { body: fixture('bluesky-page3.json') };
    });
    const jobId = await createJob({ source: 'bluesky_search', query: 'murmur' });
    const runId = await run(jobId);
    expect(await runRow(runId)).toMatchObject({
      status: 'succeeded',
      pages: 3,
      fetched: 4,
      inserted: 3,
      refused: 1,
    });
    expect(await refusalsOf(runId)).toEqual([
      { ref: 'at://did:plc:fay/app.bsky.feed.post/3k3', reason: expect.stringContaining('text: required') },
    ]);
    const posts = await postsOf('bluesky');
    expect(posts).toHaveLength(3);
    // No langs on the record: the script says Japanese.
    expect(posts.find((p) => p.external_id.endsWith('3k4'))).toMatchObject({ language: 'ja', kind: 'reply' });
    const { rows: media } = await pool.query(`SELECT media::text FROM posts WHERE external_id LIKE '%3k2'`);
    expect(media[0].media).toBe('image');
    // The next run asks only for what was indexed since the newest post seen.
    replay.requests.length = 0;
    await run(jobId);
    expect(replay.requests[0]).toContain(`since=${encodeURIComponent('2025-05-03T12:00:00.000Z')}`);
  });
});

describe('RSS and Atom feeds', () => {
  it("follows the feed's rel=next page, waits out a 429, refuses the undated entry; an unchanged feed is one 304", async () => {
    let page2 = 0;
    replay.routes.set('/feed.xml', (url, _count, request): Reply => {
      const xml = { 'content-type': 'application/rss+xml' };
      if (url.searchParams.get('page') === '2') {
        page2++;
        return page2 === 1
          ? { status: 429, headers: { 'retry-after': new Date(Date.now() + 1_000).toUTCString() } }
          : { headers: xml, body: fixture('rss-page2.xml') };
      }
      if (request.headers['if-none-match'] === '"v1"') return { status: 304 };
      return {
        headers: { ...xml, etag: '"v1"' },
        body: fixture('rss-page1.xml').replaceAll('FEED_BASE', replay.url),
      };
    });
    const jobId = await createJob({ source: 'feed', url: `${replay.url}/feed.xml` });
    const runId = await run(jobId);
    expect(await runRow(runId)).toMatchObject({
      status: 'succeeded',
      pages: 2,
      fetched: 3,
      inserted: 2,
      refused: 1,
    });
    expect(await refusalsOf(runId)).toEqual([{ ref: 'post-bad', reason: 'the entry has no date' }]);
    const posts = await postsOf('rss');
    expect(posts.map((p) => p.external_id)).toEqual(['post-2', 'post-3']);
    expect(posts[1]!.text).toBe(
      'New roast & new friends\n\nWe tried a wonderful new roast this week and loved it.',
    );
    const { rows } = await pool.query(`SELECT hashtags, url FROM posts WHERE external_id = 'post-3'`);
    expect(rows[0]).toEqual({ hashtags: ['coffee'], url: 'https://blog.replay.example/posts/new-roast' });
    // The second run sends the ETag and gets a 304: an empty page, nothing else asked.
    replay.requests.length = 0;
    const second = await run(jobId);
    expect(replay.requests).toEqual(['/feed.xml']);
    expect(await runRow(second)).toMatchObject({ status: 'succeeded', pages: 1, fetched: 0 });
  });

  it('reads an Atom feed', async () => {
    replay.routes.set('/atom.xml', () => ({
      headers: { 'content-type': 'application/atom+xml' },
      body: fixture('atom.xml'),
    }));
    const jobId = await createJob({ source: 'feed', url: `${replay.url}/atom.xml` });
    const runId = await run(jobId);
    expect(await runRow(runId)).toMatchObject({ status: 'succeeded', inserted: 1, refused: 0 });
    const { rows } = await pool.query(
      `SELECT text, language, posted_at FROM posts WHERE external_id = 'urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a'`,
    );
    expect(rows[0]).toMatchObject({
      text: 'Atom entry one\n\nA short summary of a happy event.',
      language: 'en',
    });
  });

  it('fails at once, without retrying, when the answer is not a feed', async () => {
    replay.routes.set('/not-a-feed', () => ({
      headers: { 'content-type': 'text/html' },
      body: '<html><body>hi</body></html>',
    }));
    const jobId = await createJob({ source: 'feed', url: `${replay.url}/not-a-feed` });
    const runId = await run(jobId, { retryCount: 0, retryLimit: 5 });
    expect(await runRow(runId)).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('not an RSS or Atom feed'),
    });
  });
});
