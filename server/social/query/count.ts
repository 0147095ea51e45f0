// Counting the posts a query matches, bounded in cost: at most `cap` + 1 rows are visited and the statement is
// cancelled after `timeoutMs`; a read-only transaction keeps both settings local to this count.
import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '@server/db/database';
import { QUERY_MATCH_COUNT_CAP } from '@contract/social-query';
import { QUERY_FROM } from '@server/query/compile';
import { noteSnapshot, snapshotColumns } from '../reads';

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

export async function countMatches(
  db: Db,
  where: SQL,
  { cap = QUERY_MATCH_COUNT_CAP, timeoutMs = 2000 }: { cap?: number; timeoutMs?: number } = {},
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
