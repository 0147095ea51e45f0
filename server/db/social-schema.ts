// The social corpus (profiles, posts) and saved queries. Migrations in server/db/migrations are generated from this
// file and schema.ts; the pg_trgm extension is created by a hand-written migration before these tables (for a
// trigram index that migration 0011 replaced by the grams index, which 0033 dropped).
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  real,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { PLATFORM_VALUES } from '@contract/social-scope';
import { users, workspaces } from './schema';

/** The contract's platforms (contract/social-scope.ts): one list for the database enum, the API and the SPA. */
export const PLATFORMS = PLATFORM_VALUES;
export const POST_KINDS = ['original', 'reply', 'repost', 'quote'] as const;
export const MEDIA_TYPES = ['text', 'image', 'video', 'link'] as const;
export const SENTIMENT_LABELS = ['positive', 'neutral', 'negative'] as const;

export const platform = pgEnum('platform', PLATFORMS);
export const postKind = pgEnum('post_kind', POST_KINDS);
export const mediaType = pgEnum('media_type', MEDIA_TYPES);
export const sentimentLabel = pgEnum('sentiment_label', SENTIMENT_LABELS);

export const profiles = pgTable(
  'profiles',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    platform: platform('platform').notNull(),
    externalId: text('external_id').notNull(),
    handle: text('handle').notNull(),
    displayName: text('display_name').notNull(),
    followers: integer('followers').notNull().default(0),
    following: integer('following').notNull().default(0),
    verified: boolean('verified').notNull().default(false),
    bio: text('bio').notNull().default(''),
    /** ISO 3166-1 alpha-2, upper case; null when unknown. */
    country: text('country'),
    /** BCP 47 primary language subtag (en, ko, ja, es, …); null when unknown. */
    language: text('language'),
    avatarUrl: text('avatar_url'),
  },
  (t) => [
    uniqueIndex('profiles_platform_external_idx').on(t.platform, t.externalId),
    index('profiles_handle_idx').on(sql`lower(${t.handle})`),
  ],
);

/** A post's columns but its id: posts' own, and the change path's corpus_added (migration 0016). */
export function postColumns() {
  return {
    platform: platform('platform').notNull(),
    externalId: text('external_id').notNull(),
    authorId: bigint('author_id', { mode: 'number' })
      .notNull()
      // A profile goes with its posts only through corpus_delete_profiles; a plain DELETE of a profile that still
      // has posts is refused.
      .references(() => profiles.id, { onDelete: 'restrict' }),
    text: text('text').notNull(),
    language: text('language'),
    postedAt: timestamp('posted_at', { withTimezone: true }).notNull(),
    kind: postKind('kind').notNull().default('original'),
    media: mediaType('media').notNull().default('text'),
    likes: integer('likes').notNull().default(0),
    comments: integer('comments').notNull().default(0),
    shares: integer('shares').notNull().default(0),
    views: bigint('views', { mode: 'number' }),
    url: text('url'),
    /** Lower case, without '#'. */
    hashtags: text('hashtags')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** Lower case, without '@'. */
    mentions: text('mentions')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** Registrable host names of links, lower case. */
    domains: text('domains')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** Lexicon score normalised to [-1, 1]; an estimate, computed on import. */
    sentiment: real('sentiment').notNull().default(0),
    sentimentLabel: sentimentLabel('sentiment_label').notNull().default('neutral'),
    /**
     * The version of the scorer that gave the sentiment (sentimentModelVersion(); migration 0037): 'unknown' for
     * posts stored before it, and for any writer that leaves it out, so the background rescan scores them again.
     */
    sentimentModel: text('sentiment_model').notNull().default('unknown'),
    /**
     * Whether the text gave enough to rate (issue 53 item 4; sentimentRated() in sentiment-explain.ts): false for a
     * post with no word nor emoji, or fewer than 3 and labelled neutral ("not rated", counted apart by the dashboards).
     * Null for posts stored before migration 0041 and any writer that leaves it out: counted as rated until the
     * background rescan sets it.
     */
    sentimentRated: boolean('sentiment_rated'),
    /** Likes + comments + shares: the engagement every dashboard counts. */
    engagement: integer('engagement')
      .notNull()
      .generatedAlwaysAs(sql`likes + comments + shares`),
  };
}

/**
 * Posts, partitioned by month of `posted_at` (UTC) since migration 0016: `posts_YYYY_MM` partitions made by the
 * ingestion path as it needs them (and a few months ahead by the server's housekeeping), dropped whole by retention.
 * A partitioned table's keys contain the partition key, so the primary key is (id, posted_at) and the external key
 * (platform, external_id) is kept unique by `post_keys`. Every write goes through the corpus's change path
 * (server/social/corpus/changes.ts, the `corpus_*` SQL functions), which keeps `post_keys`, the corpus version and the
 * analytics store's outbox exact in the writer's transaction: no triggers (docs/scaling-citus.md §3). Figures are the
 * analytics store's (server/analytics), which splits the text into words itself: since migrations 0033 and 0034 no
 * rollup, per-author row, search vector or analytic index is kept here.
 */
export const posts = pgTable(
  'posts',
  {
    id: bigint('id', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    ...postColumns(),
    /**
     * The near-duplicate key (migration 0039): the MD5 of the text lower-cased without links, mentions, punctuation
     * and whitespace (the SQL function post_text_key), null when nothing is left. Posts with the same key inherit a
     * workspace's correction of any of them (server/social/corrections.ts).
     */
    textKey: uuid('text_key').generatedAlwaysAs(sql`post_text_key(text)`),
  },
  (t) => [
    primaryKey({ name: 'posts_pkey', columns: [t.id, t.postedAt] }),
    index('posts_text_key_idx').on(t.textKey),
    /** A profile's posts, which its deletion (corpus_delete_profiles) looks up. */
    index('posts_author_posted_idx').on(t.authorId, t.postedAt),
  ],
);

/**
 * The posts' external keys (migration 0016): unique across every partition of posts, which a partitioned table's own
 * indexes cannot be (they contain the partition key). Written by the change path with the post itself.
 */
export const postKeys = pgTable(
  'post_keys',
  {
    platform: platform('platform').notNull(),
    externalId: text('external_id').notNull(),
    id: bigint('id', { mode: 'number' }).notNull(),
    postedAt: timestamp('posted_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    primaryKey({ name: 'post_keys_pkey', columns: [t.platform, t.externalId] }),
    /** Retention deletes the keys of the months it drops. */
    index('post_keys_posted_idx').on(t.postedAt),
    /**
     * A post's month from its id (migration 0019): a post's page reads it by id, and only its month's partition is
     * then read (the id alone would probe every month's primary key).
     */
    index('post_keys_id_idx').on(t.id, t.postedAt),
  ],
);

export const savedQueries = pgTable(
  'saved_queries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    query: text('query').notNull(),
    /** { platforms?: string[], languages?: string[], from?: ISO date, to?: ISO date } */
    filters: jsonb('filters')
      .notNull()
      .default(sql`'{}'::jsonb`),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('saved_queries_workspace_idx').on(t.workspaceId),
    /** Names are unique in a workspace regardless of case (409 name_taken). */
    uniqueIndex('saved_queries_workspace_name_idx').on(t.workspaceId, sql`lower(${t.name})`),
  ],
);

/**
 * A post's sentiment as corrected by a person in one workspace (owners and managers; server/social/corrections.ts).
 * It holds for that workspace only and counts in all its figures instead of the post's own label. It is kept apart
 * from the post, keyed by the post's id (a re-import or a collector's update keeps a post's id), so re-imports and
 * rebuilds of the analytics store leave it alone: the store is given a workspace's corrections with each statement.
 */
export const sentimentCorrections = pgTable(
  'sentiment_corrections',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    postId: bigint('post_id', { mode: 'number' }).notNull(),
    label: sentimentLabel('label').notNull(),
    correctedBy: uuid('corrected_by').references(() => users.id, { onDelete: 'set null' }),
    correctedAt: timestamp('corrected_at', { withTimezone: true }).notNull().defaultNow(),
    /** The corrected post's near-duplicate key when corrected (posts.text_key, migration 0039). */
    textKey: uuid('text_key'),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.postId] }),
    index('sentiment_corrections_text_key_idx').on(t.workspaceId, t.textKey),
  ],
);

/**
 * The rescan of the corpus to one sentiment model version (server/social/corpus/rescan.ts, migration 0037): posts are
 * rescored in id order in batches, each batch committing its posts, `cursor` (every post up to it is done) and a row
 * of sentiment_rescan_batches together, so a rescan killed at any point resumes where its last batch committed.
 */
export const sentimentRescans = pgTable('sentiment_rescans', {
  model: text('model').primaryKey(),
  /** A pass runs over the ids once; another follows while posts of another version are left below the cursor. */
  pass: integer('pass').notNull().default(1),
  cursor: bigint('cursor', { mode: 'number' }).notNull().default(0),
  /** Posts of another version when the rescan began (raised when a pass finds more). */
  total: bigint('total', { mode: 'number' }).notNull().default(0),
  /** Posts rescored so far. */
  done: bigint('done', { mode: 'number' }).notNull().default(0),
  startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  finishedAt: timestamp('finished_at', { withTimezone: true }),
});

/** Each committed batch of a rescan: ids after_id < id <= last_id, how many were rescored and how many changed. */
export const sentimentRescanBatches = pgTable(
  'sentiment_rescan_batches',
  {
    model: text('model')
      .notNull()
      .references(() => sentimentRescans.model, { onDelete: 'cascade' }),
    pass: integer('pass').notNull(),
    afterId: bigint('after_id', { mode: 'number' }).notNull(),
    lastId: bigint('last_id', { mode: 'number' }).notNull(),
    rescored: integer('rescored').notNull(),
    changed: integer('changed').notNull(),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.model, t.pass, t.afterId] })],
);

/**
 * Read-only share links (server/sharing): one dashboard view anyone holding the link may open without signing in,
 * until it expires or is revoked. Only the token's SHA-256 is kept; the view is the dashboard's request as made.
 */
export const shareLinks = pgTable(
  'share_links',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    /** SHA-256 of the token, hexadecimal. */
    tokenHash: text('token_hash').notNull(),
    /** The maker's name for the link, to tell links to the same view apart (contract: 1 to 80 characters). */
    name: text('name'),
    dashboard: text('dashboard').notNull(),
    /**
     * 'link': a share link people open; 'report': the few minutes' link a PDF report is printed from (never listed,
     * deleted once printed: server/sharing/report.ts).
     */
    purpose: text('purpose').notNull().default('link'),
    /** The dashboard's request without workspace and cursor (contract/share-links.ts, sharedViewSchema). */
    view: jsonb('view').notNull(),
    rolling: boolean('rolling').notNull().default(false),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    lastOpenedAt: timestamp('last_opened_at', { withTimezone: true }),
    opens: integer('opens').notNull().default(0),
  },
  (t) => [
    uniqueIndex('share_links_token_idx').on(t.tokenHash),
    index('share_links_workspace_idx').on(t.workspaceId, t.createdAt),
    check('share_links_name_length', sql`char_length(${t.name}) BETWEEN 1 AND 80`),
  ],
);

/**
 * One row: the corpus's version, raised by the corpus's change path (migration 0016) in the transaction of every
 * change of posts or profiles, so a reader sees the new version exactly when it sees the new
 * posts. The dashboards' answer cache (server/social/insights/answer-cache.ts) keys its answers by it.
 */
export const corpusState = pgTable(
  'corpus_state',
  {
    /** Always true: the table holds one row. */
    id: boolean('id').primaryKey().default(true),
    version: bigint('version', { mode: 'number' }).notNull().default(0),
    changedAt: timestamp('changed_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [check('corpus_state_one_row', sql`${t.id}`)],
);
