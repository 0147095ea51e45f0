// The people dashboard's figures from the store (server/social/insights/people.ts looks their authors up): the number
// of distinct authors of the matching posts, their posts, and the top `limit` by mentions (then engagement, then the
// lower id), by followers (then mentions, then id) and by engagement (then mentions, then id), each from one pass over
// the authors (groupArraySorted); and the filtered profiles' keyset page in the same order (storeProfilePage).
import type { ProfileSort } from '@contract/insights';
import { STORE_DATABASE } from '../layout';
import { StoreParams } from '../params';
import type { AnalyticsStore } from '../store';
import { storeFrom, zonePlaceholder, type Cursor, type StoreScope } from './scope';

/** An author's aggregate over the matching posts: the profile is looked up by id in PostgreSQL. */
export type PersonAggregate = {
  author_id: string | number;
  mentions: string | number;
  engagement: string | number;
};

/** The people dashboard's figures. */
export type PeopleFigures = {
  /** Distinct authors of the matching posts (with a profile). */
  authors: number;
  /** Their matching posts. */
  posts: number;
  by_mentions: PersonAggregate[];
  by_followers: PersonAggregate[];
  by_engagement: PersonAggregate[];
};

/**
 * One page of the filtered profiles: the number of authors, and up to `limit + 1` of them after the cursor in the
 * sort's order, each with its sort key as text (`k`, what a cursor carries) and its tie-break (`k2`).
 */
export type ProfilePage = {
  total: number;
  page: Array<PersonAggregate & { k: string; k2: number | string }>;
};

type Top = Array<[string | number, string | number, string | number]>;

/** Each top's tuples are (key, tie-break, id, …) negated for a descending sort: read back as aggregates. */
/** Undoes a sort key's negation: 0 − x, so no figure is −0 (which is not 0 to a deep comparison). */
const negate = (x: number) => 0 - x;

/** The columns of the posts the per-author statements read besides their condition's. */
const PERSON_COLUMNS = ['author_id', 'engagement'];

const aggregates = (top: Top, order: (t: [number, number, number]) => PersonAggregate) =>
  top.map((t) => order([Number(t[0]), Number(t[1]), Number(t[2])]));

export async function storePeople(
  store: AnalyticsStore,
  scope: StoreScope,
  limit: number,
): Promise<PeopleFigures> {
  const { context, db = STORE_DATABASE } = scope;
  const params = new StoreParams();
  const { from: posts, where } = storeFrom(scope, params, zonePlaceholder(context, params), PERSON_COLUMNS);
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
      FROM ${posts} WHERE ${where} GROUP BY author_id) g
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

/**
 * Each sort's key and tie-break, as the columns of the statement below (n: the author's matching posts, e: their
 * engagement, f: their followers), then the lower id.
 */
const PROFILE_KEYS: Record<ProfileSort, [string, string]> = {
  mentions: ['n', 'e'],
  followers: ['f', 'n'],
  engagement: ['e', 'n'],
};

/**
 * One keyset page of the filtered profiles: the number of distinct authors of the matching posts (with a profile),
 * and up to `limit + 1` of them after the cursor's (key, tie-break, id) in the sort's order (key and tie-break
 * descending, id ascending), from one pass over the authors (groupArraySortedIf keeps the first ones after the
 * cursor; count() counts them all). The key as text, the tie-break as a number.
 */
export async function storeProfilePage(
  store: AnalyticsStore,
  scope: StoreScope,
  sort: ProfileSort,
  limit: number,
  cursor: Cursor | null,
): Promise<ProfilePage> {
  const { context, db = STORE_DATABASE } = scope;
  const params = new StoreParams();
  const { from: posts, where } = storeFrom(scope, params, zonePlaceholder(context, params), PERSON_COLUMNS);
  const [key, tie] = PROFILE_KEYS[sort];
  const size = params.add(limit + 1, 'UInt64');
  // Descending keys, ascending id: the tuple negates the keys, and the cursor's comparison negates the id.
  const order = `(-${key}, -${tie}, author_id, n, e)`;
  const page = cursor
    ? `groupArraySortedIf(${size})(${order}, (${key}, ${tie}, -toInt64(author_id)) < ` +
      `(${params.add(Number(cursor.key), 'Int64')}, ${params.add(cursor.ties[0], 'Int64')}, ` +
      `${params.add(-cursor.ties[1]!, 'Int64')}))`
    : `groupArraySorted(${size})(${order})`;
  const [row] = await store.query<{ total: string; page: Array<[string, string, string, string, string]> }>(
    `SELECT count() AS total, ${page} AS page
    FROM (SELECT g.author_id AS author_id, toInt64(g.n) AS n, toInt64(g.e) AS e, toInt64(a.followers) AS f
      FROM (SELECT p.author_id AS author_id, count() AS n, sum(p.engagement) AS e
        FROM ${posts} WHERE ${where} GROUP BY author_id) g
      INNER JOIN ${db}.profiles a ON a.id = g.author_id)`,
    params.values,
  );
  return {
    total: Number(row?.total ?? 0),
    page: (row?.page ?? []).map(([k, k2, id, n, e]) => ({
      author_id: id,
      mentions: Number(n),
      engagement: Number(e),
      k: String(negate(Number(k))),
      k2: negate(Number(k2)),
    })),
  };
}
