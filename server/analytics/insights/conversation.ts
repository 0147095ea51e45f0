// The conversation dashboard's hashtags, mentioned accounts and linked domains from the store: the same rows as
// PostgreSQL's conversationTags (server/social/insights/sources/posts-scan.ts): posts of the range carrying each (an
// element repeated in a post counts once), most first, ties in code-point order (ClickHouse compares strings by
// bytes, as COLLATE "C" does), from one pass over the matching posts. The words, sampled, are not on the store yet.
import { STORE_DATABASE } from '../layout';
import { StoreParams } from '../params';
import type { AnalyticsStore } from '../store';
import { storeWhere, zonePlaceholder, type StoreScope } from './scope';

export interface StoreTagsRows {
  hashtags: Array<{ value: string; posts: number }>;
  mentions: Array<{ value: string; posts: number }>;
  domains: Array<{ value: string; posts: number }>;
}

const LISTS = ['hashtags', 'mentions', 'domains'] as const;

export async function storeConversationTags(
  store: AnalyticsStore,
  scope: StoreScope,
  limit: number,
): Promise<StoreTagsRows> {
  const { context, db = STORE_DATABASE } = scope;
  const params = new StoreParams();
  const where = storeWhere(scope, params, zonePlaceholder(context, params));
  const rows = await store.query<{ list: number; value: string; posts: string }>(
    `SELECT t.1 AS list, t.2 AS value, count() AS posts
    FROM (SELECT arrayJoin(arrayConcat(arrayMap(x -> (0, x), arrayDistinct(p.hashtags)),
        arrayMap(x -> (1, x), arrayDistinct(p.mentions)), arrayMap(x -> (2, x), arrayDistinct(p.domains)))) AS t
      FROM ${db}.posts p WHERE ${where})
    GROUP BY list, value
    ORDER BY list, posts DESC, value
    LIMIT ${Number(limit)} BY list`,
    params.values,
  );
  const lists: StoreTagsRows = { hashtags: [], mentions: [], domains: [] };
  for (const row of rows) lists[LISTS[row.list]!].push({ value: row.value, posts: Number(row.posts) });
  return lists;
}
