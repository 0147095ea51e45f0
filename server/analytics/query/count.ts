// Counting the posts a scope matches in the store, as server/social/query/count.ts counts them in PostgreSQL: at most
// `cap` + 1 rows are visited, and more than `cap` is reported as `cap`, capped; past `timeoutMs` the count is
// cancelled and unknown (null), as PostgreSQL's statement timeout leaves it.
import type pg from 'pg';
import { QUERY_MATCH_COUNT_CAP } from '@contract/social-query';
import { STORE_DATABASE } from '../layout';
import { StoreParams, type StoreCondition } from '../params';
import { isStoreTimeout, timeLimit, type AnalyticsStore } from '../store';
import { storeScopeCondition, type StoreScope } from './compile';
import { queryWords } from './words';

export interface StoreMatchCount {
  /** At most `cap`; null when counting took longer than `timeoutMs`. */
  matches: number | null;
  /** More than `cap` posts match. */
  capped: boolean;
}

/** The scope's condition over `posts p` with its parameters, the query's words asked of PostgreSQL (`pg`). */
export async function storeCondition(
  pg: pg.Pool | pg.ClientBase,
  scope: StoreScope,
): Promise<StoreCondition> {
  const params = new StoreParams();
  const words = await queryWords(pg, scope.query);
  return { sql: storeScopeCondition(scope, params, words), params: params.values };
}

export async function countStoreMatches(
  store: AnalyticsStore,
  pg: pg.Pool | pg.ClientBase,
  scope: StoreScope,
  { cap = QUERY_MATCH_COUNT_CAP, timeoutMs }: { cap?: number; timeoutMs?: number } = {},
): Promise<StoreMatchCount> {
  const condition = await storeCondition(pg, scope);
  let count: number;
  try {
    const [row] = await store.query<{ n: string }>(
      `SELECT count() AS n FROM (SELECT 1 FROM ${STORE_DATABASE}.posts p WHERE ${condition.sql} LIMIT ${cap + 1})
      ${timeoutMs === undefined ? '' : timeLimit(timeoutMs)}`,
      condition.params,
    );
    count = Number(row?.n ?? 0);
  } catch (error) {
    if (timeoutMs !== undefined && isStoreTimeout(error)) return { matches: null, capped: false };
    throw error;
  }
  return count > cap ? { matches: cap, capped: true } : { matches: count, capped: false };
}
