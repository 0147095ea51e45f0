// Counting the posts a query matches, bounded in cost: at most `cap` + 1 rows are visited and the statement is
// cancelled after `timeoutMs`; a read-only transaction keeps both settings local to this count. The query editor's
// count (countQueryMatches) reads the analytics store when it holds PostgreSQL's corpus version, with the same cap and
// time limit, else PostgreSQL (countMatches).
import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '@server/db/database';
import { QUERY_MATCH_COUNT_CAP } from '@contract/social-query';
import type { StoreScope as CountScope } from '@server/analytics/query/compile';
import { countStoreMatches } from '@server/analytics/query/count';
import type { AnalyticsService } from '@server/analytics/service';
import { QUERY_FROM } from '@server/query/compile';
import { fromStore } from '../insights/store-source';
import { noteSnapshot, snapshotColumns } from '../reads';
import { scopeConditions, scopeWhere } from '../scope';

export interface MatchCount {
  /** At most `cap`; null when counting took longer than `timeoutMs`. */
  matches: number | null;
  /** More than `cap` posts match. */
  capped: boolean;
}

/** PostgreSQL's query_canceled, which statement_timeout raises; drizzle wraps driver errors in `cause`. */
function isStatementTimeout(error: unknown): boolean {
  for (let current = error; current instanceof Error; current = current.cause) {
    if ((current as Error & { code?: unknown }).code === '57014') return true;
  }
  return false;
}

/** How long a count may take before it is cancelled and reported unknown. */
const COUNT_TIMEOUT_MS = 2000;

interface CountOptions {
  cap?: number;
  timeoutMs?: number;
}

export async function countMatches(
  db: Db,
  where: SQL,
  { cap = QUERY_MATCH_COUNT_CAP, timeoutMs = COUNT_TIMEOUT_MS }: CountOptions = {},
): Promise<MatchCount> {
  try {
    const count = await db.transaction(
      async (tx) => {
        const settings = await tx.execute<Record<string, unknown>>(
          sql`SELECT set_config('statement_timeout', ${`${timeoutMs}ms`}, true), ${snapshotColumns}`,
        );
        noteSnapshot(settings.rows[0]);
        const result = await tx.execute<{ n: number }>(
          sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM ${QUERY_FROM} WHERE ${where} LIMIT ${cap + 1}) AS m`,
        );
        return result.rows[0]?.n ?? 0;
      },
      { accessMode: 'read only' },
    );
    return count > cap ? { matches: cap, capped: true } : { matches: count, capped: false };
  } catch (error) {
    if (isStatementTimeout(error)) return { matches: null, capped: false };
    throw error;
  }
}

/**
 * The posts `scope` matches (its query, and discover's range, platforms and languages when it has a range), counted by
 * the analytics store when it holds exactly the corpus version PostgreSQL's snapshot sees, else by PostgreSQL.
 */
export async function countQueryMatches(
  db: Db,
  scope: CountScope,
  service: AnalyticsService | undefined,
  { cap = QUERY_MATCH_COUNT_CAP, timeoutMs = COUNT_TIMEOUT_MS }: CountOptions = {},
): Promise<MatchCount> {
  // The count compiles its own query for the store (countStoreMatches asks its words of the pool); the snapshot it
  // is checked in reads no wall-clock time.
  const counted = await fromStore(
    db,
    { timeZone: 'UTC' },
    service,
    (store, { pool }) => countStoreMatches(store, pool, scope, { cap, timeoutMs }),
    async (_tx, count) => count,
  );
  if (counted) return counted;
  const { from, to } = scope;
  const conditions = scopeConditions(scope);
  const where =
    from && to
      ? scopeWhere({ ...scope, from, to })
      : conditions.length
        ? sql.join(conditions, sql` AND `)
        : sql`true`;
  return countMatches(db, where, { cap, timeoutMs });
}
