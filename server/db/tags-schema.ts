// A workspace's categories and tags (issue 55, item 3; server/tags): a category ("Topic", "Complaint type") is a set of
// tags; a tag is set on posts by a person (manual) or by a rule, a query in Murmur's language applied to past posts and
// to new ones as they arrive. A post carries a tag in a workspace when a person set it, or when a rule set it and no
// person removed it: a manual row (rule_id null) decides alone, its `removed` recording a removal that rules cannot
// undo; rule rows are each rule's own, so removing a rule removes only what it set.
import { sql } from 'drizzle-orm';
import {
  bigint,
  bit,
  boolean,
  check,
  index,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { users, workspaces } from './schema';

export const tagCategories = pgTable(
  'tag_categories',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    /** Names are unique in a workspace regardless of case (409 name_taken). */
    uniqueIndex('tag_categories_workspace_name_idx').on(t.workspaceId, sql`lower(${t.name})`),
  ],
);

export const tags = pgTable(
  'tags',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** The category's workspace, kept beside it: every read and write of a tag is scoped by workspace. */
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    categoryId: uuid('category_id')
      .notNull()
      .references(() => tagCategories.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    /** Names are unique in a category regardless of case. */
    uniqueIndex('tags_category_name_idx').on(t.categoryId, sql`lower(${t.name})`),
    index('tags_workspace_idx').on(t.workspaceId),
  ],
);

/**
 * A tag's rule: a query (saved as typed, checked against the workspace's lists) whose matches carry the tag. `cursor`
 * is the last post id the rule has been applied to (server/tags/apply.ts): posts are taken in id order, and writers
 * of the corpus take turns, so every post above it is one the rule has yet to see, past or new.
 */
export const tagRules = pgTable(
  'tag_rules',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    tagId: uuid('tag_id')
      .notNull()
      .references(() => tags.id, { onDelete: 'cascade' }),
    query: text('query').notNull(),
    cursor: bigint('cursor', { mode: 'number' }).notNull().default(0),
    /**
     * How its past matches were found (migration 0048): 'store' (read from the analytics store at once), 'matcher'
     * (post by post, the store unable to answer: `pastNote` says why), null until the first pass has begun.
     */
    pastFrom: text('past_from', { enum: ['store', 'matcher'] }),
    /** Why the analytics store did not give the past matches (a sentence), when it did not. */
    pastNote: text('past_note'),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('tag_rules_tag_idx').on(t.tagId),
    index('tag_rules_workspace_idx').on(t.workspaceId),
    /** What a rule row's one foreign key names: its rule and that rule's tag (migration 0049). */
    uniqueIndex('tag_rules_id_tag_idx').on(t.id, t.tagId),
  ],
);

/**
 * A rule's past matches (server/social/insights/rule-past.ts) by range of 4,096 post ids (migration 0057): bit o of
 * `bits` (0 the leftmost) set when the rule matches post `start + o`. 1.33 million matches are 2,442 rows. Read with
 * post_tags's rule rows (server/tags/carried.ts; the view `post_tag_rows`); named to the analytics store's feed by
 * their triggers; a removed post's bits cleared with its rows (`rule_post_ranges_forget`).
 */
export const rulePostRanges = pgTable(
  'rule_post_ranges',
  {
    ruleId: uuid('rule_id')
      .notNull()
      .references(() => tagRules.id, { onDelete: 'cascade' }),
    start: bigint('start', { mode: 'number' }).notNull(),
    bits: bit('bits', { dimensions: 4096 }).notNull(),
  },
  (t) => [
    primaryKey({ name: 'rule_post_ranges_pkey', columns: [t.ruleId, t.start] }),
    index('rule_post_ranges_start_idx').on(t.start),
    check('rule_post_ranges_start_check', sql`${t.start} >= 0 AND ${t.start} % 4096 = 0`),
  ],
);

/**
 * A post's tag in a workspace. A rule's past matches are written by the hundred thousand, and a key is a look-up a
 * row, queued even for a null column (migrations 0049, 0050, 0054): so no key is declared here. A statement's rows are
 * checked once (`post_tags_check`): the rules, manual rows' tags (`manual_tag_id`, null on rule rows) and people they
 * name are locked as a key locks them, then looked up once each, the errors still the keys' (post_tags_rule_tag_fk,
 * post_tags_manual_tag_fk, post_tags_user_id_users_id_fk). Deleting a workspace, category, tag or rule deletes its
 * rows by triggers (`tag_rules_rows_delete`, `tags_manual_rows_delete`; a workspace's tags and rules go with it by
 * their keys), a deleted person's rows name no one (`users_tag_rows_unname`), and no rule's, tag's or person's id
 * changes.
 */
export const postTags = pgTable(
  'post_tags',
  {
    workspaceId: text('workspace_id').notNull(),
    postId: bigint('post_id', { mode: 'number' }).notNull(),
    tagId: uuid('tag_id').notNull(),
    /** manual (a person; rule_id null) or rule (rule_id set). */
    setBy: text('set_by').notNull(),
    ruleId: uuid('rule_id'),
    /** A manual row's tag, null on a rule row: what the manual rows' key and unique index are on. */
    manualTagId: uuid('manual_tag_id').generatedAlwaysAs(sql`CASE WHEN rule_id IS NULL THEN tag_id END`),
    /** A manual removal: the post does not carry the tag whatever rules say. Manual rows only. */
    removed: boolean('removed').notNull().default(false),
    /** Who set a manual row (null on rule rows, and once that person is deleted): checked as manual_tag_id is. */
    userId: uuid('user_id'),
    setAt: timestamp('set_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('post_tags_manual_idx')
      .on(t.manualTagId, t.postId)
      .where(sql`${t.manualTagId} IS NOT NULL`),
    uniqueIndex('post_tags_rule_idx')
      .on(t.ruleId, t.postId)
      .where(sql`${t.ruleId} IS NOT NULL`),
    /**
     * The analytics store's feed reads the tags a round's posts carry, whatever their workspace (migration 0044), and
     * a page of posts its workspace's. No index leads with the workspace (migration 0051): a rule's past matches are
     * written by the hundred thousand, and its (text, post) entries cost 30 % of their write; a workspace's rows are
     * found by its rules and tags (`post_tags_rule_idx`, `post_tags_manual_idx`). For the same reason this index holds
     * the manual rows only (migration 0055): a post's rule rows are found by `post_tags_rule_idx` (`ofPosts`,
     * server/tags/carried.ts).
     */
    index('post_tags_post_idx')
      .on(t.postId)
      .where(sql`${t.ruleId} IS NULL`),
    /** A deleted person's rows, to leave them naming no one (migration 0054): manual rows only. */
    index('post_tags_user_idx')
      .on(t.userId)
      .where(sql`${t.userId} IS NOT NULL`),
    check(
      'post_tags_set_by_check',
      sql`(${t.setBy} = 'manual' AND ${t.ruleId} IS NULL) OR (${t.setBy} = 'rule' AND ${t.ruleId} IS NOT NULL AND NOT ${t.removed})`,
    ),
  ],
);
