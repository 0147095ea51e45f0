// The collector: the process's pg-boss (server/scheduler.ts) carrying runs to workers, and a dispatcher that turns due
// jobs into runs and sends runs to the queue. It runs in the server process by default (SCRAPING_WORKER=in-process)
// and alone in `npm run worker` (server/worker.ts), any number of times: the dispatcher claims rows with FOR UPDATE
// SKIP LOCKED and sends in the same transaction, so a run is sent once. The dispatcher runs when an API call asks
// (nudge), after each run, at the next job's due time (a delayed job on the queue) and every minute (a schedule).
//
// Crashes: a worker heartbeats its job (heartbeatSeconds); when a process dies mid-run, pg-boss's monitor fails the
// silent job and retries it, and the retry resumes from the cursor the last committed page wrote.
import type { Db as IDatabase, JobWithMetadata, PgBoss } from 'pg-boss';
import type pg from 'pg';
import type { ServerConfig } from '@server/config';
import { poolAdapter as adapter } from '@server/scheduler';
import type { HttpOptions } from './connectors/http';
import type { SourceUrls } from './connectors/types';
import { executeRun, RetryableRunError, type RunnerDeps } from './runner';

/** How the connectors make requests, from the configuration. */
export const httpOptionsOf = (config: ServerConfig): HttpOptions => ({
  timeoutMs: config.SCRAPING_HTTP_TIMEOUT_SECONDS * 1000,
  allowPrivateHosts: config.SCRAPING_ALLOW_PRIVATE_HOSTS,
  userAgent: 'MurmurCollector/1.0 (+https://murmur.example/docs/scraping)',
});

/** The sources' API addresses from the configuration. */
export const sourceUrlsOf = (config: ServerConfig): SourceUrls => ({
  bluesky: config.SCRAPING_BLUESKY_URL,
  reddit: config.SCRAPING_REDDIT_URL,
  redditAuth: config.SCRAPING_REDDIT_AUTH_URL,
  youtube: config.SCRAPING_YOUTUBE_URL,
  hackernews: config.SCRAPING_HACKERNEWS_URL,
  x: config.SCRAPING_X_URL,
});

const RUN_QUEUE = 'scrape-run';
const DISPATCH_QUEUE = 'scrape-dispatch';

export interface CollectorOptions {
  /** The process's queue (server/scheduler.ts startQueue); its owner stops it. */
  boss: PgBoss;
  pool: pg.Pool;
  config: ServerConfig;
  /** Absolute; from SCRAPING_UPLOAD_DIR or DATA_DIR/uploads. */
  uploadDir: string;
  /** Process runs here (false: only dispatch, as the web server does when workers run apart). */
  work: boolean;
  /** Opens the jobs' source credentials (server/scraping/credentials.ts). */
  secretsKey?: Buffer;
  log?: (message: string) => void;
}

export interface Collector {
  /** Looks for due jobs and unsent runs now (after an API call) instead of at the next tick. */
  nudge(): void;
  stop(): Promise<void>;
}

export async function startCollector(options: CollectorOptions): Promise<Collector> {
  const { boss, pool, config, log = console.log } = options;
  await boss.createQueue(RUN_QUEUE, {
    retryLimit: config.SCRAPING_RETRY_LIMIT,
    retryDelay: config.SCRAPING_RETRY_DELAY_SECONDS,
    retryBackoff: true,
    retryDelayMax: 3600,
    // Death is found by the heartbeat; a long run (a big backfill with rate-limit waits) may take hours.
    expireInSeconds: 6 * 3600,
    heartbeatSeconds: config.SCRAPING_HEARTBEAT_SECONDS,
  });

  const send = (db: IDatabase, runId: string, startAfter?: Date) =>
    boss.send(RUN_QUEUE, { runId }, { db, ...(startAfter && { startAfter }) });

  /** Due jobs become runs; runs not yet on the queue are sent, each in the transaction that marks it sent. */
  const dispatch = async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(
        `WITH due AS (
           SELECT id FROM scrape_jobs j WHERE state = 'active' AND next_run_at <= now()
             AND NOT EXISTS (SELECT 1 FROM scrape_runs r WHERE r.job_id = j.id
                             AND r.status IN ('queued', 'running', 'waiting', 'paused'))
           FOR UPDATE SKIP LOCKED),
         cleared AS (UPDATE scrape_jobs j SET next_run_at = NULL FROM due WHERE j.id = due.id RETURNING j.id)
         INSERT INTO scrape_runs (job_id) SELECT id FROM cleared`,
      );
      const { rows } = await client.query<{ id: string }>(
        `SELECT id FROM scrape_runs WHERE status = 'queued' AND queue_job_id IS NULL
           ORDER BY queued_at LIMIT 100 FOR UPDATE SKIP LOCKED`,
      );
      for (const { id } of rows) {
        const jobId = await send(adapter(client), id);
        await client.query('UPDATE scrape_runs SET queue_job_id = $2 WHERE id = $1', [id, jobId]);
      }
      // The next due job before the minute's schedule comes round: the dispatcher is woken at its time.
      const { rows: next } = await client.query<{ at: Date }>(
        `SELECT min(next_run_at) AS at FROM scrape_jobs
           WHERE state = 'active' AND next_run_at > now() AND next_run_at < now() + interval '1 minute'`,
      );
      const at = next[0]?.at;
      if (at) {
        await boss.send(DISPATCH_QUEUE, null, {
          db: adapter(client),
          startAfter: at,
          singletonKey: at.toISOString(),
        });
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  };

  let stopped = false;
  let ticking: Promise<void> | null = null;
  let again = false;
  const tick = () => {
    if (stopped) return;
    if (ticking) {
      again = true;
      return;
    }
    ticking = dispatch()
      .catch((error: unknown) => log(`Collection dispatcher: ${(error as Error).message}`))
      .finally(() => {
        ticking = null;
        if (again) {
          again = false;
          tick();
        }
      });
  };
  // Every minute whatever happens (a run left unsent by a crash between its commit and its send is found so), and
  // at the next job's due time: a delayed job, one per instant however many processes ask.
  await boss.createQueue(DISPATCH_QUEUE, { policy: 'short', retryLimit: 0, expireInSeconds: 300 });
  await boss.schedule(DISPATCH_QUEUE, '* * * * *', null, { tz: 'UTC' });
  await boss.work(DISPATCH_QUEUE, { pollingIntervalSeconds: 1 }, async () => tick());
  tick();

  if (options.work) {
    const deps: RunnerDeps = {
      pool,
      http: httpOptionsOf(config),
      urls: sourceUrlsOf(config),
      secretsKey: options.secretsKey,
      uploadDir: options.uploadDir,
      maxInlineWaitMs: config.SCRAPING_MAX_INLINE_WAIT_SECONDS * 1000,
      requeue: async (client, runId, at) => {
        const jobId = await send(adapter(client), runId, at);
        await client.query('UPDATE scrape_runs SET queue_job_id = $2 WHERE id = $1', [runId, jobId]);
        return jobId;
      },
    };
    await boss.work(
      RUN_QUEUE,
      {
        includeMetadata: true as const,
        localConcurrency: config.SCRAPING_CONCURRENCY,
        pollingIntervalSeconds: 1,
      },
      async (jobs: JobWithMetadata<{ runId: string }>[]) => {
        for (const job of jobs) {
          try {
            await executeRun(deps, {
              runId: job.data.runId,
              retryCount: job.retryCount,
              retryLimit: job.retryLimit,
              signal: job.signal,
            });
            // A recurring job has its next time now: the dispatcher sees it (and wakes itself for it).
            tick();
          } catch (error) {
            if (!(error instanceof RetryableRunError)) {
              log(`Collection run ${job.data.runId}: ${(error as Error).message}`);
            }
            throw error;
          }
        }
      },
    );
  }

  return {
    nudge: tick,
    async stop() {
      stopped = true;
      await Promise.all([boss.offWork(RUN_QUEUE), boss.offWork(DISPATCH_QUEUE)]);
      await ticking;
    },
  };
}
