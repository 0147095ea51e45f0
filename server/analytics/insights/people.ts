// The people dashboard's figures from the store: the same rows as PostgreSQL's people statement
// (server/social/insights/people.ts): the number of distinct authors of the matching posts, their posts, and the top
// `limit` by mentions (then engagement, then the lower id), by followers (then mentions, then id) and by engagement
// (then mentions, then id), each from one pass over the authors (groupArraySorted).
import type { PersonAggregate } from '@server/social/insights/rows';
import { STORE_DATABASE } from '../layout';
import { StoreParams } from '../params';
import type { AnalyticsStore } from '../store';
import { storeWhere, zonePlaceholder, type StoreScope } from './scope';

export interface StorePeopleRows {
  /** Distinct authors of the matching posts (with a profile, as PostgreSQL's join). */
  authors: number;
  /** Their matching posts. */
  posts: number;
  by_mentions: PersonAggregate[];
  by_followers: PersonAggregate[];
  by_engagement: PersonAggregate[];
}

type Top = Array<[string | number, string | number, string | number]>;

/** Each top's tuples are (key, tie-break, id, …) negated for a descending sort: read back as aggregates. */
/** Undoes a sort key's negation: 0 − x, so no figure is −0 (which is not 0 to a deep comparison). */
const negate = (x: number) => 0 - x;

const aggregates = (top: Top, order: (t: [number, number, number]) => PersonAggregate) =>
  top.map((t) => order([Number(t[0]), Number(t[1]), Number(t[2])]));

export async function storePeople(
  store: AnalyticsStore,
  scope: StoreScope,
  limit: number,
): Promise<StorePeopleRows> {
  const { context, db = STORE_DATABASE } = scope;
  const params = new StoreParams();
  const where = storeWhere(scope, params, zonePlaceholder(context, params));
  const n = Number(limit);
  const [row] = await store.query<{
    authors: string;
    posts: string;
    by_mentions: Top;
    by_followers: Top;
    by_engagement: Top;
  }>(
    `SELECT count() AS authors, sum(g.n) AS posts,
      groupArraySorted(${n})((-toInt64(g.n), -toInt64(g.e), g.author_id)) AS by_mentions,
      arrayMap(t -> (t.3, t.2, t.4), groupArraySorted(${n})((-toInt64(a.followers), -toInt64(g.n), g.author_id, g.e)))
        AS by_followers,
      arrayMap(t -> (t.3, t.2, t.1), groupArraySorted(${n})((-toInt64(g.e), -toInt64(g.n), g.author_id)))
        AS by_engagement
    FROM (SELECT p.author_id AS author_id, count() AS n, sum(p.engagement) AS e
      FROM ${db}.posts p WHERE ${where} GROUP BY author_id) g
    INNER JOIN ${db}.profiles a ON a.id = g.author_id`,
    params.values,
  );
  return {
    authors: Number(row?.authors ?? 0),
    posts: Number(row?.posts ?? 0),
    by_mentions: aggregates(row?.by_mentions ?? [], ([n, e, id]) => ({
      author_id: id,
      mentions: negate(n),
      engagement: negate(e),
    })),
    // (id, −mentions, engagement) and (id, −mentions, −engagement), as arranged above.
    by_followers: aggregates(row?.by_followers ?? [], ([id, n, e]) => ({
      author_id: id,
      mentions: negate(n),
      engagement: e,
    })),
    by_engagement: aggregates(row?.by_engagement ?? [], ([id, n, e]) => ({
      author_id: id,
      mentions: negate(n),
      engagement: negate(e),
    })),
  };
}
