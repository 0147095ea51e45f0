// The saved queries' volume from the store: each saved query's matching posts per wall-clock day of the workspace's
// zone, for savedQueryVolume (server/social/insights/saved-query-volume.ts), in one statement for all of a workspace's
// queries. Days are the zone's wall clock as the dashboards' timelines make them
// (time.ts): the posts grouped by their UTC quarter (or second), and only the groups mapped to days.
import { StoreParams } from '../params';
import type { AnalyticsStore } from '../store';
import { storeFrom, zonePlaceholder, type StoreScope } from './scope';
import { localBucketSql, timeKey } from './time';

/** The matching posts of the `i`th scope on the wall-clock day starting at `local` ("YYYY-MM-DDT00:00:00"). */
export interface StoreDayCount {
  i: number;
  local: string;
  n: number;
}

/**
 * Per scope (its index in `scopes`; null: not counted) and day, the days that have posts. The scopes share their range
 * and zone (the volume's) and have no refinements; each has its own query, platforms and languages.
 */
export async function storeDayCounts(
  store: AnalyticsStore,
  scopes: Array<StoreScope | null>,
): Promise<StoreDayCount[]> {
  const counted = scopes.flatMap((scope, i) => (scope ? [{ scope, i }] : []));
  if (!counted.length) return [];
  const { context } = counted[0]!.scope;
  const params = new StoreParams();
  const zone = zonePlaceholder(context, params);
  const time = timeKey(context.timeZone, context.scope.from, context.scope.to);
  const parts = counted.map(({ scope, i }) => {
    const { from: posts, where } = storeFrom(scope, params, zone, ['q', 'ts']);
    return `SELECT ${params.add(i, 'UInt32')} AS i, ${time.key} AS k, count() AS n
      FROM ${posts} WHERE ${where} GROUP BY k`;
  });
  const rows = await store.query<{ i: number; local: string; n: string }>(
    `SELECT i, ${localBucketSql('day', time.seconds, zone)} AS local, sum(n) AS n
    FROM (${parts.join(' UNION ALL ')})
    GROUP BY i, local`,
    params.values,
  );
  return rows.map((row) => ({ i: Number(row.i), local: row.local, n: Number(row.n) }));
}
