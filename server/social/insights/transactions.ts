// The read-only transactions every dashboard runs its statements in: one snapshot, a statement timeout (503
// insights_timeout), the workspace's zone as the session's; and readOnlyParts, which runs a dashboard's independent
// statements side by side on several connections sharing one exported snapshot (at most SIDE_BY_SIDE_LIMIT requests
// at a time, counted in this module).
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
type Part<T> = (tx: Tx) => Promise<T>;

/**
 * Every dashboard transaction: read-only, one snapshot for all its statements (REPEATABLE READ costs a read-only
 * transaction nothing), a statement timeout (503 insights_timeout past it), JIT off (its compile time costs more than
 * it saves on these statements), room for the aggregates' hash tables, and parallel plans made cheaper, or none when
 * the statements themselves run side by side (readOnlyParts).
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
  /** readOnlyParts: at most this many requests at a time run their parts side by side. */
  sideBySideLimit?: number;
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

/** At most this many requests at a time run their parts side by side; the others run them one after the other. */
const SIDE_BY_SIDE_LIMIT = 2;
let sideBySide = 0;

/** What pg_export_snapshot returns, e.g. 00000003-0000001B-1: checked before it is spliced into SET TRANSACTION. */
const SNAPSHOT_ID = /^[0-9A-F]+-[0-9A-F]+-[0-9]+$/i;

/**
 * Runs a dashboard's independent statements ("parts") side by side, each on its own connection in its own dashboard
 * transaction, all on one snapshot: the first exports it (pg_export_snapshot) and stays open until the others have
 * imported it (SET TRANSACTION SNAPSHOT), as pg_dump's parallel workers do. The figures therefore agree as if one
 * statement had computed them, while the cores share the work: PostgreSQL aggregates the rows of a scan in one
 * process, which is what bounds a broad dashboard on 2 cores. Parallel workers are off inside the parts (the parts
 * are the parallelism). When SIDE_BY_SIDE_LIMIT requests already run side by side, the parts run one after the other
 * in one transaction, with parallel workers: at most that many requests hold a connection while waiting for a
 * second, so they cannot drain the pool and wait on each other. When another heavy request holds an admission slot
 * (sharingCores), the parts run one after the other without parallel workers: the cores are busy anyway, and the
 * split only adds work (bench:load measured 229–235 ms of CPU a distinct overview with parallel workers against
 * about 190 side by side without; docs/performance.md).
 */
export async function readOnlyParts<T extends unknown[]>(
  db: Db,
  parts: { [K in keyof T]: Part<T[K]> },
  options: ReadOnlyOptions,
): Promise<T> {
  const { timeZone, timeoutMs = STATEMENT_TIMEOUT_MS, sideBySideLimit = SIDE_BY_SIDE_LIMIT } = options;
  const list = parts as Array<Part<unknown>>;
  if (list.length < 2 || sideBySide >= sideBySideLimit || sharingCores()) {
    return readOnly(
      db,
      async (tx) => {
        const results: unknown[] = [];
        for (const part of list) results.push(await part(tx));
        return results as T;
      },
      options,
    );
  }
  sideBySide += 1;
  try {
    let exported!: (id: string) => void;
    let notExported!: (error: unknown) => void;
    const snapshot = new Promise<string>((resolve, reject) => {
      [exported, notExported] = [resolve, reject];
    });
    // The exporting transaction must outlive every import; an import that fails counts as done.
    const imports = list.slice(1).map(() => {
      let resolve!: () => void;
      const promise = new Promise<void>((done) => (resolve = done));
      return { promise, resolve };
    });
    const first = db
      .transaction(async (tx) => {
        await configure(tx, timeoutMs, false, timeZone);
        const row = (await tx.execute<{ id: string }>(sql`SELECT pg_export_snapshot() AS id`)).rows[0];
        exported(row!.id);
        try {
          return await list[0]!(tx);
        } finally {
          await Promise.all(imports.map((i) => i.promise));
        }
      }, TRANSACTION)
      .catch((error: unknown) => {
        notExported(error);
        throw error;
      });
    const others = list.slice(1).map(async (part, index) => {
      let id: string;
      try {
        id = await snapshot;
      } catch (error) {
        imports[index]!.resolve();
        throw error;
      }
      if (!SNAPSHOT_ID.test(id)) {
        imports[index]!.resolve();
        throw new Error(`Unexpected snapshot id ${JSON.stringify(id)}`);
      }
      return db
        .transaction(async (tx) => {
          try {
            await tx.execute(sql.raw(`SET TRANSACTION SNAPSHOT '${id}'`));
          } finally {
            imports[index]!.resolve();
          }
          await configure(tx, timeoutMs, false, timeZone);
          return part(tx);
        }, TRANSACTION)
        .finally(() => imports[index]!.resolve());
    });
    // Every part settles (and gives its connection back) before the request answers, failed or not.
    const settled = await Promise.allSettled([first, ...others]);
    const failed = settled.find((result) => result.status === 'rejected');
    return (await timeoutAs503(async () => {
      if (failed) throw failed.reason;
      return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value);
    }, timeoutMs)) as T;
  } finally {
    sideBySide -= 1;
  }
}
