// `npm run worker` while the database it works on dies: the embedded PostgreSQL under a running server (which runs no
// collection itself, SCRAPING_WORKER=off) killed (SIGKILL) in the middle of a collection run. The worker says the
// database went away, waits for it with the same bounded tries as the server's supervisor, says when it is back and
// carries on: the run under way finishes from its saved cursor (no committed page lost or fetched twice) and a job
// queued after the restart is done. When the database does not come back within the tries, the worker exits 1 with
// one line.
import type { ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runningEmbeddedUrl } from '@server/db/database';
import { startReplayServer, type ReplayServer } from '@test/support/replay-server';
import { mastodonStatuses } from '@test/support/mastodon-statuses';
import {
  breakStarts,
  health,
  postmasterOf,
  startServer,
  startWorker,
  stopLeftPostgres,
  until,
} from '@test/support/supervised-server';

const dir = mkdtempSync(join(tmpdir(), 'murmur-worker-supervision-'));
chmodSync(dir, 0o755);
const started: ChildProcess[] = [];
const pools: pg.Pool[] = [];
let replay: ReplayServer;

const PAGES = 4;
const PER_PAGE = 2;

/** A tag's statuses, two a page, `PAGES` pages, each answered after 500 ms (a slow instance). */
function statuses(tag: string, page: number) {
  return mastodonStatuses(tag, page, PER_PAGE);
}

beforeAll(async () => {
  const tagRoute = (tag: string) => (url: URL) => {
    const maxId = url.searchParams.get('max_id');
    const page = maxId ? (1000 - Number(maxId) + 1) / PER_PAGE : 0;
    if (page >= PAGES) return { body: '[]', delayMs: 500 };
    const body = statuses(tag, page);
    return {
      body: JSON.stringify(body),
      delayMs: 500,
      headers: {
        link: `<${replay.url}/api/v1/timelines/tag/${tag}?max_id=${body.at(-1)!.id}>; rel="next"`,
      },
    };
  };
  replay = await startReplayServer({
    '/api/v1/timelines/tag/before': tagRoute('before'),
    '/api/v1/timelines/tag/after': tagRoute('after'),
  });
});

afterAll(async () => {
  for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
  await Promise.all(pools.map((pool) => pool.end().catch(() => {})));
  for (const name of ['carries-on', 'gives-up']) stopLeftPostgres(join(dir, name));
  rmSync(dir, { recursive: true, force: true });
  await replay?.close();
});

const WORKER_ENV = {
  SCRAPING_ALLOW_PRIVATE_HOSTS: 'true',
  SCRAPING_HEARTBEAT_SECONDS: '10',
  SCRAPING_RETRY_DELAY_SECONDS: '1',
  SCRAPING_CONCURRENCY: '1',
};

/** The test's own connections to the server's embedded PostgreSQL (they too see it die; the pool opens new ones). */
function poolOf(dataDir: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: runningEmbeddedUrl(join(dataDir, 'pg'))!, max: 2 });
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  pools.push(pool);
  return pool;
}

const queueJob = async (pool: pg.Pool, tag: string) => {
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO scrape_jobs (name, source, params, next_run_at)
     VALUES ($1, 'mastodon_hashtag', $2::jsonb, now()) RETURNING id`,
    [tag, JSON.stringify({ source: 'mastodon_hashtag', instance: replay.url, hashtag: tag, max_pages: 50 })],
  );
  return rows[0]!.id;
};

/** The job's run once it is in `status`; asked again while the database is away. */
const runOf = (pool: pg.Pool, jobId: string, ok: (run: Record<string, unknown>) => boolean) =>
  until(
    () =>
      pool
        .query('SELECT * FROM scrape_runs WHERE job_id = $1', [jobId])
        .then((result) => result.rows[0] as Record<string, unknown> | undefined)
        .catch(() => undefined),
    (run) => run !== undefined && ok(run),
  ) as Promise<Record<string, unknown>>;

describe('the collection worker when its database dies', () => {
  it('waits for the database to come back, then finishes the run under way and runs the next', async () => {
    const dataDir = join(dir, 'carries-on');
    const server = await startServer(
      dataDir,
      { EMBEDDED_PG_RESTARTS: '10', EMBEDDED_PG_RESTART_DELAY_MS: '300', SCRAPING_WORKER: 'off' },
      started,
    );
    const worker = await startWorker(
      dataDir,
      { EMBEDDED_PG_RESTARTS: '10', EMBEDDED_PG_RESTART_DELAY_MS: '300', ...WORKER_ENV },
      started,
    );
    const pool = poolOf(dataDir);
    const before = await queueJob(pool, 'before');
    await runOf(pool, before, (run) => Number(run.pages) >= 1);

    const repair = breakStarts(dataDir);
    process.kill(postmasterOf(dataDir), 'SIGKILL');
    await until(
      async () => worker.output().stderr,
      (stderr) => /\[db\] The database .* went away/.test(stderr),
    );
    repair();
    await until(
      () => health(server),
      (h) => h.status === 200,
    );
    await until(
      async () => worker.output().stdout,
      (stdout) => /\[db\] The database .* answers again/.test(stdout),
    );

    const after = await queueJob(pool, 'after');
    const [first, second] = await Promise.all([
      runOf(pool, before, (run) => run.status === 'succeeded'),
      runOf(pool, after, (run) => run.status === 'succeeded'),
    ]);
    expect(first).toMatchObject({ fetched: PAGES * PER_PAGE, inserted: PAGES * PER_PAGE, refused: 0 });
    expect(second).toMatchObject({ fetched: PAGES * PER_PAGE, inserted: PAGES * PER_PAGE, refused: 0 });
    const { rows } = await pool.query<{ n: number; distinct: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT external_id)::int AS distinct FROM posts WHERE platform = 'mastodon'`,
    );
    expect(rows[0]).toEqual({ n: 2 * PAGES * PER_PAGE, distinct: 2 * PAGES * PER_PAGE });
    expect(worker.child.exitCode).toBeNull();
    // The queue's polls refused while the database was away are not logged one by one.
    expect(worker.output().stdout).not.toMatch(/Job queue: connect ECONNREFUSED/);

    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, 240_000);

  it('exits 1 with one line when the database did not come back within its tries', async () => {
    const dataDir = join(dir, 'gives-up');
    const server = await startServer(
      dataDir,
      { EMBEDDED_PG_RESTARTS: '1', EMBEDDED_PG_RESTART_DELAY_MS: '100', SCRAPING_WORKER: 'off' },
      started,
    );
    const worker = await startWorker(
      dataDir,
      { EMBEDDED_PG_RESTARTS: '2', EMBEDDED_PG_RESTART_DELAY_MS: '100', ...WORKER_ENV },
      started,
    );
    breakStarts(dataDir);
    process.kill(postmasterOf(dataDir), 'SIGKILL');
    expect(await server.exited).toBe(1);
    expect(await worker.exited).toBe(1);
    const lines = worker.output().stderr.trim().split('\n');
    expect(lines.at(-1)).toMatch(
      /^The database .* went away \(.*\) and did not answer again after 2 tries \(.*\); exiting so that the process is restarted\.$/,
    );
  }, 180_000);
});
