// Every periodic job of a Murmur process, in one place: pg-boss (a PostgreSQL-backed queue in the schema pgboss),
// whose cron schedules are rows of the database. Each job is a queue with a schedule (UTC): whichever process's cron
// pass comes first sends the period's one job and one worker of any process takes it, so several servers on one
// database run each job once per period, and a period missed while every process was down is run once when one is
// back. The collection queue (server/scraping/collector.ts) runs on the same instance.
import { PgBoss, type ConstructorOptions, type Db } from 'pg-boss';
import type pg from 'pg';
import type { ServerConfig } from './config';

export interface PeriodicJob {
  /** The queue's name. */
  name: string;
  /** When it runs: a cron expression in UTC (pg-boss sends at most one job a minute per schedule). */
  cron: string;
  run(): Promise<void>;
  /** Past this a run counts as failed; the next period runs anew. */
  timeoutSeconds?: number;
}

/** pg-boss's statements on a pooled client (our pool, or a transaction's client for a send that commits with it). */
export const poolAdapter = (db: pg.Pool | pg.PoolClient): Db => ({
  executeSql: (text: string, values?: unknown[]) => db.query(text, values),
});

/**
 * The process's queue, started; `stop()` it before the pool closes. On the app's pool normally; a test gives a
 * connection string (pg-boss's own pool) to drive it with pg-boss's TestClock.
 */
export async function startQueue(
  config: Pick<ServerConfig, 'SCRAPING_HEARTBEAT_SECONDS'>,
  connection: { pool: pg.Pool } | { connectionString: string },
  options: { log?: (message: string) => void; clock?: ConstructorOptions['clock'] } = {},
): Promise<PgBoss> {
  const { log = console.log, clock } = options;
  // Silent collection runs are found within a fifth of the heartbeat after it lapses.
  const every = Math.max(2, Math.floor(config.SCRAPING_HEARTBEAT_SECONDS / 5));
  const boss = new PgBoss({
    ...('pool' in connection ? { db: poolAdapter(connection.pool) } : connection),
    ...(clock && { clock }),
    schema: 'pgboss',
    monitorIntervalSeconds: every,
    superviseIntervalSeconds: every,
  });
  boss.on('error', (error: Error) => log(`Job queue: ${error.message}`));
  await boss.start();
  return boss;
}

/** Registers each job's queue and schedule (idempotent: every process registers the same) and works it here. */
export async function schedulePeriodic(
  boss: PgBoss,
  jobs: PeriodicJob[],
  log: (message: string) => void = console.log,
): Promise<void> {
  for (const job of jobs) {
    // One waiting and one running at most: a slow round never piles periods up behind it.
    await boss.createQueue(job.name, {
      policy: 'stately',
      retryLimit: 0,
      expireInSeconds: job.timeoutSeconds ?? 15 * 60,
    });
    await boss.schedule(job.name, job.cron, null, { tz: 'UTC', missed: 'once' });
    await boss.work(job.name, { pollingIntervalSeconds: 2 }, async () => {
      try {
        await job.run();
      } catch (error) {
        // Failed rounds are not retried at once: each job is idempotent and its next period does the work.
        log(`${job.name} failed; it runs again at its next time: ${(error as Error).message}`);
        throw error;
      }
    });
  }
}
