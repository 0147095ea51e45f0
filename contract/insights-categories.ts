// A dashboard broken down by a category (POST /social/insights/categories, issue 55 item 3): the scope's posts counted
// per tag of one of the workspace's categories, with the posts that carry none of them. A post carrying two of the
// category's tags is counted under each (the tags' posts may add up to more than the tagged posts). Every tag is a
// drill-down: the `tag` refinement with its id. Shared by the SPA and the server.
import * as z from 'zod/mini';
import { insightsBodySchema } from './insights';
import { answerBase } from './insights-responses';

/** The most tags a category's breakdown lists (a category has few; the rest are counted in `tagged`). */
const CATEGORY_TAGS_MAX = 100;

/** The overview's body (query, filters, refinements) and the category to break it down by. */
export const categoryBreakdownBodySchema = z.extend(insightsBodySchema, {
  category_id: z.uuid({ error: 'category_id is a category of the workspace (its id)' }),
  limit: z._default(z.int().check(z.gte(1), z.lte(CATEGORY_TAGS_MAX)), CATEGORY_TAGS_MAX),
});

const categoryTagSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** Posts of the scope that carry the tag. */
  posts: z.int(),
  /** posts ÷ the scope's posts (0 when it has none). */
  share: z.number(),
});

export const categoryBreakdownResponseSchema = z.object({
  ...answerBase,
  category: z.object({ id: z.string(), name: z.string() }),
  /** The category's tags, most posts first, then by name; tags no post of the scope carries included (0). */
  tags: z.array(categoryTagSchema),
  /** The scope's posts. */
  posts: z.int(),
  /** Posts that carry at least one of the category's tags. */
  tagged: z.int(),
  /** Posts that carry none of them: posts − tagged. */
  untagged: z.int(),
});
export type CategoryBreakdownResponse = z.infer<typeof categoryBreakdownResponseSchema>;
