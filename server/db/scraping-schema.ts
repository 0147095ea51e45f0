// The internal scraping area: collection jobs, their runs, each run's log and refused items. The queue
// itself is pg-boss's (its own schema, pgboss, created and migrated by pg-boss at start); these tables are what staff
// see and what makes a run resumable (the job's cursor, written in the same transaction as each page's posts).
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  customType,
  date,
  pgEnum,
  primaryKey,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { CREDENTIAL_KINDS } from '@contract/scraping';
import { users } from './schema';

const bytea = customType<{ data: Buffer }>({ dataType: () => 'bytea' });

export const credentialKind = pgEnum('source_credential_kind', CREDENTIAL_KINDS);

/**
 * Credentials staff enter for the sources that need them (Reddit, YouTube, X). The fields are one JSON object
 * encrypted with AES-256-GCM under SECRETS_KEY (server/scraping/credentials.ts): never stored, returned or logged in
 * the clear. `keyId` names the key that encrypted them (a fingerprint), so a changed key is said in words.
 */
export const sourceCredentials = pgTable('source_credentials', {
  id: uuid('id').primaryKey().defaultRandom(),
  kind: credentialKind('kind').notNull(),
  name: text('name').notNull(),
  /** Version byte, 12-byte IV, 16-byte tag, ciphertext; the credential's id and kind are its associated data. */
  secret: bytea('secret').notNull(),
  keyId: text('key_id').notNull(),
  /** YouTube: the quota units the jobs may spend a day (the project's quota); null for the other kinds. */
  dailyQuota: integer('daily_quota'),
  lastTestAt: timestamp('last_test_at', { withTimezone: true }),
  lastTestOk: boolean('last_test_ok'),
  lastTestMessage: text('last_test_message'),
  createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Quota units spent per credential and quota day (YouTube's day runs midnight to midnight Pacific time). */
export const sourceQuotaUsage = pgTable(
  'source_quota_usage',
  {
    credentialId: uuid('credential_id')
      .notNull()
      .references(() => sourceCredentials.id, { onDelete: 'cascade' }),
    day: date('day').notNull(),
    units: integer('units').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.credentialId, t.day] })],
);

export const scrapeJobs = pgTable(
  'scrape_jobs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    /** mastodon_hashtag, mastodon_account, bluesky_search, feed, upload (contract/scraping.ts). */
    source: text('source').notNull(),
    /** The source's parameters, validated by its schema in contract/scraping.ts. */
    params: jsonb('params').notNull(),
    /** Minutes between runs; null: run once. */
    everyMinutes: integer('every_minutes'),
    /** What staff asked for: active, paused or cancelled (final). */
    state: text('state').notNull().default('active'),
    /**
     * The connector's position: between runs where the next run starts (since_id, since, ETag); during a run the
     * next page as well. Written with each page's posts in one transaction, so a restart resumes exactly there.
     */
    cursor: jsonb('cursor'),
    /** When the scheduler starts the next run; null while a run is under way or when none is due. */
    nextRunAt: timestamp('next_run_at', { withTimezone: true }),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('scrape_jobs_due_idx')
      .on(t.nextRunAt)
      .where(sql`state = 'active'`),
  ],
);

export const scrapeRuns = pgTable(
  'scrape_runs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    jobId: uuid('job_id')
      .notNull()
      .references(() => scrapeJobs.id, { onDelete: 'cascade' }),
    /** queued, running, waiting (rate limit or retry), succeeded, failed, paused, cancelled. */
    status: text('status').notNull().default('queued'),
    /** Pages committed in this run. */
    pages: integer('pages').notNull().default(0),
    fetched: integer('fetched').notNull().default(0),
    inserted: integer('inserted').notNull().default(0),
    updated: integer('updated').notNull().default(0),
    unchanged: integer('unchanged').notNull().default(0),
    refused: integer('refused').notNull().default(0),
    /** Posts the source said were deleted or removed, taken out of the corpus. */
    removed: integer('removed').notNull().default(0),
    /** Pages of results (the page budget counts these; child pages of replies are not counted). */
    resultPages: integer('result_pages').notNull().default(0),
    /** Upload runs: bytes of the file read so far, of its size. */
    bytesDone: bigint('bytes_done', { mode: 'number' }),
    bytesTotal: bigint('bytes_total', { mode: 'number' }),
    /** The pg-boss job carrying the run; null until the dispatcher has sent it (server/scraping/collector.ts). */
    queueJobId: text('queue_job_id'),
    /** Attempts the queue made (retries with backoff after a failure). */
    attempts: integer('attempts').notNull().default(0),
    error: text('error'),
    queuedAt: timestamp('queued_at', { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    /** When the last page was committed (or the run last reported), for "updated live" and stale runs. */
    heartbeatAt: timestamp('heartbeat_at', { withTimezone: true }),
  },
  (t) => [
    index('scrape_runs_job_idx').on(t.jobId, t.queuedAt),
    /** A job has at most one run that is not over (two would write the same cursor). */
    uniqueIndex('scrape_runs_open_idx')
      .on(t.jobId)
      .where(sql`status IN ('queued', 'running', 'waiting', 'paused')`),
    /** Runs the dispatcher still has to send to the queue. */
    index('scrape_runs_unsent_idx')
      .on(t.queuedAt)
      .where(sql`status = 'queued' AND queue_job_id IS NULL`),
  ],
);

export const scrapeLogs = pgTable(
  'scrape_logs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    runId: uuid('run_id')
      .notNull()
      .references(() => scrapeRuns.id, { onDelete: 'cascade' }),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    /** info, warn, error. */
    level: text('level').notNull(),
    message: text('message').notNull(),
  },
  (t) => [index('scrape_logs_run_idx').on(t.runId, t.id)],
);

export const scrapeRefusals = pgTable(
  'scrape_refusals',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    runId: uuid('run_id')
      .notNull()
      .references(() => scrapeRuns.id, { onDelete: 'cascade' }),
    /** The item's id at the source (a status id, an AT URI, a feed entry's guid) or its line in an upload. */
    ref: text('ref').notNull(),
    reason: text('reason').notNull(),
    /** The item as received, cut to 2,000 characters. */
    raw: text('raw'),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('scrape_refusals_run_idx').on(t.runId, t.id)],
);

/**
 * Where each stream consumer resumes (server/scraping/streams: Bluesky's Jetstream): the position of the last event
 * it committed (Jetstream's `time_us`, microseconds since the epoch), written in the same transaction as the posts
 * those events brought, with the events seen, the posts imported and the events refused so far (and the last
 * refusal's reason).
 */
export const streamCursors = pgTable('stream_cursors', {
  /** The stream's name, as the consumer is configured (`bluesky-jetstream`). */
  name: text('name').primaryKey(),
  cursorUs: bigint('cursor_us', { mode: 'number' }).notNull(),
  events: bigint('events', { mode: 'number' }).notNull().default(0),
  /** Posts that matched a tracked query and were written (new or changed). */
  imported: bigint('imported', { mode: 'number' }).notNull().default(0),
  /** Posts the source said were deleted, taken out of the corpus. */
  removed: bigint('removed', { mode: 'number' }).notNull().default(0),
  refused: bigint('refused', { mode: 'number' }).notNull().default(0),
  lastRefusal: text('last_refusal'),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * The Mastodon statuses a stream stored, by the instance's own id (migration 0047): an instance's `delete` event names
 * that id, not the status's URI the corpus keys by, so this is how a stream finds the post to take out. Written with
 * the post in the stream's batch transaction (server/scraping/streams/stream-store.ts), removed with it.
 */
export const mastodonStatusIds = pgTable(
  'mastodon_status_ids',
  {
    /** The instance's origin: https://mastodon.social. */
    instance: text('instance').notNull(),
    /** The status's id on that instance. */
    statusId: text('status_id').notNull(),
    /** The corpus's key for it (posts.external_id): the status's URI. */
    externalId: text('external_id').notNull(),
  },
  (t) => [primaryKey({ name: 'mastodon_status_ids_pkey', columns: [t.instance, t.statusId] })],
);
