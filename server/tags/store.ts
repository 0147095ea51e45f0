// A workspace's categories and tags in the database: what the settings read (categories, their tags and rules; each
// tag's posts are the analytics store's figure: server/social/insights/tag-counts.ts), the tags a post carries, and a
// person setting or removing a tag on posts. A post carries a tag when its manual row (rule_id null) says so, or,
// without one, when a rule set it: the manual row decides alone, so a removal by hand sticks whatever rules match, and
// a rule's rows are only its own (migration 0042).
import { and, asc, eq, sql } from 'drizzle-orm';
import type { PostTag } from '@contract/social-posts';
import type { TagCategoryResponse, TagRuleResponse } from '@contract/tags';
import { tagCategories, tagRules, tags } from '@server/db/tags-schema';
import { ApiError } from '@server/errors';
import { isUniqueViolation } from '@server/invites/secrets';
import type { Executor } from '@server/workspaces/access';
import { CARRIED_WHERE, ofPosts } from './carried';

/** Below the writing routes' minimum (managers; see server/workspaces/route-access.ts). */
export const tagsDenied = () =>
  new ApiError(403, 'forbidden', 'Only owners and managers can change categories and tags.');
export const categoryNotFound = () =>
  new ApiError(404, 'category_not_found', 'There is no such category in this workspace.');
export const tagNotFound = () =>
  new ApiError(404, 'tag_not_found', 'There is no such tag in this workspace.');
export const ruleNotFound = () =>
  new ApiError(404, 'rule_not_found', 'There is no such rule in this workspace.');
export const nameTaken = (name: string, where: string) =>
  new ApiError(409, 'name_taken', `${where} already has one named ${name}.`);

/** The rows of post_tags (alias `pt`) by which a post carries their tag (carried.ts). */
const CARRIED = sql.raw(CARRIED_WHERE);
/** The rows of a page's posts (`page`: their ids, the workspace's rules), as `pt`. */
const PAGE_ROWS = sql.raw(ofPosts('(SELECT ids FROM page)', '(SELECT rules FROM page)'));

export async function categoriesOf(
  db: Executor,
  workspaceId: string,
  newestPost: number,
): Promise<TagCategoryResponse[]> {
  const [categories, tagRows, rules] = await Promise.all([
    db
      .select()
      .from(tagCategories)
      .where(eq(tagCategories.workspaceId, workspaceId))
      .orderBy(asc(sql`lower(${tagCategories.name})`)),
    db
      .select()
      .from(tags)
      .where(eq(tags.workspaceId, workspaceId))
      .orderBy(asc(sql`lower(${tags.name})`)),
    db.select().from(tagRules).where(eq(tagRules.workspaceId, workspaceId)).orderBy(asc(tagRules.createdAt)),
  ]);
  return categories.map((category) => ({
    id: category.id,
    name: category.name,
    tags: tagRows
      .filter((tag) => tag.categoryId === category.id)
      .map((tag) => ({
        id: tag.id,
        category_id: category.id,
        name: tag.name,
        rules: rules
          .filter((rule) => rule.tagId === tag.id)
          .map((rule) => ruleResponse(rule, rule.cursor >= newestPost)),
      })),
  }));
}

/** A rule as the API gives it; `caughtUp`: every stored post has been looked at. */
export const ruleResponse = (rule: typeof tagRules.$inferSelect, caughtUp: boolean): TagRuleResponse => ({
  id: rule.id,
  tag_id: rule.tagId,
  query: rule.query,
  caught_up: caughtUp,
  past_from: rule.pastFrom,
  past_note: rule.pastNote,
});

/**
 * The tags the posts `ids` carry in the workspace, by post, each post's by category then tag name (what a post card,
 * the post's tags and an export's `tags` column show). Posts without a tag are not in the map.
 */
export async function tagsOfPosts(
  db: Executor,
  workspaceId: string,
  ids: readonly number[],
): Promise<Map<number, PostTag[]>> {
  if (!ids.length) return new Map();
  const { rows } = await db.execute<{
    post_id: string;
    tag_id: string;
    name: string;
    category_id: string;
    category: string;
    manual: boolean;
  }>(
    sql`WITH page AS (SELECT ${`{${ids.join(',')}}`}::bigint[] AS ids,
        ARRAY(SELECT id FROM tag_rules WHERE workspace_id = ${workspaceId}) AS rules)
      SELECT pt.post_id::text AS post_id, t.id::text AS tag_id, t.name, c.id::text AS category_id,
        c.name AS category, bool_or(pt.rule_id IS NULL) AS manual
      FROM ${PAGE_ROWS} JOIN tags t ON t.id = pt.tag_id JOIN tag_categories c ON c.id = t.category_id
      WHERE pt.workspace_id = ${workspaceId} AND ${CARRIED}
      GROUP BY pt.post_id, t.id, t.name, c.id, c.name ORDER BY pt.post_id, lower(c.name), lower(t.name)`,
  );
  const byPost = new Map<number, PostTag[]>();
  for (const row of rows) {
    const post = Number(row.post_id);
    const tag: PostTag = {
      tag_id: row.tag_id,
      name: row.name,
      category_id: row.category_id,
      category: row.category,
      set_by: row.manual ? 'manual' : 'rule',
    };
    byPost.set(post, [...(byPost.get(post) ?? []), tag]);
  }
  return byPost;
}

/** The workspace's tag `tagId` locked for the write, or a 404. */
export async function lockTag(tx: Executor, workspaceId: string, tagId: string) {
  const [tag] = await tx
    .select()
    .from(tags)
    .where(and(eq(tags.workspaceId, workspaceId), eq(tags.id, tagId)))
    .for('update');
  if (!tag) throw tagNotFound();
  return tag;
}

/** The posts among `postIds` that are stored. */
async function storedPosts(tx: Executor, postIds: readonly number[]): Promise<Set<number>> {
  const { rows } = await tx.execute<{ id: string }>(
    sql`SELECT DISTINCT id::text AS id FROM post_keys WHERE id = ANY(${`{${postIds.join(',')}}`}::bigint[])`,
  );
  return new Set(rows.map((row) => Number(row.id)));
}

/**
 * A person sets (tagged) or removes the tag on posts, in the caller's transaction: each post's manual row written,
 * a removal kept as a row (removed) so that no rule sets the tag again. A tag is only set on stored posts: a post not
 * stored is a 404 post_not_found naming the first, or, with `storedOnly`, left out (a list's post deleted since the
 * store named it). Returns the posts whose manual row changed.
 */
export async function setManualTag(
  tx: Executor,
  input: {
    workspaceId: string;
    tagId: string;
    postIds: readonly number[];
    tagged: boolean;
    userId: string;
    storedOnly?: boolean;
  },
): Promise<number> {
  const asked = [...new Set(input.postIds)];
  const found = await storedPosts(tx, asked);
  const missing = asked.find((id) => !found.has(id));
  if (missing !== undefined && !input.storedOnly)
    throw new ApiError(404, 'post_not_found', `There is no post ${missing}.`);
  const postIds = asked.filter((id) => found.has(id));
  if (!postIds.length) return 0;
  const removed = !input.tagged;
  const { rows } = await tx.execute<{ post_id: string }>(
    sql`INSERT INTO post_tags (workspace_id, post_id, tag_id, set_by, removed, user_id)
      SELECT ${input.workspaceId}, unnest(${`{${postIds.join(',')}}`}::bigint[]), ${input.tagId}::uuid, 'manual',
        ${removed}, ${input.userId}::uuid
      ON CONFLICT (manual_tag_id, post_id) WHERE manual_tag_id IS NOT NULL DO UPDATE
        SET removed = excluded.removed, user_id = excluded.user_id, set_at = now()
        WHERE post_tags.removed IS DISTINCT FROM excluded.removed
      RETURNING post_id::text`,
  );
  return rows.length;
}

/** A rename's statement, a name another category (or tag of the category) has answered 409 name_taken. */
export async function uniqueName<T>(name: string, where: string, rename: () => Promise<T>): Promise<T> {
  try {
    return await rename();
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken(name, where);
    throw error;
  }
}
