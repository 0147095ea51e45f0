// The detail pages' figures from the store: a profile's matching posts and their engagement per wall-clock day of the
// workspace's zone (server/social/detail/profile.ts), in the dashboard's scope with its refinements; and which of a
// query's terms one post matches (server/social/detail/post.ts), each term compiled as the search compiles it.
import type { QueryNode } from '@server/query/index';
import { STORE_DATABASE } from '../layout';
import { StoreParams } from '../params';
import type { AnalyticsStore } from '../store';
import { storeFrom, zonePlaceholder, type StoreMatch, type StoreScope } from './scope';
import { localBucketSql, timeKey } from './time';

/** A day with posts: its wall-clock start ("YYYY-MM-DDT00:00:00"), the author's matching posts and their engagement. */
export interface StoreProfileDay {
  local: string;
  posts: number;
  engagement: number;
}

/**
 * The days of the scope's range on which the profile `authorId` has matching posts: grouped by the time key first
 * (a quarter or a second: time.ts), the groups then mapped to the zone's days, as the saved queries' volume is.
 */
export async function storeProfileDays(
  store: AnalyticsStore,
  scope: StoreScope,
  authorId: number,
): Promise<StoreProfileDay[]> {
  const { context } = scope;
  const params = new StoreParams();
  const zone = zonePlaceholder(context, params);
  const time = timeKey(context.timeZone, context.scope.from, context.scope.to);
  const { from: posts, where } = storeFrom(scope, params, zone, ['q', 'ts', 'author_id', 'engagement']);
  const rows = await store.query<{ local: string; posts: string; engagement: string }>(
    `SELECT ${localBucketSql('day', time.seconds, zone)} AS local, sum(n) AS posts, sum(e) AS engagement
    FROM (SELECT ${time.key} AS k, count() AS n, sum(p.engagement) AS e
      FROM ${posts} WHERE ${where} AND p.author_id = ${params.add(authorId, 'UInt64')} GROUP BY k)
    GROUP BY local`,
    params.values,
  );
  return rows.map((row) => ({
    local: row.local,
    posts: Number(row.posts),
    engagement: Number(row.engagement),
  }));
}

/**
 * Whether the post `postId`, posted at `postedAt`, matches each of `nodes` (a query and its terms), each compiled by
 * `match` as the dashboards compile it; null when the store does not hold the post. One statement on that post alone
 * (its millisecond, widened by one either side for the rounding of PostgreSQL's microseconds).
 */
export async function storeMatchedTerms(
  store: AnalyticsStore,
  match: StoreMatch,
  postId: number,
  postedAt: Date,
  nodes: QueryNode[],
  db = STORE_DATABASE,
): Promise<boolean[] | null> {
  const params = new StoreParams();
  const range = { from: new Date(postedAt.getTime() - 1), to: new Date(postedAt.getTime() + 2) };
  const [row] = await store.query<{ m: Array<number | string> }>(
    `SELECT [${nodes.map((node) => `toUInt8(${match(node, params, range)})`).join(', ')}] AS m
    FROM ${db}.posts p
    WHERE p.ts >= ${params.add(range.from.getTime(), 'Int64')} AND p.ts < ${params.add(range.to.getTime(), 'Int64')}
      AND p.id = ${params.add(postId, 'UInt64')}
    LIMIT 1`,
    params.values,
  );
  return row ? row.m.map((matched) => Number(matched) === 1) : null;
}
