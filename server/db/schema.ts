// The internal API's tables (Drizzle pg-core). Migrations in server/db/migrations are generated from this file.
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();

export const privilege = pgEnum('privilege', ['owner', 'manager', 'viewer']);

export const users = pgTable('users', {
  id: uuid('id').primaryKey().defaultRandom(),
  email: text('email').notNull(),
  firstName: text('first_name'),
  lastName: text('last_name'),
  isStaff: boolean('is_staff').notNull().default(false),
  /**
   * Raised by triggers (migration 0017) whenever what users/me answers for this user changes: their own row, a
   * membership of theirs, or a workspace they belong to. users/me keeps its answer per user with this version and
   * re-reads only when it moved.
   */
  profileVersion: bigint('profile_version', { mode: 'number' }).notNull().default(0),
  createdAt: createdAt(),
});

/** A person is known by (vendor, tenant, subject) of their ID token, never by e-mail. */
export const identities = pgTable(
  'identities',
  {
    vendor: text('vendor').notNull(),
    tenant: text('tenant').notNull().default(''),
    subject: text('subject').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.vendor, t.tenant, t.subject] }),
    index('identities_user_idx').on(t.userId),
  ],
);

export const workspaces = pgTable('workspaces', {
  id: text('id')
    .primaryKey()
    .default(sql`gen_random_uuid()::text`),
  name: text('name').notNull(),
  language: text('language').notNull().default('en'),
  plan: text('plan').notNull().default('trial'),
  /** Null means the plan does not expire. */
  planExpiredAt: timestamp('plan_expired_at', { withTimezone: true }),
  isInternal: boolean('is_internal').notNull().default(false),
  /** IANA time zone every chart and export of the workspace is stated in. */
  timeZone: text('time_zone').notNull().default('UTC'),
  createdAt: createdAt(),
});

export const memberships = pgTable(
  'memberships',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    privilege: privilege('privilege').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.userId] }), index('memberships_user_idx').on(t.userId)],
);

/** Opaque refresh tokens, stored only as SHA-256 hashes; one family per sign-in, rotated on every use. */
export const refreshTokens = pgTable(
  'refresh_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    familyId: uuid('family_id').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull().unique(),
    createdAt: createdAt(),
    /** The family's absolute end: rotation never extends a sign-in past it. */
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    rotatedAt: timestamp('rotated_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [
    index('refresh_tokens_family_idx').on(t.familyId),
    // Housekeeping deletes ended families by their end (server/housekeeping.ts).
    index('refresh_tokens_expires_idx').on(t.expiresAt),
  ],
);

/** Single-use nonces the server issues for sign-in; the ID token must carry one. */
export const loginNonces = pgTable('login_nonces', {
  nonce: text('nonce').primaryKey(),
  createdAt: createdAt(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true }),
});

export const invites = pgTable(
  'invites',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull().unique(),
    createdBy: uuid('created_by')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    privilege: privilege('privilege').notNull().default('viewer'),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    maxUses: integer('max_uses'),
    uses: integer('uses').notNull().default(0),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [index('invites_workspace_idx').on(t.workspaceId)],
);

/** One short, human-typable join code per workspace; rotating it replaces the row (and lifts a lock). */
export const joinCodes = pgTable(
  'join_codes',
  {
    workspaceId: text('workspace_id')
      .primaryKey()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    code: text('code').notNull().unique(),
    createdAt: createdAt(),
    /** Set once too many wrong codes near this one were tried (server/invites/guessing.ts); rotating clears it. */
    lockedAt: timestamp('locked_at', { withTimezone: true }),
  },
  // The codes near a wrong one: those sharing its first or its last group of four.
  (t) => [
    index('join_codes_head_idx').on(sql`left(${t.code}, 4)`),
    index('join_codes_tail_idx').on(sql`right(${t.code}, 4)`),
  ],
);

/** Wrong join codes of the last day (server/invites/guessing.ts): by whom, and their two groups of four. */
export const joinCodeMisses = pgTable(
  'join_code_misses',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    head: text('head').notNull(),
    tail: text('tail').notNull(),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('join_code_misses_user_idx').on(t.userId, t.at),
    index('join_code_misses_head_idx').on(t.head, t.at),
    index('join_code_misses_tail_idx').on(t.tail, t.at),
  ],
);
