// Tracking a saved query (issue 54): which of the installation's sources collect for it, and per (query, source) what
// the workspace is told about coverage — since when, how far back, the last post, posts per day and the current gap
// with its reason and span. A post collected for a query is stored once in the corpus (keyed by platform and external
// id); these tables only say what was collected for whom. Sources are named by key (server/tracking/sources.ts):
// bluesky, hackernews, reddit, youtube, x, feeds, or mastodon:<instance origin>.
import { sql } from 'drizzle-orm';
import {
  boolean,
  date,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';
import { users } from './schema';
import { savedQueries } from './social-schema';

export const savedQueryTracking = pgTable('saved_query_tracking', {
  savedQueryId: uuid('saved_query_id')
    .primaryKey()
    .references(() => savedQueries.id, { onDelete: 'cascade' }),
  enabled: boolean('enabled').notNull().default(false),
  /** Source keys, in the order chosen. */
  sources: text('sources')
    .array()
    .notNull()
    .default(sql`'{}'::text[]`),
  /** When tracking was last turned on; null while it never was. */
  trackingSince: timestamp('tracking_since', { withTimezone: true }),
  updatedBy: uuid('updated_by').references(() => users.id, { onDelete: 'set null' }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export const trackingCoverage = pgTable(
  'tracking_coverage',
  {
    savedQueryId: uuid('saved_query_id')
      .notNull()
      .references(() => savedQueries.id, { onDelete: 'cascade' }),
    source: text('source').notNull(),
    trackingSince: timestamp('tracking_since', { withTimezone: true }).notNull().defaultNow(),
    /** The oldest post time the backfill reached; null until the first page came. */
    backfilledTo: timestamp('backfilled_to', { withTimezone: true }),
    lastPostAt: timestamp('last_post_at', { withTimezone: true }),
    lastPollAt: timestamp('last_poll_at', { withTimezone: true }),
    /** rate_limited, quota_spent, credentials_missing, unreachable, plan_limit, no_search_words; null: no gap. */
    gapReason: text('gap_reason'),
    /** The gap's sentence, as shown. */
    gapMessage: text('gap_message'),
    gapSince: timestamp('gap_since', { withTimezone: true }),
    /** When the gap is expected to end (a rate limit's reset); null when unknown. */
    gapUntil: timestamp('gap_until', { withTimezone: true }),
    /** Polling sources: the connector's cursor for each search the query compiles to, by its search text. */
    cursors: jsonb('cursors')
      .notNull()
      .default(sql`'{}'::jsonb`),
  },
  (t) => [
    primaryKey({ columns: [t.savedQueryId, t.source] }),
    index('tracking_coverage_source_idx').on(t.source),
  ],
);

/** Posts collected for a query from a source, per UTC day. */
export const trackingCoverageDays = pgTable(
  'tracking_coverage_days',
  {
    savedQueryId: uuid('saved_query_id').notNull(),
    source: text('source').notNull(),
    day: date('day').notNull(),
    posts: integer('posts').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.savedQueryId, t.source, t.day] }),
    foreignKey({
      columns: [t.savedQueryId, t.source],
      foreignColumns: [trackingCoverage.savedQueryId, trackingCoverage.source],
      name: 'tracking_coverage_days_coverage_fk',
    }).onDelete('cascade'),
  ],
);

/**
 * The gaps of a (query, source) that have closed (the source answered again, a stream reopened, a plan limit lifted):
 * their reason, sentence and span, so that coverage says what was missed after it ended, not only while it lasts.
 * The open gap is tracking_coverage's.
 */
export const trackingGaps = pgTable(
  'tracking_gaps',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    savedQueryId: uuid('saved_query_id').notNull(),
    source: text('source').notNull(),
    reason: text('reason').notNull(),
    message: text('message').notNull(),
    since: timestamp('since', { withTimezone: true }).notNull(),
    endedAt: timestamp('ended_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    index('tracking_gaps_coverage_idx').on(t.savedQueryId, t.source, t.endedAt),
    foreignKey({
      columns: [t.savedQueryId, t.source],
      foreignColumns: [trackingCoverage.savedQueryId, trackingCoverage.source],
      name: 'tracking_gaps_coverage_fk',
    }).onDelete('cascade'),
  ],
);

/**
 * The posts a polled source has counted for a (query, source), by external id (the source's platform's key): a post
 * is counted once for each query it matches whichever query's search brought it, and never again when a later page
 * or round brings it back (server/tracking/poll.ts).
 */
export const trackingCounted = pgTable(
  'tracking_counted',
  {
    savedQueryId: uuid('saved_query_id').notNull(),
    source: text('source').notNull(),
    externalId: text('external_id').notNull(),
    countedAt: timestamp('counted_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.savedQueryId, t.source, t.externalId] }),
    foreignKey({
      columns: [t.savedQueryId, t.source],
      foreignColumns: [trackingCoverage.savedQueryId, trackingCoverage.source],
      name: 'tracking_counted_coverage_fk',
    }).onDelete('cascade'),
  ],
);
