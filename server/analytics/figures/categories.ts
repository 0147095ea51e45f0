// A scope's posts counted per tag of a category (server/social/insights/categories.ts): the posts the scope selects
// (storeFrom: the query's token slices or the range's posts, each post once) joined with the store's post_tags slices
// of the category's tags, in one statement; and the scope's posts and those with any of the tags. And each tag's posts
// in the whole store, by its slice of post_tags (storeTagPosts: the settings' counts).
import type { AnalyticsStore } from '../store';
import { StoreParams } from '../params';
import { STORE_DATABASE } from '../layout';
import { storeFrom, zonePlaceholder, type StoreScope } from './scope';

/** The tag of the grouping set of no key (ClickHouse's default UUID): no tag's id (random, version 4). */
const NIL_UUID = '00000000-0000-0000-0000-000000000000';

export interface StoreCategoryCounts {
  posts: number;
  tagged: number;
  /** Posts per tag id, for the tags some post of the scope carries. */
  byTag: Map<string, number>;
}

export async function storeCategoryCounts(
  store: AnalyticsStore,
  scope: StoreScope,
  tagIds: readonly string[],
): Promise<StoreCategoryCounts> {
  const db = scope.db ?? STORE_DATABASE;
  const params = new StoreParams();
  const zone = zonePlaceholder(scope.context, params);
  const { from, where } = storeFrom(scope, params, zone, ['id']);
  const tags = params.add(tagIds, 'Array(UUID)');
  // The category's rows of the scope's posts are read once: counted per tag, and over all the tags (the grouping set
  // of no key, whose tag is the nil UUID, which no tag has). Read twice (a CTE is written into each statement that
  // names it), they took most of the time: at 10M, 9.2 million rows of 20 tags. Posts are counted each once by a
  // bitmap of their ids (exact, as uniqExact is): over every post of 90 days at 10M (3.9 million of them tagged) the
  // statement took 0.83-1.2 s with uniqExact's hash sets, 0.61-0.66 s with groupBitmap.
  const rows = await store.query<{ t: string; n: string }>(
    `WITH scoped AS (SELECT p.id AS id FROM ${from} WHERE ${where})
    SELECT '' AS t, count() AS n FROM scoped
    UNION ALL SELECT if(tag = toUUID('${NIL_UUID}'), '*', toString(tag)) AS t, groupBitmap(post) AS n
      FROM ${db}.post_tags WHERE tag IN ${tags} AND post IN (SELECT id FROM scoped)
      GROUP BY GROUPING SETS ((tag), ())`,
    params.values,
  );
  const byTag = new Map<string, number>();
  let posts = 0;
  let tagged = 0;
  for (const row of rows) {
    if (row.t === '') posts = Number(row.n);
    else if (row.t === '*') tagged = Number(row.n);
    else byTag.set(row.t, Number(row.n));
  }
  return { posts, tagged, byTag };
}

/** How many posts carry each of `tagIds` now, in the whole store (Settings › Categories); none: absent. */
export async function storeTagPosts(
  store: AnalyticsStore,
  tagIds: readonly string[],
): Promise<Map<string, number>> {
  if (!tagIds.length) return new Map();
  const params = new StoreParams();
  const tags = params.add(tagIds, 'Array(UUID)');
  // Not aliased `tag`: ClickHouse would read the WHERE's `tag` as the alias (text), not the column.
  const rows = await store.query<{ id: string; n: string }>(
    `SELECT toString(tag) AS id, toString(groupBitmap(post)) AS n FROM ${STORE_DATABASE}.post_tags WHERE tag IN
    ${tags} GROUP BY tag`,
    params.values,
  );
  return new Map(rows.map((row) => [row.id, Number(row.n)]));
}
