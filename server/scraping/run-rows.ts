// A collection run's rows in PostgreSQL (scrape_runs with its job, scrape_logs): loading one, ending or pausing it,
// its log lines, and the transaction the runner commits each page in (runner.ts).
import type pg from 'pg';
import type { RunStatus } from '@contract/scraping';

export interface RunRow {
  id: string;
  job_id: string;
  status: RunStatus;
  pages: number;
  result_pages: number;
  state: string;
  params: unknown;
  cursor: unknown;
  every_minutes: number | null;
}

type Level = 'info' | 'warn' | 'error';

export async function log(db: pg.Pool | pg.PoolClient, runId: string, level: Level, message: string) {
  await db.query('INSERT INTO scrape_logs (run_id, level, message) VALUES ($1, $2, $3)', [
    runId,
    level,
    message.slice(0, 4_000),
  ]);
}

export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

export async function loadRun(
  db: pg.Pool | pg.PoolClient,
  runId: string,
  lock = false,
): Promise<RunRow | undefined> {
  const { rows } = await db.query<RunRow>(
    `SELECT r.id, r.job_id, r.status, r.pages, r.result_pages, j.state, j.params, j.cursor, j.every_minutes
       FROM scrape_runs r JOIN scrape_jobs j ON j.id = r.job_id WHERE r.id = $1${lock ? ' FOR UPDATE OF r, j' : ''}`,
    [runId],
  );
  return rows[0];
}

export const OVER: RunStatus[] = ['succeeded', 'failed', 'cancelled'];

/** Ends a run: its status and time, the job's next run when it has a schedule, a last log line. */
export async function finishRun(
  client: pg.PoolClient,
  run: RunRow,
  status: 'succeeded' | 'failed' | 'cancelled',
  message: string,
  error?: string,
) {
  await client.query(
    `UPDATE scrape_runs SET status = $2, finished_at = now(), heartbeat_at = now(), error = $3 WHERE id = $1`,
    [run.id, status, error ?? null],
  );
  // A scheduled job runs again every_minutes after this one ended, failed or not (a source down now may be up then);
  // a cancelled job never does.
  await client.query(
    `UPDATE scrape_jobs SET next_run_at = CASE WHEN state = 'active' AND every_minutes IS NOT NULL
       THEN now() + every_minutes * interval '1 minute' END, updated_at = now() WHERE id = $1`,
    [run.job_id],
  );
  await log(client, run.id, status === 'failed' ? 'error' : 'info', message);
}

/** Pauses the run where it is (its cursor is the job's): resuming sends it to the queue again. */
export async function pauseRun(client: pg.PoolClient, run: RunRow) {
  await client.query(
    `UPDATE scrape_runs SET status = 'paused', queue_job_id = NULL, heartbeat_at = now() WHERE id = $1`,
    [run.id],
  );
  await log(
    client,
    run.id,
    'info',
    `Paused after ${run.pages} pages; resuming continues from the same place.`,
  );
}
