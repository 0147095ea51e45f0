// Discover's figures from the store: one page's posts in the sort's order, as ids, and on the first page the authors
// with the most matching posts (server/social/discover/queries.ts: pageQuery and profilesQuery), so that discover
// looks the posts and profiles up by id in PostgreSQL and formats either source's rows alike.
//
// The engagement order, (engagement, id) descending, is the store's exactly. The recency order is PostgreSQL's
// (posted_at, id) with posted_at to the microsecond, where the store keeps the millisecond (`ts`, rounded down): two
// posts of one millisecond may be in another order there. So the store gives the page's candidates, whole
// milliseconds at a time: the posts of the cursor's millisecond (some of them come after the cursor, some before, which
// only the microseconds tell) and the first `rows` posts before that millisecond with every post of the last one's
// (LIMIT … WITH TIES); PostgreSQL puts the candidates in its order, after the cursor, and keeps the first `rows`.
// That is the page PostgreSQL finds: every post before the cursor is of its millisecond or an earlier one, and any
// post of an earlier millisecond that is among its first `rows` is among the store's first `rows` by millisecond or
// ties the last of them.
import type { DiscoverSort } from '@contract/discover';
import { DISCOVER_PROFILES } from '@contract/discover';
import { STORE_DATABASE } from '../layout';
import { StoreParams } from '../params';
import { timeLimit, type AnalyticsStore } from '../store';
import { storeWhere, zonePlaceholder, type StoreRange, type StoreScope } from './scope';

/** Where a page starts: after the last post of the one before (its sort key and id), or at the top. */
export interface StorePageKey {
  sort: DiscoverSort;
  /** recency: posted_at to the microsecond ("…T12:34:56.123456Z"); engagement: the engagement count. */
  cursor: { k: string | number; id: number } | null;
  /** The rows the page reads: its length and one more (to know whether a next page exists). */
  rows: number;
  /** Each statement is cancelled past this (isStoreTimeout). */
  timeoutMs: number;
}

/** An author's aggregate over every matching post. */
interface StoreDiscoverProfile {
  author_id: string;
  matching_posts: number;
  engagement: number;
}

export interface StoreDiscoverRows {
  /**
   * The page's posts by id: for engagement, the page itself in order; for recency, its candidates (whole
   * milliseconds), which PostgreSQL orders and cuts to the page.
   */
  ids: number[];
  /** The first page's top authors (most matching posts, then followers, then the lower id); null after it. */
  profiles: StoreDiscoverProfile[] | null;
}

/** The millisecond of a posted_at written to the microsecond (its first 23 characters, rounded down). */
const millisecondOf = (micros: string) => Date.parse(`${micros.slice(0, 23)}Z`);

/** The intersection of two ranges, or null when it is empty. */
function within(range: StoreRange, from: number, to: number): StoreRange | null {
  const [lo, hi] = [Math.max(range.from.getTime(), from), Math.min(range.to.getTime(), to)];
  return lo < hi ? { from: new Date(lo), to: new Date(hi) } : null;
}

/** The page's ids, or its candidates' (see the top of this file), as one statement; null when none can match. */
function pageStatement(scope: StoreScope, key: StorePageKey, params: StoreParams): string | null {
  const { context, db = STORE_DATABASE } = scope;
  const zone = zonePlaceholder(context, params);
  const rows = Number(key.rows);
  const posts = (range: StoreRange) => `${db}.posts p WHERE ${storeWhere(scope, params, zone, range)}`;
  if (key.sort === 'engagement') {
    const after = key.cursor
      ? ` AND (p.engagement < ${params.add(key.cursor.k, 'Int64')} OR (p.engagement = ${params.add(
          key.cursor.k,
          'Int64',
        )} AND p.id < ${params.add(key.cursor.id, 'UInt64')}))`
      : '';
    return `SELECT p.id AS id FROM ${posts(context.scope)}${after}
      ORDER BY p.engagement DESC, p.id DESC LIMIT ${rows}`;
  }
  const parts: string[] = [];
  let earlier: StoreRange | null = context.scope;
  if (key.cursor) {
    const ms = millisecondOf(String(key.cursor.k));
    const tied = within(context.scope, ms, ms + 1);
    if (tied) parts.push(`SELECT p.id AS id FROM ${posts(tied)}`);
    earlier = within(context.scope, -Infinity, ms);
  }
  if (earlier) {
    parts.push(
      `SELECT id FROM (SELECT p.id AS id, p.ts AS ts FROM ${posts(earlier)} ORDER BY p.ts DESC LIMIT ${rows} WITH TIES)`,
    );
  }
  return parts.length ? parts.join(' UNION ALL ') : null;
}

async function pageOf(store: AnalyticsStore, scope: StoreScope, key: StorePageKey): Promise<number[]> {
  const params = new StoreParams();
  const statement = pageStatement(scope, key, params);
  if (!statement) return [];
  const rows = await store.query<{ id: string }>(
    `SELECT id FROM (${statement}) ${timeLimit(key.timeoutMs)}`,
    params.values,
  );
  return rows.map((row) => Number(row.id));
}

/** As profilesQuery: counted per author, then the profiles joined for the followers that break ties. */
async function profilesOf(store: AnalyticsStore, scope: StoreScope, timeoutMs: number) {
  const { context, db = STORE_DATABASE } = scope;
  const params = new StoreParams();
  const where = storeWhere(scope, params, zonePlaceholder(context, params));
  const rows = await store.query<{ author_id: string; matching_posts: string; engagement: string }>(
    `SELECT toString(m.author_id) AS author_id, m.n AS matching_posts, m.e AS engagement
    FROM (SELECT p.author_id AS author_id, count() AS n, sum(p.engagement) AS e
      FROM ${db}.posts p WHERE ${where} GROUP BY author_id) m
    INNER JOIN ${db}.profiles a ON a.id = m.author_id
    ORDER BY m.n DESC, a.followers DESC, m.author_id ASC
    LIMIT ${Number(DISCOVER_PROFILES)} ${timeLimit(timeoutMs)}`,
    params.values,
  );
  return rows.map((row) => ({
    author_id: row.author_id,
    matching_posts: Number(row.matching_posts),
    engagement: Number(row.engagement),
  }));
}

/** Discover's rows from the store for one page (and, on the first, its profiles); the posts still to be looked up. */
export async function storeDiscover(
  store: AnalyticsStore,
  scope: StoreScope,
  key: StorePageKey,
): Promise<StoreDiscoverRows> {
  // Sent together: the store's process runs them as its engine allows.
  const [ids, profiles] = await Promise.all([
    pageOf(store, scope, key),
    key.cursor ? null : profilesOf(store, scope, key.timeoutMs),
  ]);
  return { ids, profiles };
}
