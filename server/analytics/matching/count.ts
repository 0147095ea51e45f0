// Counting the posts a scope matches in the store (the query editor's count: server/social/editor/count.ts): at most
// `cap` + 1 rows are visited, and more than `cap` is reported as `cap`, capped; past `timeoutMs` the count is
// cancelled and unknown (null), as PostgreSQL's statement timeout leaves it.
import { QUERY_MATCH_COUNT_CAP } from '@contract/social-query';
import { STORE_DATABASE } from '../layout';
import { StoreParams, type StoreCondition } from '../params';
import { isStoreTimeout, timeLimit } from '../refusals';
import type { AnalyticsStore } from '../store';
import { storeScopeCondition, type StoreScope } from './compile';

export interface StoreMatchCount {
  /** At most `cap`; null when counting took longer than `timeoutMs`. */
  matches: number | null;
  /** More than `cap` posts match. */
  capped: boolean;
}

/** The scope's condition over `posts p` with its parameters. */
export function storeCondition(scope: StoreScope): StoreCondition {
  const params = new StoreParams();
  return { sql: storeScopeCondition(scope, params), params: params.values };
}

type CountOptions = { cap?: number; timeoutMs?: number };

export async function countStoreMatches(
  store: AnalyticsStore,
  scope: StoreScope,
  { cap = QUERY_MATCH_COUNT_CAP, timeoutMs }: CountOptions = {},
): Promise<StoreMatchCount> {
  const condition = storeCondition(scope);
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
