// Where a read of the corpus finds its figures: the analytics store (server/analytics) when it can answer for the
// corpus PostgreSQL's snapshot sees, else PostgreSQL. The dashboards, discover, the query editor's count and the saved
// queries' volume all read the store through fromStore.
//
// - At PostgreSQL's version: the store's figures, then the posts and people they name looked up in a snapshot of that
//   same version. The answer is exactly that version's, and the answer cache keys it by that version as it keys
//   PostgreSQL's.
// - Behind it, by batches the oldest of which was written at most ANALYTICS_MAX_LAG_SECONDS ago: the store's figures
//   are served as they are, saying up to when they are complete (data_as_of: when that oldest batch was written;
//   everything committed before it is in the store), and never kept in the answer cache (noteBehind). Under a steady
//   stream of writes the store is usually a batch behind, and reading PostgreSQL instead costs seconds at scale.
// - Further behind, not ready, rebuilding or down, or gone during the read (its process stopped, its server out of
//   reach): PostgreSQL answers; so does it for a read that takes the store only at its version (`atVersion`:
//   discover, whose pages of posts are keyed by the store's order).
//
// The store's own consistency: its figures count only when no round of the change feed wrote to it while they were
// read (the service's write generation, the same and even before and after); otherwise they are read again once, after
// the round, and then left to PostgreSQL.
import { sql } from 'drizzle-orm';
import type pg from 'pg';
import type { Db } from '@server/db/database';
import { storeMatch } from '@server/analytics/insights/match';
import type { StoreMatch } from '@server/analytics/insights/scope';
import type { AnalyticsService, StoreReading } from '@server/analytics/service';
import {
  AnalyticsStoreStopped,
  AnalyticsStoreUnreachable,
  type AnalyticsStore,
} from '@server/analytics/store';
import type { QueryNode } from '@server/query/index';
import { noteBehind } from '../reads';
import type { InsightScope } from './request';
import { readOnly, type Tx } from './transactions';

/** How long a reader waits for a round writing to the store to finish before it reads PostgreSQL instead. */
const WRITES_WAIT_MS = 2_000;
const TRIES = 2;

const corpusVersion = async (db: Db | Tx) =>
  Number(
    (await db.execute<{ version: string }>(sql`SELECT version::text FROM corpus_state WHERE id`)).rows[0]
      ?.version,
  );

/** When the oldest batch the store has not applied was written (null when it has applied every batch there is). */
async function unappliedSince(db: Db | Tx, appliedSeq: number): Promise<Date | null> {
  const [row] = (
    await db.execute<{ written_at: string }>(
      sql`SELECT written_at::text FROM analytics_outbox WHERE seq > ${appliedSeq} ORDER BY seq LIMIT 1`,
    )
  ).rows;
  return row ? new Date(row.written_at) : null;
}

/**
 * Whether a snapshot at `version` may be answered by the store at `reading`: yes at the store's version; behind it,
 * with the instant the store's data is complete up to, when that is within the service's bound; no otherwise (the
 * store ahead of the snapshot, as a lagging replica's may be, or too far behind).
 */
async function servable(
  db: Db | Tx,
  version: number,
  reading: StoreReading,
  maxLagMs: number,
): Promise<{ asOf: Date | null } | null> {
  if (version === reading.corpusVersion) return { asOf: null };
  if (version < reading.corpusVersion || maxLagMs <= 0) return null;
  const asOf = await unappliedSince(db, reading.appliedSeq);
  if (!asOf || Date.now() - asOf.getTime() > maxLagMs) return null;
  return { asOf };
}

/**
 * What a read on the store is for: the zone of the PostgreSQL snapshot its posts are looked up in and, when its
 * figures compile a query for the store through `match`, that query (a dashboard's InsightScope is one). A read of
 * several queries (the saved queries' volume) names them as the operands of one OR, so that their words are asked of
 * PostgreSQL in one statement; one that compiles its own (the query editor's count, given `pool`) names none.
 */
export interface StoreRead {
  timeZone: string;
  scope?: { query: QueryNode | null };
}

/** What the figures are read with: the read, its query compiled for the store, and PostgreSQL's pool. */
export interface StoreSource<C extends StoreRead> {
  context: C;
  match: StoreMatch;
  pool: pg.Pool;
}

/**
 * `figures` read from the store, then `lookUp` in a PostgreSQL snapshot (the posts and profiles the figures name);
 * null when the store cannot answer for that snapshot (see the head of this file): the caller answers from PostgreSQL.
 * `atVersion`: only a store at the snapshot's version answers, never one behind it.
 */
export async function fromStore<R, T, C extends StoreRead = InsightScope>(
  db: Db,
  context: C,
  service: AnalyticsService | undefined,
  figures: (store: AnalyticsStore, source: StoreSource<C>) => Promise<R>,
  lookUp: (tx: Tx, rows: R) => Promise<T>,
  { atVersion = false }: { atVersion?: boolean } = {},
): Promise<T | null> {
  // Drizzle's database over a pool carries the pool (the query's words are asked of it in plain SQL); a transaction
  // handed in as the database does not.
  const pool = (db as Db & { $client?: pg.Pool }).$client;
  if (!service || !pool) return null;
  const maxLagMs = atVersion ? 0 : service.maxLagMs;
  let match: Awaited<ReturnType<typeof storeMatch>> | null = null;
  for (let attempt = 0; attempt < TRIES; attempt += 1) {
    await service.writesSettled(WRITES_WAIT_MS);
    const reading = service.reading();
    if (!reading || reading.generation % 2 === 1) return null;
    // A store too far behind (or ahead of) PostgreSQL is not asked; checked again in the snapshot the posts are
    // looked up in, as a write may land meanwhile.
    if (!(await servable(db, await corpusVersion(db), reading, maxLagMs))) return null;
    // A read without a query asks PostgreSQL nothing here.
    match ??= await storeMatch(pool, context.scope?.query ?? null);
    let rows: R;
    try {
      rows = await figures(reading.store, { context, match, pool });
    } catch (error) {
      // The store went away under the statement (its process stopped, its server out of reach): PostgreSQL answers.
      if (error instanceof AnalyticsStoreStopped || error instanceof AnalyticsStoreUnreachable) return null;
      // Its tables gone (a server's data dropped), or its files damaged or gone: not read until the service has
      // reconciled or rebuilt it. Its tables all there: the statement's own fault, thrown as any refused statement is.
      if (await service.distrustFor(reading, error)) return null;
      throw error;
    }
    if (!service.unchangedSince(reading)) continue;
    return readOnly(
      db,
      async (tx) => {
        const served = await servable(tx, await corpusVersion(tx), reading, maxLagMs);
        if (!served) return null;
        if (served.asOf) noteBehind(reading.corpusVersion, served.asOf);
        return lookUp(tx, rows);
      },
      { timeZone: context.timeZone },
    );
  }
  return null;
}
