// The CSV export of the filtered posts from the store: the ids of the posts exported, in the list's order, and the
// list's total, in one statement (so at one version of the store); the caller then looks the posts up in PostgreSQL by
// id, in chunks, keeping this order (server/social/insights/export.ts). The filtered profiles' export reads
// storeProfilePage (people.ts) with the export's size for the same.
//
// The orders are the filtered-posts list's (posts.ts): by engagement, the most first; by overperformance, the highest
// score first (the score as posts.ts computes it); by recency, the newest first; ties by the higher id. By recency
// the store keeps whole milliseconds: posts of one millisecond are ordered by the higher id, where the JSON list
// (PostgreSQL's time to the microsecond) may order them otherwise.
import type { PostSort } from '@contract/insights';
import { STORE_DATABASE } from '../layout';
import { StoreParams } from '../params';
import type { AnalyticsStore } from '../store';
import { storeFrom, storeRefineWhere, storeScopeWhere, zonePlaceholder, type StoreScope } from './scope';

/** The posts exported, in order: each id, and its overperformance for that sort. */
export interface StoreExportPosts {
  total: number;
  posts: Array<{ id: number; score: number | null }>;
}

/** Undoes a sort key's negation: 0 − x, so no figure is −0. */
const negate = (x: number) => 0 - x;

/**
 * The list's total and its first `maxRows` posts by `sort`: one aggregation over the matching posts, counting them and
 * keeping the first ones (groupArraySorted over the sort's keys negated, the higher id first on a tie).
 */
export async function storeExportPosts(
  store: AnalyticsStore,
  scope: StoreScope,
  sort: PostSort,
  maxRows: number,
): Promise<StoreExportPosts> {
  const { context, db = STORE_DATABASE } = scope;
  const params = new StoreParams();
  const zone = zonePlaceholder(context, params);
  const size = params.add(maxRows, 'UInt64');
  let statement: string;
  if (sort === 'overperformance') {
    // As posts.ts's byOverperformance: the author's count and sum over the scope without refinements.
    const where = storeScopeWhere(scope, params);
    const picked = storeRefineWhere(scope, params, zone) ?? '1';
    statement = `SELECT count() AS total, groupArraySorted(${size})((-score, -toInt64(id))) AS page
      FROM (SELECT id, if(n = 1 OR e = 0, 1., toFloat64(engagement) * n / toFloat64(e)) AS score
        FROM (SELECT p.id AS id, p.engagement AS engagement, ${picked} AS picked,
            count() OVER author AS n, sum(p.engagement) OVER author AS e
          FROM ${db}.posts p WHERE ${where}
          WINDOW author AS (PARTITION BY p.author_id))
        WHERE picked)`;
  } else {
    const column = sort === 'engagement' ? 'engagement' : 'ts';
    const { from: posts, where } = storeFrom(scope, params, zone, [column]);
    statement = `SELECT count() AS total,
        groupArraySorted(${size})((-toInt64(p.${column}), -toInt64(p.id))) AS page
      FROM ${posts} WHERE ${where}`;
  }
  const [row] = await store.query<{ total: string; page: Array<[number | string, number | string]> }>(
    statement,
    params.values,
  );
  return {
    total: Number(row?.total ?? 0),
    posts: (row?.page ?? []).map(([key, id]) => ({
      id: negate(Number(id)),
      score: sort === 'overperformance' ? negate(Number(key)) : null,
    })),
  };
}
