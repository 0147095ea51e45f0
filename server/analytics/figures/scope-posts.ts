// The ids of every post a scope selects (a list's posts: its query, filters, range and refinements), in one statement,
// so at one version of the store: what tagging every post of a list writes (server/social/insights/tag-list.ts). The count is
// the list's total; the ids are given only up to `max` (the caller refuses a list of more).
import type { AnalyticsStore } from '../store';
import { StoreParams } from '../params';
import { storeFrom, zonePlaceholder, type StoreScope } from './scope';

export interface StoreScopePosts {
  total: number;
  /** Ascending; every post of the scope when total ≤ max, else `max` of them. */
  ids: number[];
}

export async function storeScopePosts(
  store: AnalyticsStore,
  scope: StoreScope,
  max: number,
): Promise<StoreScopePosts> {
  const params = new StoreParams();
  const zone = zonePlaceholder(scope.context, params);
  const { from, where } = storeFrom(scope, params, zone, ['id']);
  const size = params.add(max, 'UInt64');
  const [row] = await store.query<{ total: string; ids: Array<number | string> }>(
    `SELECT count() AS total, groupArraySorted(${size})(p.id) AS ids FROM ${from} WHERE ${where}`,
    params.values,
  );
  return { total: Number(row?.total ?? 0), ids: (row?.ids ?? []).map(Number) };
}
