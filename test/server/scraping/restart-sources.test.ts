// The worker killed (SIGKILL) in the middle of a Hacker News, a Reddit, a YouTube and an X job at once: another worker,
// started after, resumes each run from the cursor its last committed page wrote. Nothing is lost (every post of each
// source lands) and nothing is doubled (each once). The workers are real processes (`npm run worker`'s
// server/worker.ts) with the sources' URLs pointed at local stand-ins of their APIs, on a fresh database, with the
// credentials sealed under the SECRETS_KEY the workers are given.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connect } from '@server/db/database';
import { keyIdOf, seal } from '@server/scraping/credentials';
import { sourceUrlsAt, startReplayServer, type ReplayServer } from '@test/support/replay-server';
import { waitFor, workerProcesses } from '@test/support/worker-process';
import { hackerNewsHits, hackerNewsReplay } from '@test/support/hacker-news-replay';
import { redditComments, redditPosts, redditReplay } from '@test/support/reddit-replay';
import { youtubeReplay, youtubeVideos } from '@test/support/youtube-replay';
import { xPosts, xReplay } from '@test/support/x-replay';
import { freshDatabaseUrl } from '@test/support/server-harness';

const key = randomBytes(32);
const DELAY_MS = 400;

let replay: ReplayServer;
let database: Awaited<ReturnType<typeof connect>>;
let url: string;
const workers = workerProcesses();

// Ten pages of each: no run can end before every run has committed two (the kill's moment), however loaded the machine.
const redditSource = (() => {
  const posts = redditPosts(950, { commentsEvery: 100 });
  return redditReplay(posts, redditComments(posts), { delayMs: DELAY_MS });
})();
const youtubeSource = youtubeReplay(youtubeVideos(480), [], { delayMs: DELAY_MS });
const xSource = xReplay(xPosts(950), { delayMs: DELAY_MS });
const hnSource = hackerNewsReplay(hackerNewsHits(950), { delayMs: DELAY_MS });

/** Posts each job must end with: Reddit's 950 posts and the first comment of the 10 with comments. */
const EXPECTED = { hackernews: 950, reddit: 960, youtube: 480, x: 950 };

const startWorker = () =>
  workers.start(url, {
    SECRETS_KEY: key.toString('base64'),
    ...sourceUrlsAt(replay.url),
    SCRAPING_CONCURRENCY: '4',
  });

beforeAll(async () => {
  replay = await startReplayServer({
    ...redditSource.routes,
    ...youtubeSource.routes,
    ...xSource.routes,
    '/search_by_date': hnSource.route,
  });
  url = await freshDatabaseUrl();
  database = await connect(url);
});

afterAll(async () => {
  workers.killAll();
  await database.close();
  await replay.close();
});

async function credential(kind: 'reddit' | 'youtube' | 'x', fields: Record<string, string>) {
  const id = randomUUID();
  await database.pool.query(
    `INSERT INTO source_credentials (id, kind, name, secret, key_id, daily_quota) VALUES ($1, $2, $3, $4, $5, $6)`,
    [id, kind, kind, seal(key, id, kind, fields), keyIdOf(key), kind === 'youtube' ? 10_000 : null],
  );
  return id;
}

it(
  'resumes a Hacker News, a Reddit, a YouTube and an X run after the worker is killed mid-run: nothing lost, nothing doubled',
  { timeout: 150_000 },
  async () => {
    const { pool } = database;
    const first = startWorker();
    // The migrations are the worker's to run: wait for its tables.
    await waitFor(
      'the worker to start',
      async () =>
        (await pool.query(`SELECT to_regclass('source_credentials') AS t`)).rows[0]?.t ? true : undefined,
      60_000,
    );
    const reddit = await credential('reddit', { ...redditSource.credentials });
    const youtube = await credential('youtube', { api_key: youtubeSource.apiKey });
    const x = await credential('x', { bearer_token: xSource.token });
    const jobs = {
      hackernews: { source: 'hackernews_search', query: 'coffee', max_pages: 50 },
      reddit: {
        source: 'reddit_subreddit',
        credential_id: reddit,
        subreddit: 'coffee',
        comment_depth: 1,
        max_pages: 50,
      },
      youtube: {
        source: 'youtube_search',
        credential_id: youtube,
        query: 'V60',
        comment_pages: 0,
        max_pages: 50,
      },
      x: { source: 'x_search', credential_id: x, query: 'flat white', max_pages: 50 },
    };
    const ids: Record<string, string> = {};
    for (const [platform, params] of Object.entries(jobs)) {
      const { rows } = await pool.query<{ id: string }>(
        `INSERT INTO scrape_jobs (name, source, params, next_run_at) VALUES ($1, $2, $3::jsonb, now()) RETURNING id`,
        [platform, params.source, JSON.stringify(params)],
      );
      ids[platform] = rows[0]!.id;
    }
    const runs = async () =>
      (
        await pool.query<{
          job_id: string;
          pages: number;
          status: string;
          attempts: number;
          inserted: number;
        }>('SELECT job_id, pages, status, attempts, inserted FROM scrape_runs')
      ).rows;
    // Every run with two pages committed and none finished: kill the process without warning.
    await waitFor(
      'two committed pages of every run',
      async () => {
        const now = await runs();
        return now.length === 4 && now.every((r) => r.pages >= 2) ? true : undefined;
      },
      60_000,
    );
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const atKill = await runs();
    expect(atKill.map((r) => r.status).filter((status) => status === 'succeeded')).toEqual([]);

    startWorker();
    const done = await waitFor(
      'every run to finish',
      async () => {
        const now = await runs();
        return now.every((r) => r.status === 'succeeded') ? now : undefined;
      },
      120_000,
    );
    for (const [platform, expected] of Object.entries(EXPECTED)) {
      const run = done.find((r) => r.job_id === ids[platform])!;
      expect(run, platform).toMatchObject({ status: 'succeeded', attempts: 2, inserted: expected });
      const { rows } = await pool.query<{ n: number; distinct: number }>(
        `SELECT count(*)::int AS n, count(DISTINCT external_id)::int AS distinct FROM posts WHERE platform = $1`,
        [platform],
      );
      expect(rows[0], platform).toEqual({ n: expected, distinct: expected });
    }
    const { rows: log } = await pool.query<{ message: string }>(
      `SELECT message FROM scrape_logs WHERE message LIKE 'Resumed from the saved cursor%'`,
    );
    expect(log).toHaveLength(4);
  },
);
