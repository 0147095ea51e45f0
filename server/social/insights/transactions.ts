// The read-only transactions the dashboards read PostgreSQL in (the posts and profiles the store's figures name,
// looked up by id): one snapshot, a statement timeout (503 insights_timeout), the workspace's zone as the session's.
import { sql } from 'drizzle-orm';
import type { Db } from '@server/db/database';
import { ApiError } from '@server/errors';
import { sharingCores } from '../admission';
import { noteSnapshot, snapshotColumns } from '../reads';

const STATEMENT_TIMEOUT_MS = 10_000;

/** PostgreSQL's query_canceled, which statement_timeout raises; drizzle wraps driver errors in `cause`. */
function isStatementTimeout(error: unknown): boolean {
  for (let current = error; current instanceof Error; current = current.cause) {
    if ((current as Error & { code?: unknown }).code === '57014') return true;
  }
  return false;
}

export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/**
 * Every dashboard transaction: read-only, one snapshot for all its statements (REPEATABLE READ costs a read-only
 * transaction nothing), a statement timeout (503 insights_timeout past it), JIT off (its compile time costs more than
 * it saves on these statements), room for the aggregates' hash tables, and parallel plans made cheaper, or none when
 * other heavy requests share the cores (sharingCores).
 */
const TRANSACTION = { isolationLevel: 'repeatable read', accessMode: 'read only' } as const;

/** How a dashboard transaction runs: the workspace's zone, and limits (defaults for all but tests). */
export interface ReadOnlyOptions {
  /**
   * The workspace's IANA zone, which becomes the transaction's TimeZone: statements read a post's wall-clock time as
   * `p.posted_at::timestamp` (localTime in time.ts), which uses the session zone, where `AT TIME ZONE 'name'` looks
   * the name up again on every row (measured in PERFORMANCE.md beside this file, Cost).
   */
  timeZone: string;
  timeoutMs?: number;
}

/**
 * The transaction's settings, in its first statement (or the first after SET TRANSACTION SNAPSHOT), which also reads
 * what the snapshot sees of the corpus for the read running it (server/social/reads.ts: the version the answer cache
 * keys it by; a replica too far behind is refused here, before any work).
 */
async function configure(tx: Tx, timeoutMs: number, parallel: boolean, timeZone: string) {
  // Parallel workers share the scan of a large scope (the default costs keep them out of most plans here).
  const { rows } = await tx.execute(sql`SELECT set_config('statement_timeout', ${`${timeoutMs}ms`}, true),
    set_config('TimeZone', ${timeZone}, true),
    set_config('jit', 'off', true), set_config('work_mem', '64MB', true),
    set_config('parallel_setup_cost', '20', true), set_config('parallel_tuple_cost', '0.002', true),
    set_config('max_parallel_workers_per_gather', ${parallel ? '2' : '0'}, true), ${snapshotColumns}`);
  noteSnapshot(rows[0]);
}

async function timeoutAs503<T>(run: () => Promise<T>, timeoutMs: number): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isStatementTimeout(error)) {
      throw new ApiError(
        503,
        'insights_timeout',
        `This dashboard took longer than ${timeoutMs / 1000} s to compute; narrow the date range or the query.`,
      );
    }
    throw error;
  }
}

/** Runs `run` in a dashboard transaction (see TRANSACTION). */
export async function readOnly<T>(db: Db, run: (tx: Tx) => Promise<T>, options: ReadOnlyOptions): Promise<T> {
  const { timeZone, timeoutMs = STATEMENT_TIMEOUT_MS } = options;
  return timeoutAs503(
    () =>
      db.transaction(async (tx) => {
        await configure(tx, timeoutMs, !sharingCores(), timeZone);
        return run(tx);
      }, TRANSACTION),
    timeoutMs,
  );
}
