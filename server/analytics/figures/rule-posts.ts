// The posts a tag rule matches among every post the store holds, in one statement, so at one version of the store:
// what a rule created or changed tags among the past posts (server/social/insights/rule-past.ts). With them, the
// newest post id the store holds at that version: every post at or below it that PostgreSQL holds is one the store
// held then (posts are committed in id order, and the store applies the change feed in its order:
// docs/analytics-engine.md), so the rule is carried on past it, over the posts that came after, by the live path
// (server/tags/apply.ts).
import type { QueryNode } from '@server/query/index';
import { STORE_DATABASE } from '../layout';
import { StoreParams } from '../params';
import { storeScopeCondition } from '../matching/compile';
import type { AnalyticsStore } from '../store';

export interface StoreRulePosts {
  /** The newest post id the store held (0 when it held none). */
  newest: number;
  /** The ids of the posts `query` matches, ascending (every one at most `newest`). */
  ids: number[];
}

export async function storeRulePosts(store: AnalyticsStore, query: QueryNode): Promise<StoreRulePosts> {
  const params = new StoreParams();
  const where = storeScopeCondition({ query, platforms: [], languages: [] }, params);
  const [row] = await store.query<{ newest: string | null; ids: string }>(
    `SELECT (SELECT max(id) FROM ${STORE_DATABASE}.posts) AS newest,
      arrayStringConcat(arraySort(groupArray(p.id)), ',') AS ids
    FROM ${STORE_DATABASE}.posts p WHERE ${where}`,
    params.values,
  );
  const ids = row?.ids ? row.ids.split(',').map(Number) : [];
  return { newest: Number(row?.newest ?? 0), ids };
}
