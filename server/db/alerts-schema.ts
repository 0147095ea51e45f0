// Alerts (server/alerts): rules on saved queries, the episodes they fire (one event per rule and window), the in-app
// notifications and the e-mail and webhook deliveries of each event, and who muted which rule. Migrations in
// server/db/migrations are generated from this file with the others (drizzle.config.ts).
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uuid,
} from 'drizzle-orm/pg-core';
import { ALERT_CHANNELS, ALERT_KINDS, ALERT_PERIODS } from '@contract/alerts';
import { DIGEST_FREQUENCIES } from '@contract/digests';
import { users, workspaces } from './schema';
import { savedQueries } from './social-schema';

export const alertKind = pgEnum('alert_kind', ALERT_KINDS);
export const alertPeriod = pgEnum('alert_period', ALERT_PERIODS);
export const alertChannel = pgEnum('alert_channel', ALERT_CHANNELS);

export const alertRules = pgTable(
  'alert_rules',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    savedQueryId: uuid('saved_query_id')
      .notNull()
      .references(() => savedQueries.id, { onDelete: 'cascade' }),
    kind: alertKind('kind').notNull(),
    /** The window the rule looks at: the zone's current hour or day, against the ones before it. */
    period: alertPeriod('period').notNull(),
    /**
     * volume: mentions in the window at least this; sentiment_shift: the negative share up by this many points;
     * source_silent: hours a tracked source has been silent.
     */
    threshold: integer('threshold'),
    inApp: boolean('in_app').notNull().default(true),
    email: boolean('email').notNull().default(false),
    /** Who is told (in the app and by e-mail): members of the workspace; those who leave it are skipped. */
    recipientIds: uuid('recipient_ids')
      .array()
      .notNull()
      .default(sql`'{}'::uuid[]`),
    webhookUrl: text('webhook_url'),
    /** The deliveries' signing secret (x-murmur-signature), drawn when the rule is made. */
    webhookSecret: text('webhook_secret').notNull(),
    enabled: boolean('enabled').notNull().default(true),
    /**
     * The last window in which the rule's condition held (or stayed above its release level): an episode goes on while
     * each window's does, and the rule fires again only after a window where it did not (hysteresis).
     */
    episodeWindow: timestamp('episode_window', { withTimezone: true }),
    lastFiredAt: timestamp('last_fired_at', { withTimezone: true }),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('alert_rules_workspace_idx').on(t.workspaceId),
    index('alert_rules_saved_query_idx').on(t.savedQueryId),
    // On the kind's text: a value added to the enum cannot be named as one in the migration's transaction that adds it.
    check(
      'alert_rules_threshold_check',
      sql`CASE ${t.kind}::text WHEN 'spike' THEN ${t.threshold} IS NULL
        WHEN 'volume' THEN ${t.threshold} >= 1
        WHEN 'source_silent' THEN ${t.threshold} BETWEEN 1 AND 168
        ELSE ${t.threshold} BETWEEN 1 AND 100 END`,
    ),
  ],
);

/**
 * One firing of a rule: at most one per rule, window and source, whichever process or restart evaluates it. A
 * source-silent rule's window starts when the source went silent, so each silence of each source is told once.
 */
export const alertEvents = pgTable(
  'alert_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    ruleId: uuid('rule_id')
      .notNull()
      .references(() => alertRules.id, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    windowStart: timestamp('window_start', { withTimezone: true }).notNull(),
    windowEnd: timestamp('window_end', { withTimezone: true }).notNull(),
    /** A source-silent rule's source (its key: bluesky, mastodon:<origin>…); '' for the other kinds. */
    source: text('source').notNull().default(''),
    /** What was counted: the window's mentions and the figures the rule compared them with. */
    figures: jsonb('figures').notNull(),
    title: text('title').notNull(),
    message: text('message').notNull(),
    firedAt: timestamp('fired_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique('alert_events_rule_window_source_key').on(t.ruleId, t.windowStart, t.source),
    index('alert_events_workspace_idx').on(t.workspaceId, t.firedAt),
  ],
);

export const notifications = pgTable(
  'notifications',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    eventId: bigint('event_id', { mode: 'number' })
      .notNull()
      .references(() => alertEvents.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    readAt: timestamp('read_at', { withTimezone: true }),
  },
  (t) => [
    unique('notifications_user_event_key').on(t.userId, t.eventId),
    index('notifications_user_idx').on(t.userId, t.id),
    index('notifications_unread_idx')
      .on(t.userId)
      .where(sql`${t.readAt} IS NULL`),
  ],
);

/** A member who muted a rule is not told of it (in the app or by e-mail); the e-mails' unsubscribe link mutes too. */
export const alertMutes = pgTable(
  'alert_mutes',
  {
    ruleId: uuid('rule_id')
      .notNull()
      .references(() => alertRules.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.userId] })],
);

/**
 * An event's e-mails (one per recipient) and webhook call, written in the event's transaction and sent by the
 * delivery job, retried with backoff until sent or out of attempts.
 */
export const alertDeliveries = pgTable(
  'alert_deliveries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    eventId: bigint('event_id', { mode: 'number' })
      .notNull()
      .references(() => alertEvents.id, { onDelete: 'cascade' }),
    channel: alertChannel('channel').notNull(),
    /** The recipient of an e-mail. */
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    /** Why the last attempt failed (no secrets: a webhook's host, never its URL). */
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('alert_deliveries_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`${t.nextAttemptAt} IS NOT NULL`),
    index('alert_deliveries_event_idx').on(t.eventId),
  ],
);

/**
 * Every attempt to deliver an alert (e-mail or webhook) and every "Send a test", as the Alerts page shows them: when,
 * to whom (an address, or a webhook's host: never its URL), whether it went through, the receiver's status (HTTP, or
 * the SMTP reply's code) and the error in words. The newest ALERT_DELIVERY_LOG_KEPT of each rule are kept.
 */
export const alertDeliveryLog = pgTable(
  'alert_delivery_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    ruleId: uuid('rule_id')
      .notNull()
      .references(() => alertRules.id, { onDelete: 'cascade' }),
    /** The delivery this attempt was of; null for a test. */
    deliveryId: bigint('delivery_id', { mode: 'number' }).references(() => alertDeliveries.id, {
      onDelete: 'set null',
    }),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    channel: alertChannel('channel').notNull(),
    /** An e-mail address, or a webhook's host. */
    recipient: text('recipient').notNull(),
    ok: boolean('ok').notNull(),
    /** The receiver's answer: an HTTP status, or an SMTP reply's code; null when none came (a timeout, a refusal). */
    statusCode: integer('status_code'),
    error: text('error'),
    /** Whether a failure is tried again later (false once given up, and for tests). */
    willRetry: boolean('will_retry').notNull().default(false),
    test: boolean('test').notNull().default(false),
  },
  (t) => [index('alert_delivery_log_rule_idx').on(t.ruleId, t.id)],
);

export const digestFrequency = pgEnum('digest_frequency', DIGEST_FREQUENCIES);

/** Scheduled digests (server/digests): a saved query's figures of each day or week, e-mailed. */
export const digests = pgTable(
  'digests',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    savedQueryId: uuid('saved_query_id')
      .notNull()
      .references(() => savedQueries.id, { onDelete: 'cascade' }),
    frequency: digestFrequency('frequency').notNull(),
    recipientIds: uuid('recipient_ids')
      .array()
      .notNull()
      .default(sql`'{}'`),
    addresses: text('addresses')
      .array()
      .notNull()
      .default(sql`'{}'`),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('digests_workspace_idx').on(t.workspaceId)],
);

/**
 * One digest's period: written once (unique per digest and period, whichever process gets there first), then leased,
 * sent and marked sent. A lease that runs out (a process that died sending) lets another send it.
 */
export const digestSends = pgTable(
  'digest_sends',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    digestId: uuid('digest_id')
      .notNull()
      .references(() => digests.id, { onDelete: 'cascade' }),
    periodStart: timestamp('period_start', { withTimezone: true }).notNull(),
    periodEnd: timestamp('period_end', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    attempts: integer('attempts').notNull().default(0),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    lastError: text('last_error'),
    /** E-mails sent for this period (the workspace's daily cap counts them). */
    messages: integer('messages').notNull().default(0),
  },
  (t) => [unique('digest_sends_period_key').on(t.digestId, t.periodStart)],
);

/**
 * Double opt-in of a digest's outside addresses (not a member's): nothing but the confirmation e-mail goes to an
 * address until it has confirmed, once per workspace. The link's token is random and single-use; only its SHA-256
 * is kept. `requestedAt` is set (with the token) when the confirmation e-mail is claimed for sending.
 */
export const digestConfirmations = pgTable(
  'digest_confirmations',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    /** Lower case. */
    address: text('address').notNull(),
    /** The digest whose scheduling asked for it (its unsubscribe link declines). */
    digestId: uuid('digest_id').references(() => digests.id, { onDelete: 'set null' }),
    tokenHash: text('token_hash').unique(),
    requestedAt: timestamp('requested_at', { withTimezone: true }),
    confirmedAt: timestamp('confirmed_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.address] })],
);
