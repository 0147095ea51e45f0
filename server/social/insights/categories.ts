// A dashboard broken down by a category of the workspace (POST /social/insights/categories; contract/insights-
// categories.ts): the scope's posts counted per tag of the category by the store (its post_tags, fed from
// PostgreSQL's: server/analytics/figures/categories.ts), and the posts that carry none of them. The category and its
// tags are read from PostgreSQL (the record); the counts are the store's.
import { and, asc, eq, sql } from 'drizzle-orm';
import type { CategoryBreakdownResponse } from '@contract/insights-categories';
import type { Db } from '@server/db/database';
import { tagCategories, tags } from '@server/db/tags-schema';
import { storeCategoryCounts } from '@server/analytics/figures/categories';
import type { AnalyticsService } from '@server/analytics/service';
import { categoryNotFound } from '@server/tags/store';
import { countedBase } from './counted';
import type { InsightScope } from './request';
import { fromStore } from './store-source';

export async function categoryBreakdown(
  db: Db,
  context: InsightScope,
  workspaceId: string,
  categoryId: string,
  limit: number,
  service?: AnalyticsService,
): Promise<CategoryBreakdownResponse> {
  const [category] = await db
    .select({ id: tagCategories.id, name: tagCategories.name })
    .from(tagCategories)
    .where(and(eq(tagCategories.id, categoryId), eq(tagCategories.workspaceId, workspaceId)));
  if (!category) throw categoryNotFound();
  const tagRows = await db
    .select({ id: tags.id, name: tags.name })
    .from(tags)
    .where(eq(tags.categoryId, category.id))
    .orderBy(asc(sql`lower(${tags.name})`));
  const counts = await fromStore(
    db,
    context,
    service,
    (store, scope) =>
      storeCategoryCounts(
        store,
        scope,
        tagRows.map((tag) => tag.id),
      ),
    async (_tx, rows) => rows,
    // Its statement names the scope's posts twice: a long query's matches are found once (match-sets.ts).
    { shareMatches: true },
  );
  const { scope, timeZone } = context;
  const listed = tagRows
    .map((tag) => {
      const posts = counts.byTag.get(tag.id) ?? 0;
      return { id: tag.id, name: tag.name, posts, share: counts.posts ? posts / counts.posts : 0 };
    })
    .sort((a, b) => b.posts - a.posts || a.name.localeCompare(b.name))
    .slice(0, limit);
  return {
    time_zone: timeZone,
    range: { from: scope.from.toISOString(), to: scope.to.toISOString() },
    query: context.normalized,
    counted:
      `${countedBase(context)}. Broken down by the category "${category.name}": a post is counted under each of its ` +
      'tags that it carries now (set by a person, or by a rule and not removed by a person), so the tags may add ' +
      'up to more than the tagged posts; untagged posts carry none of them.',
    category,
    tags: listed,
    posts: counts.posts,
    tagged: counts.tagged,
    untagged: counts.posts - counts.tagged,
  };
}
