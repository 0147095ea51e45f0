// A workspace's categories and tags (internal API, issue 55 item 3): a category is a set of tags; a tag is set on posts
// by hand (one or many at once) or by a rule, a query in Murmur's language applied to past posts and to new ones as they
// arrive. Manual tags win over rules; removing a rule removes only what it set. Members read; owners and managers write.
import * as z from 'zod/mini';
import { insightsBodySchema } from './insights';
import { postTagSchema } from './social-posts';
import { storableText } from './text';
import { workspaceIdSchema } from './workspaces';

const MAX_TAG_NAME = 60;

/** "Category › Tag": how a tag is named wherever it is shown (chips, counted sentences, exports, lists' readers). */
export const tagLabel = (category: string, tag: string) => `${category} › ${tag}`;
/** Posts tagged or untagged in one request. */
const MAX_TAGGED_POSTS = 1000;

const nameSchema = storableText().check(
  z.trim(),
  z.minLength(1, { error: 'Enter a name' }),
  z.maxLength(MAX_TAG_NAME, { error: `Use at most ${MAX_TAG_NAME} characters` }),
);
const postIdSchema = z.number().check(z.int(), z.positive(), z.lte(Number.MAX_SAFE_INTEGER));

export const tagNameBodySchema = z.strictObject({ name: nameSchema });
/** A rule's query as typed (checked like a saved query's, against the workspace's lists: 400 invalid_query). */
export const tagRuleBodySchema = z.strictObject({ query: storableText() });
export const tagPostsBodySchema = z.strictObject({
  post_ids: z.array(postIdSchema).check(z.minLength(1), z.maxLength(MAX_TAGGED_POSTS)),
  /** true sets the tag on the posts, false removes it (a removal that rules cannot undo). */
  tagged: z.boolean(),
});

export const categoryParamsSchema = z.object({ id: workspaceIdSchema, categoryId: z.uuid() });
export const tagParamsSchema = z.object({ id: workspaceIdSchema, tagId: z.uuid() });
export const ruleParamsSchema = z.object({ id: workspaceIdSchema, ruleId: z.uuid() });
export const postTagsParamsSchema = z.object({
  id: workspaceIdSchema,
  postId: z.coerce.number().check(z.int(), z.positive(), z.lte(Number.MAX_SAFE_INTEGER)),
});

export const tagRuleResponseSchema = z.object({
  id: z.string(),
  tag_id: z.string(),
  query: z.string(),
  /** Whether the rule has been applied to every post stored so far (past posts are tagged in the background). */
  caught_up: z.boolean(),
  /**
   * How its past matches were found: `store` (read from the analytics store at once), `matcher` (post by post: the
   * store could not answer, `past_note` says why), null before its first pass has begun.
   */
  past_from: z.nullable(z.enum(['store', 'matcher'])),
  past_note: z.nullable(z.string()),
});
export type TagRuleResponse = z.infer<typeof tagRuleResponseSchema>;

export const tagResponseSchema = z.object({
  id: z.string(),
  category_id: z.string(),
  name: z.string(),
  rules: z.array(tagRuleResponseSchema),
});
export type TagResponse = z.infer<typeof tagResponseSchema>;

export const categoryResponseSchema = z.object({
  id: z.string(),
  name: z.string(),
  tags: z.array(tagResponseSchema),
});
export type TagCategoryResponse = z.infer<typeof categoryResponseSchema>;

export const categoriesResponseSchema = z.object({ categories: z.array(categoryResponseSchema) });
export type TagCategoriesResponse = z.infer<typeof categoriesResponseSchema>;

/** How many posts carry each tag of a workspace (POST /social/insights/tag-counts): a figure, the analytics store's. */
export const tagCountsBodySchema = z.object({ workspace_id: workspaceIdSchema });

export const tagCountsResponseSchema = z.object({
  /** Every tag of the workspace, by id: the posts carrying it now (0 for a tag no post carries). */
  tags: z.array(z.object({ tag_id: z.string(), posts: z.int() })),
  /** Some rule of the workspace has not yet looked at every stored post: its tag's count will grow. */
  applying: z.boolean(),
  /**
   * Set while the store is behind PostgreSQL (a rule's past matches still on their way): the counts are complete up
   * to this instant (ISO 8601).
   */
  data_as_of: z.optional(z.nullable(z.string())),
});
export type TagCountsResponse = z.infer<typeof tagCountsResponseSchema>;

export const postTagsResponseSchema = z.object({ post_id: z.int(), tags: z.array(postTagSchema) });
export type PostTagsResponse = z.infer<typeof postTagsResponseSchema>;

export const tagPostsResponseSchema = z.object({ changed: z.int() });

/** The most posts of a list one request tags or untags (POST /social/insights/tag-posts); a rule tags more. */
export const TAG_LIST_MAX_POSTS = 100_000;
/** Posts written per transaction when every post of a list is tagged: the manual API's own limit. */
export const TAG_LIST_BATCH = MAX_TAGGED_POSTS;

/**
 * Every post of a list tagged or untagged by hand: the list's request (a dashboard's: saved query or query, filters,
 * refinements; a list's sort, cursor and limit are ignored), the tag, and whether it is set or removed.
 */
export const tagListBodySchema = z.extend(insightsBodySchema, {
  tag_id: z.uuid({ error: 'A tag is its id (a UUID)' }),
  tagged: z.boolean(),
});
export type TagListBody = z.input<typeof tagListBodySchema>;

/**
 * A line of the answer (NDJSON, one after each batch written): of the `total` posts the list held when the store was
 * read, `done` are written, and `changed` of them changed their hand-set state. The last line has done = total.
 */
export const tagListProgressSchema = z.object({ done: z.int(), total: z.int(), changed: z.int() });
export type TagListProgress = z.infer<typeof tagListProgressSchema>;
