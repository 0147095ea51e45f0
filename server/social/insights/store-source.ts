// Where a dashboard reads its figures: the analytics store (server/analytics) when it holds exactly the corpus version
// PostgreSQL's snapshot sees, else PostgreSQL. The store's figures are checked against that version before its
// statements (a store behind is not asked), after them (a batch applied meanwhile) and in the snapshot the posts and
// people they name are then looked up in: so an answer from the store is exactly that snapshot's version, and the
// answer cache keys it by that version as it keys PostgreSQL's.
import { sql } from 'drizzle-orm';
import type pg from 'pg';
import type { Db } from '@server/db/database';
import { storeMatch } from '@server/analytics/insights/match';
import type { StoreScope } from '@server/analytics/insights/scope';
import type { AnalyticsService } from '@server/analytics/service';
import type { AnalyticsStore } from '@server/analytics/store';
import type { InsightScope } from './request';
import { readOnly, type Tx } from './transactions';

const corpusVersion = async (db: Db | Tx) =>
  Number(
    (await db.execute<{ version: string }>(sql`SELECT version::text FROM corpus_state WHERE id`)).rows[0]
      ?.version,
  );

/**
 * `figures` read from the store, then `lookUp` in a PostgreSQL snapshot of the same corpus version (the posts and
 * profiles the figures name); null when the store cannot give that version's answer (not ready, behind, a batch
 * applied meanwhile, or no store): the caller then answers from PostgreSQL.
 */
export async function fromStore<R, T>(
  db: Db,
  context: InsightScope,
  service: AnalyticsService | undefined,
  figures: (store: AnalyticsStore, scope: StoreScope) => Promise<R>,
  lookUp: (tx: Tx, rows: R) => Promise<T>,
): Promise<T | null> {
  if (!service) return null;
  const before = service.state();
  const store = service.store;
  if (!store || !before.caughtUp || before.corpusVersion === null) return null;
  // Drizzle's database over a pool carries the pool (the query's words are asked of it in plain SQL); a transaction
  // handed in as the database does not.
  const pool = (db as Db & { $client?: pg.Pool }).$client;
  if (!pool) return null;
  // A store behind PostgreSQL is not asked (its figures would be of an older corpus); checked again in the snapshot
  // the posts are looked up in, as a write may land meanwhile.
  if ((await corpusVersion(db)) !== before.corpusVersion) return null;
  const match = await storeMatch(pool, context.scope.query);
  const rows = await figures(store, { context, match });
  if (service.state().corpusVersion !== before.corpusVersion) return null;
  return readOnly(
    db,
    async (tx) => ((await corpusVersion(tx)) === before.corpusVersion ? lookUp(tx, rows) : null),
    { timeZone: context.timeZone },
  );
}
