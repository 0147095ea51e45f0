// What the connector tests share: a test server whose sources' URLs all point at one replay server, a staff member,
// the runner's dependencies, and the steps each test takes — credentials and jobs made through the API as staff make
// them, a run started as the dispatcher would and its attempts executed here (no queue), then the run's row, log and
// refused items and a platform's posts read back.
import { expect } from 'vitest';
import type pg from 'pg';
import { executeRun, type RunnerDeps } from '@server/scraping/runner';
import { createTestServer } from './server-harness';
import { sourceUrlsAt, startReplayServer, type Route } from './replay-server';

export async function startScrapingHarness(options: { requeue?: RunnerDeps['requeue'] } = {}) {
  const replay = await startReplayServer();
  const url = replay.url;
  const server = await createTestServer({
    SCRAPING_ALLOW_PRIVATE_HOSTS: 'true',
    ...sourceUrlsAt(url),
  });
  const pool = server.pool as unknown as pg.Pool;
  const staff = await server.createUser({ isStaff: true });
  const auth = { authorization: `Bearer ${staff.token}` };
  const deps: RunnerDeps = {
    pool,
    http: { timeoutMs: 1_000, allowPrivateHosts: true, userAgent: 'test' },
    urls: { bluesky: url, reddit: url, redditAuth: url, youtube: url, hackernews: url, x: url },
    secretsKey: server.app.deps.secretsKey,
    uploadDir: '/nonexistent',
    maxInlineWaitMs: 5_000,
    requeue: options.requeue ?? (() => Promise.reject(new Error('no requeue in these tests'))),
  };
  const created = async (apiUrl: string, payload: object) => {
    const response = await server.app.inject({ method: 'POST', url: apiUrl, headers: auth, payload });
    expect(response.statusCode, response.body).toBe(201);
    return response.json<{ id: string }>().id;
  };
  const newRun = async (jobId: string) => {
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO scrape_runs (job_id, queue_job_id) VALUES ($1, 'test') RETURNING id`,
      [jobId],
    );
    return rows[0]!.id;
  };
  const attempt = (runId: string, retryCount = 0, retryLimit = 3) =>
    executeRun(deps, { runId, retryCount, retryLimit, signal: new AbortController().signal });
  return {
    server,
    replay,
    pool,
    deps,
    auth,
    /** Credentials as staff store them; their id. */
    createCredential: (payload: object) => created('/api/scraping/credentials', payload),
    /** A job as staff create it; its id. */
    createJob: (name: string, params: object) => created('/api/scraping/jobs', { name, params }),
    /** A run as the dispatcher makes it, not executed. */
    newRun,
    /** One attempt of the run, as the queue's worker would make it. */
    attempt,
    /** A new run of the job, executed once with no retry left. */
    run: async (jobId: string) => {
      const runId = await newRun(jobId);
      await attempt(runId, 0, 0);
      return runId;
    },
    runRow: async (runId: string) =>
      (await pool.query('SELECT * FROM scrape_runs WHERE id = $1', [runId])).rows[0] as Record<
        string,
        unknown
      >,
    logOf: async (runId: string) =>
      (
        await pool.query<{ message: string }>(
          'SELECT message FROM scrape_logs WHERE run_id = $1 ORDER BY id',
          [runId],
        )
      ).rows.map((r) => r.message),
    refusalsOf: async (runId: string) =>
      (await pool.query('SELECT ref, reason FROM scrape_refusals WHERE run_id = $1 ORDER BY id', [runId]))
        .rows,
    /** The platform's posts, and how many distinct external ids (equal when nothing was stored twice). */
    postCount: async (platform: string) =>
      (
        await pool.query<{ n: number; distinct: number }>(
          `SELECT count(*)::int AS n, count(DISTINCT external_id)::int AS distinct FROM posts WHERE platform = $1`,
          [platform],
        )
      ).rows[0],
    /** The replay server answers these routes (besides those it has). */
    serve: (routes: Record<string, Route>) => {
      for (const [path, route] of Object.entries(routes)) replay.routes.set(path, route);
    },
    /** Before each test: no route, no request seen, none of the platform's posts. */
    reset: async (platform: string) => {
      replay.routes.clear();
      replay.requests.length = 0;
      await pool.query(`SELECT corpus_delete_posts(format('platform = %L', $1::text))`, [platform]);
    },
    async close() {
      await server.close();
      await replay.close();
    },
  };
}

export type ScrapingHarness = Awaited<ReturnType<typeof startScrapingHarness>>;
