// Compare's overlap from the store: the posts of the common range matching two or more of the compared queries, and
// per pair of queries the posts matching both. One statement: each query's condition (storeWhere: the range, its
// platforms and languages, its query and the refinements, which Compare gives every query alike) as a flag of every
// post matching any of them, the flags then counted.
import { STORE_DATABASE } from '../layout';
import { StoreParams } from '../params';
import type { AnalyticsStore } from '../store';
import { storeWhere, zonePlaceholder, type StoreScope } from './scope';

/** The pairs of indexes a < b, in order: (0, 1), (0, 2), …, (1, 2), … */
export const pairsOf = (n: number) =>
  Array.from({ length: n }, (_, a) =>
    Array.from({ length: n - a - 1 }, (_, k) => [a, a + k + 1] as const),
  ).flat();

/** The posts matching two or more scopes, and per pair (pairsOf's order) the posts matching both. */
export interface StoreOverlap {
  posts: number;
  pairs: number[];
}

/** The overlap of `scopes`, which share their range (the first's is read) and zone. */
export async function storeOverlap(store: AnalyticsStore, scopes: StoreScope[]): Promise<StoreOverlap> {
  const pairs = pairsOf(scopes.length);
  if (!scopes.length) return { posts: 0, pairs: [] };
  const { context, db = STORE_DATABASE } = scopes[0]!;
  const params = new StoreParams();
  const zone = zonePlaceholder(context, params);
  const conditions = scopes.map((scope) => storeWhere(scope, params, zone));
  const flag = (i: number) => `m${i}`;
  const [row] = await store.query<{ posts: string; pairs: string[] }>(
    `SELECT
      countIf(${conditions.map((_, i) => `toUInt8(${flag(i)})`).join(' + ')} >= 2) AS posts,
      [${pairs.map(([a, b]) => `countIf(${flag(a)} AND ${flag(b)})`).join(', ')}] AS pairs
    FROM (SELECT ${conditions.map((condition, i) => `(${condition}) AS ${flag(i)}`).join(', ')}
      FROM ${db}.posts p
      WHERE p.ts >= ${params.add(context.scope.from.getTime(), 'Int64')}
        AND p.ts < ${params.add(context.scope.to.getTime(), 'Int64')}
        AND (${conditions.map((condition) => `(${condition})`).join(' OR ')}))`,
    params.values,
  );
  return {
    posts: Number(row?.posts ?? 0),
    pairs: pairs.map((_, i) => Number(row?.pairs[i] ?? 0)),
  };
}
