// Every post of a list tagged or untagged by hand (issue 55, item 3; POST /social/insights/tag-posts): the ids of the
// posts the list's scope selects, read from the analytics store in one statement (so at one version), then the manual
// rows written in PostgreSQL by the manual API's own path (setManualTag), a batch of TAG_LIST_BATCH posts a
// transaction, each taking the tag's lock. A batch committed stays when a later one fails: tagging is idempotent, so
// asking again finishes the list. A post deleted since the store named it is left out.
import { TAG_LIST_BATCH, TAG_LIST_MAX_POSTS, type TagListProgress } from '@contract/tags';
import { and, eq } from 'drizzle-orm';
import type { Db } from '@server/db/database';
import { tags } from '@server/db/tags-schema';
import { ApiError } from '@server/errors';
import { storeScopePosts } from '@server/analytics/figures/scope-posts';
import type { AnalyticsService } from '@server/analytics/service';
import type { InsightScope } from './request';
import { fromStore } from './store-source';
import { lockTag, setManualTag, tagNotFound } from '@server/tags/store';

/** A 404 tag_not_found unless `tagId` is a tag of the workspace (before the list is read). */
export async function checkTag(db: Db, workspaceId: string, tagId: string): Promise<void> {
  const [tag] = await db
    .select({ id: tags.id })
    .from(tags)
    .where(and(eq(tags.workspaceId, workspaceId), eq(tags.id, tagId)));
  if (!tag) throw tagNotFound();
}

/**
 * The ids of every post of the list (ascending), read from the store at one version; a list of more than `max`
 * (TAG_LIST_MAX_POSTS) posts is refused (409 too_many_posts), before anything is written.
 */
export async function listPostIds(
  db: Db,
  context: InsightScope,
  service: AnalyticsService | undefined,
  max = TAG_LIST_MAX_POSTS,
): Promise<number[]> {
  const { total, ids } = await fromStore(
    db,
    context,
    service,
    (store, scope) => storeScopePosts(store, scope, max),
    async (_tx, posts) => posts,
  );
  if (total > max) {
    throw new ApiError(
      409,
      'too_many_posts',
      `This list has ${total.toLocaleString('en-US')} posts; at most ${max.toLocaleString('en-US')} ` +
        'are tagged at once. Narrow the list, or tag its posts with a rule.',
    );
  }
  return ids;
}

/**
 * Writes the tag (set, or removed) on `ids` a batch (TAG_LIST_BATCH posts) a transaction, giving the progress after
 * each batch (and once before the first): `done` of `total` written, `changed` of them changed.
 */
export async function* tagListPosts(
  db: Db,
  input: { workspaceId: string; tagId: string; tagged: boolean; userId: string; ids: readonly number[] },
  batch = TAG_LIST_BATCH,
): AsyncGenerator<TagListProgress> {
  const total = input.ids.length;
  let changed = 0;
  yield { done: 0, total, changed };
  for (let start = 0; start < total; start += batch) {
    const postIds = input.ids.slice(start, start + batch);
    changed += await db.transaction(async (tx) => {
      const tag = await lockTag(tx, input.workspaceId, input.tagId);
      return setManualTag(tx, {
        workspaceId: input.workspaceId,
        tagId: tag.id,
        postIds,
        tagged: input.tagged,
        userId: input.userId,
        storedOnly: true,
      });
    });
    yield { done: Math.min(start + batch, total), total, changed };
  }
}
