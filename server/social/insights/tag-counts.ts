// How many posts carry each tag of a workspace (POST /social/insights/tag-counts; Settings › Categories): the tags and
// whether a rule is still tagging are read from PostgreSQL (the record), then their posts counted by the analytics
// store from its post_tags (fed from PostgreSQL's carried rows: server/analytics/figures/categories.ts), as every
// dashboard broken down by a category counts them. A rule done when PostgreSQL was read has written every row it has,
// so the store, read after, counts them once it has applied the feed: until then the answer says up to when it is
// complete (data_as_of, as the dashboards'), and while a rule is still tagging, that its counts will grow (applying).
import { sql } from 'drizzle-orm';
import type { TagCountsResponse } from '@contract/tags';
import type { Db } from '@server/db/database';
import { storeTagPosts } from '@server/analytics/figures/categories';
import { newestPostId } from '@server/tags/apply';
import type { AnalyticsService } from '@server/analytics/service';
import { fromStore } from './store-source';

export async function tagCounts(
  db: Db,
  workspaceId: string,
  service: AnalyticsService | undefined,
): Promise<Omit<TagCountsResponse, 'data_as_of'>> {
  // A rule is done once it has looked at the newest stored post (as the categories' caught_up says).
  const newest = await newestPostId(db);
  const { rows } = await db.execute<{ id: string; applying: boolean }>(
    sql`SELECT t.id::text AS id, coalesce(bool_or(r.cursor < ${newest}), false) AS applying
      FROM tags t LEFT JOIN tag_rules r ON r.tag_id = t.id
      WHERE t.workspace_id = ${workspaceId} GROUP BY t.id ORDER BY t.id`,
  );
  const ids = rows.map((row) => row.id);
  const posts = await fromStore(
    db,
    { timeZone: 'UTC' },
    service,
    (store) => storeTagPosts(store, ids),
    async (_tx, counts) => counts,
  );
  return {
    tags: ids.map((id) => ({ tag_id: id, posts: posts.get(id) ?? 0 })),
    applying: rows.some((row) => row.applying),
  };
}
