// The collector: pg-boss (a PostgreSQL-backed queue in its own schema, pgboss) carrying runs to workers, and a
// dispatcher that turns due jobs into runs and sends runs to the queue. It runs in the server process by default
// (SCRAPING_WORKER=in-process) and alone in `npm run worker` (server/worker.ts), any number of times: the dispatcher
// claims rows with FOR UPDATE SKIP LOCKED and sends in the same transaction, so a run is sent once.
//
// Crashes: a worker heartbeats its job (heartbeatSeconds); when a process dies mid-run, pg-boss's monitor fails the
// silent job and retries it, and the retry resumes from the cursor the last committed page wrote.
import { PgBoss, type Db as IDatabase, type JobWithMetadata } from 'pg-boss';
import type pg from 'pg';
import type { ServerConfig } from '../config';
import { executeRun, RetryableRunError, type RunnerDeps } from './runner';

const RUN_QUEUE = 'scrape-run';

export interface CollectorOptions {
  pool: pg.Pool;
  config: ServerConfig;
  /** Absolute; from SCRAPING_UPLOAD_DIR or DATA_DIR/uploads. */
  uploadDir: string;
  /** Process runs here (false: only dispatch, as the web server does when workers run apart). */
  work: boolean;
  log?: (message: string) => void;
  /** How often the dispatcher looks for due jobs (default 2 s); tests shorten it. */
  tickMs?: number;
}

export interface Collector {
  /** Looks for due jobs and unsent runs now (after an API call) instead of at the next tick. */
  nudge(): void;
  stop(): Promise<void>;
}

/** pg-boss's statements on a pooled client (our pool, or a transaction's client for a send that commits with it). */
const adapter = (db: pg.Pool | pg.PoolClient): IDatabase => ({
  executeSql: (text: string, values?: unknown[]) => db.query(text, values),
});

export async function startCollector(options: CollectorOptions): Promise<Collector> {
  const { pool, config, log = console.log } = options;
  const boss = new PgBoss({
    db: adapter(pool),
    schema: 'pgboss',
    schedule: false,
    // Silent jobs are found within a fifth of the heartbeat after it lapses.
    monitorIntervalSeconds: Math.max(2, Math.floor(config.SCRAPING_HEARTBEAT_SECONDS / 5)),
    superviseIntervalSeconds: Math.max(2, Math.floor(config.SCRAPING_HEARTBEAT_SECONDS / 5)),
  });
  boss.on('error', (error: Error) => log(`Collection queue: ${error.message}`));
  await boss.start();
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
  const timer = setInterval(tick, options.tickMs ?? 2_000);
  timer.unref();
  tick();

  if (options.work) {
    const deps: RunnerDeps = {
      pool,
      http: {
        timeoutMs: config.SCRAPING_HTTP_TIMEOUT_SECONDS * 1000,
        allowPrivateHosts: config.SCRAPING_ALLOW_PRIVATE_HOSTS,
        userAgent: 'MurmurCollector/1.0 (+https://murmur.example/docs/scraping)',
      },
      blueskyUrl: config.SCRAPING_BLUESKY_URL,
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
      clearInterval(timer);
      await ticking;
      await boss.stop({ graceful: true, timeout: 10_000 });
    },
  };
}
