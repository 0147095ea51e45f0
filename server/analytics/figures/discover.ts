// Discover's figures from the store: one page's posts, as ids, and on the first page the authors with the most
// matching posts, which discover then looks up by id in PostgreSQL (server/social/discover/search.ts; the page's posts
// ordered by queries.ts pageQuery). The page is found as the post lists' pages are (posts.ts): by engagement, the page
// itself in PostgreSQL's order; by recency, its candidates (whole milliseconds of posts, as the store keeps time),
// which PostgreSQL orders to the microsecond and cuts to the page after the cursor.
import type { DiscoverSort } from '@contract/discover';
import { DISCOVER_PROFILES } from '@contract/discover';
import { STORE_DATABASE } from '../layout';
import { StoreParams } from '../params';
import { timeLimit } from '../refusals';
import type { AnalyticsStore } from '../store';
import { byEngagement, recencyCandidates } from './posts';
import { storeFrom, zonePlaceholder, type StoreScope } from './scope';

/** Where a page starts: after the last post of the one before (its sort key and id), or at the top. */
interface StorePageKey {
  sort: DiscoverSort;
  /** recency: posted_at to the microsecond ("…T12:34:56.123456Z"); engagement: the engagement count. */
  cursor: { k: string | number; id: number } | null;
  /** The page's length (one more row is read, to know whether a next page exists). */
  limit: number;
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
   * The page's posts by id: by engagement, the page itself (limit + 1 at most) in order; by recency, its candidates,
   * which PostgreSQL orders and cuts to the page.
   */
  ids: number[];
  /** The first page's top authors (most matching posts, then followers, then the lower id); null after it. */
  profiles: StoreDiscoverProfile[] | null;
}

/** The authors with the most matching posts: counted per author, then the profiles joined for the ties' followers. */
async function profilesOf(store: AnalyticsStore, scope: StoreScope, timeoutMs: number) {
  const { context, db = STORE_DATABASE } = scope;
  const params = new StoreParams();
  const { from: posts, where } = storeFrom(scope, params, zonePlaceholder(context, params), [
    'author_id',
    'engagement',
  ]);
  const rows = await store.query<{ author_id: string; matching_posts: string; engagement: string }>(
    `SELECT toString(m.author_id) AS author_id, m.n AS matching_posts, m.e AS engagement
    FROM (SELECT p.author_id AS author_id, count() AS n, sum(p.engagement) AS e
      FROM ${posts} WHERE ${where} GROUP BY author_id) m
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
  { sort, cursor, limit, timeoutMs }: StorePageKey,
): Promise<StoreDiscoverRows> {
  const after = cursor && { key: String(cursor.k), ties: [cursor.id] };
  // Sent together: the store's process runs them as its engine allows.
  const [ids, profiles] = await Promise.all([
    sort === 'recency'
      ? recencyCandidates(store, scope, limit, after, timeoutMs)
      : byEngagement(store, scope, limit, after, timeoutMs).then((rows) => rows.map((row) => row.id)),
    cursor ? null : profilesOf(store, scope, timeoutMs),
  ]);
  return { ids, profiles };
}
