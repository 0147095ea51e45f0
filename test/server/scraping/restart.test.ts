// The worker killed (SIGKILL) in the middle of a job: another worker, started after, resumes the run from the cursor
// the last committed page wrote. Nothing is lost (every status lands) and nothing is duplicated (each once, counted
// once). The workers are real processes (`npm run worker`'s server/worker.ts) on a fresh database.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connect } from '@server/db/database';
import { startReplayServer, type ReplayServer } from '@test/support/replay-server';
import { waitFor, workerProcesses } from '@test/support/worker-process';
import { mastodonStatuses } from '@test/support/mastodon-statuses';
import { freshDatabaseUrl } from '@test/support/server-harness';

const PAGES = 6;
const PER_PAGE = 2;

let replay: ReplayServer;
let database: Awaited<ReturnType<typeof connect>>;
let url: string;
const workers = workerProcesses();

/** Statuses 1000 down to 989, two per page, each page answered after 600 ms (a slow instance). */
function statuses(page: number) {
  return mastodonStatuses('resuming', page, PER_PAGE);
}

const startWorker = () => workers.start(url);

beforeAll(async () => {
  replay = await startReplayServer({
    '/api/v1/timelines/tag/resume': (request) => {
      const maxId = request.searchParams.get('max_id');
      const page = maxId ? (1000 - Number(maxId) + 1) / PER_PAGE : 0;
      if (page >= PAGES) return { body: '[]', delayMs: 600 };
      const body = statuses(page);
      const last = body.at(-1)!.id;
      return {
        body: JSON.stringify(body),
        delayMs: 600,
        headers: { link: `<${replay.url}/api/v1/timelines/tag/resume?max_id=${last}>; rel="next"` },
      };
    },
  });
  url = await freshDatabaseUrl();
  database = await connect(url);
});

afterAll(async () => {
  workers.killAll();
  await database.close();
  await replay.close();
});

it(
  'resumes a run from its cursor after the worker is killed mid-run: nothing lost, nothing duplicated',
  { timeout: 120_000 },
  async () => {
    const { pool } = database;
    const first = startWorker();
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO scrape_jobs (name, source, params, next_run_at)
     VALUES ('resume', 'mastodon_hashtag', $1::jsonb, now()) RETURNING id`,
      [
        JSON.stringify({
          source: 'mastodon_hashtag',
          instance: replay.url,
          hashtag: 'resume',
          max_pages: 50,
        }),
      ],
    );
    const jobId = rows[0]!.id;
    // Two pages committed, the third in flight: kill the process without warning.
    await waitFor(
      'two committed pages',
      async () => {
        const { rows: runs } = await pool.query<{ pages: number }>(
          'SELECT pages FROM scrape_runs WHERE job_id = $1',
          [jobId],
        );
        return (runs[0]?.pages ?? 0) >= 2 ? true : undefined;
      },
      60_000,
    );
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const { rows: atKill } = await pool.query<{ pages: number; status: string; cursor: { max_id?: string } }>(
      `SELECT r.pages, r.status, j.cursor FROM scrape_runs r JOIN scrape_jobs j ON j.id = r.job_id WHERE j.id = $1`,
      [jobId],
    );
    expect(atKill[0]!.status).toBe('running');
    const pagesAtKill = atKill[0]!.pages;
    expect(atKill[0]!.cursor.max_id).toBe(String(1000 - pagesAtKill * PER_PAGE + 1));
    const requestsBefore = replay.requests.length;

    startWorker();
    const done = await waitFor(
      'the run to finish',
      async () => {
        const { rows: runs } = await pool.query('SELECT * FROM scrape_runs WHERE job_id = $1', [jobId]);
        return runs[0]?.status === 'succeeded' ? (runs[0] as Record<string, number | string>) : undefined;
      },
      90_000,
    );
    expect(done).toMatchObject({
      pages: PAGES + 1,
      fetched: PAGES * PER_PAGE,
      inserted: PAGES * PER_PAGE,
      updated: 0,
      refused: 0,
    });
    expect(Number(done.attempts)).toBe(2);
    const { rows: posts } = await pool.query<{ n: number; distinct: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT external_id)::int AS distinct FROM posts WHERE platform = 'mastodon'`,
    );
    expect(posts[0]).toEqual({ n: PAGES * PER_PAGE, distinct: PAGES * PER_PAGE });
    // The second worker started at the committed cursor: no page before it was asked again.
    const after = replay.requests.slice(requestsBefore);
    expect(after[0]).toContain(`max_id=${atKill[0]!.cursor.max_id}`);
    const { rows: log } = await pool.query<{ message: string }>(
      `SELECT message FROM scrape_logs l JOIN scrape_runs r ON r.id = l.run_id WHERE r.job_id = $1 ORDER BY l.id`,
      [jobId],
    );
    expect(
      log.some((l) => l.message.startsWith(`Resumed from the saved cursor after ${pagesAtKill} pages`)),
    ).toBe(true);
  },
);
