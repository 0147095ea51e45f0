// Plans and billing (server/billing) and the built-in payment provider (server/payments). Migrations in
// server/db/migrations are generated from this file with the other schema files.
import { sql } from 'drizzle-orm';
import {
  boolean,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { users, workspaces } from './schema';

const at = (name: string) => timestamp(name, { withTimezone: true });
const createdAt = () => at('created_at').notNull().defaultNow();

/**
 * One per workspace: its plan's billing state. `workspaces.plan` and `plan_expired_at` are kept in step with it (the
 * workspace guard reads those). `next_run_at` is when the billing job (server/billing/job.ts) next looks at the row.
 */
export const subscriptions = pgTable(
  'subscriptions',
  {
    workspaceId: text('workspace_id')
      .primaryKey()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    planId: text('plan_id').notNull(),
    /** Null while trialing. */
    interval: text('interval', { enum: ['month', 'year'] }),
    status: text('status', { enum: ['trialing', 'active', 'past_due', 'canceled', 'expired'] }).notNull(),
    periodStart: at('period_start'),
    periodEnd: at('period_end'),
    cancelAtPeriodEnd: boolean('cancel_at_period_end').notNull().default(false),
    /** A downgrade waiting for the period's end. */
    scheduledPlanId: text('scheduled_plan_id'),
    scheduledInterval: text('scheduled_interval', { enum: ['month', 'year'] }),
    pastDueSince: at('past_due_since'),
    nextRunAt: at('next_run_at'),
    /** The payment provider's customer and saved card (references, never card numbers). */
    provider: text('provider'),
    customerRef: text('customer_ref'),
    paymentMethodRef: text('payment_method_ref'),
    cardBrand: text('card_brand'),
    cardLast4: text('card_last4'),
    cardExpMonth: integer('card_exp_month'),
    cardExpYear: integer('card_exp_year'),
    billingEmail: text('billing_email').notNull().default(''),
    billingName: text('billing_name').notNull().default(''),
    addressLine1: text('address_line1').notNull().default(''),
    addressLine2: text('address_line2').notNull().default(''),
    postalCode: text('postal_code').notNull().default(''),
    city: text('city').notNull().default(''),
    country: text('country').notNull().default(''),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('subscriptions_next_run_idx')
      .on(t.nextRunAt)
      .where(sql`${t.nextRunAt} is not null`),
  ],
);

/** A payment: a checkout, a renewal or a prorated upgrade. Applied to the subscription once, on a verified webhook. */
export const payments = pgTable(
  'payments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['subscribe', 'renewal', 'upgrade'] }).notNull(),
    planId: text('plan_id').notNull(),
    interval: text('interval', { enum: ['month', 'year'] }).notNull(),
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    status: text('status', {
      enum: ['open', 'processing', 'requires_action', 'paid', 'failed', 'expired'],
    }).notNull(),
    provider: text('provider').notNull(),
    providerRef: text('provider_ref'),
    checkoutUrl: text('checkout_url'),
    failureMessage: text('failure_message'),
    /** Charges tried (a failed renewal is tried again daily, each try with its own idempotency key). */
    attempts: integer('attempts').notNull().default(0),
    /** A renewal's period (the one it pays for); its start is unique per workspace so a renewal is made once. */
    periodStart: at('period_start'),
    /** The provider's time of the newest event applied: older events that arrive later change nothing. */
    lastEventAt: at('last_event_at'),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('payments_workspace_idx').on(t.workspaceId, t.createdAt),
    uniqueIndex('payments_renewal_idx')
      .on(t.workspaceId, t.periodStart)
      .where(sql`${t.kind} = 'renewal'`),
  ],
);

/** Every paid payment gets one invoice, numbered in order. */
export const invoices = pgTable(
  'invoices',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    paymentId: uuid('payment_id')
      .notNull()
      .unique()
      .references(() => payments.id, { onDelete: 'cascade' }),
    number: text('number').notNull().unique(),
    issuedAt: at('issued_at').notNull().defaultNow(),
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    status: text('status', { enum: ['paid', 'open', 'void'] }).notNull(),
    description: text('description').notNull(),
    /** Who was billed and with what, as they were when the invoice was issued. */
    billedTo: jsonb('billed_to').notNull(),
  },
  (t) => [index('invoices_workspace_idx').on(t.workspaceId, t.issuedAt)],
);

/** Webhook events already handled, per provider: one handled twice changes nothing. */
export const billingEvents = pgTable(
  'billing_events',
  {
    provider: text('provider').notNull(),
    eventId: text('event_id').notNull(),
    type: text('type').notNull(),
    receivedAt: at('received_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.eventId] })],
);

/** Monthly volumes (dashboard requests, exports) per workspace and month of its time zone. */
export const usageCounters = pgTable(
  'usage_counters',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    metric: text('metric').notNull(),
    month: date('month').notNull(),
    count: integer('count').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.metric, t.month] })],
);

// The built-in payment provider's own records (server/payments): what a card payment provider keeps.

/** A saved card: its brand and last four digits, and how the test card behaves when charged again. */
export const providerPaymentMethods = pgTable('provider_payment_methods', {
  id: text('id').primaryKey(),
  customerId: text('customer_id').notNull(),
  brand: text('brand').notNull(),
  last4: text('last4').notNull(),
  expMonth: integer('exp_month').notNull(),
  expYear: integer('exp_year').notNull(),
  behaviour: text('behaviour', { enum: ['succeed', 'decline', 'authenticate'] }).notNull(),
  createdAt: createdAt(),
});

/** A hosted checkout session or an off-session charge. */
export const providerPayments = pgTable(
  'provider_payments',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: ['checkout', 'charge'] }).notNull(),
    idempotencyKey: text('idempotency_key').notNull().unique(),
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    description: text('description').notNull(),
    customerId: text('customer_id').notNull(),
    customerEmail: text('customer_email'),
    successUrl: text('success_url'),
    cancelUrl: text('cancel_url'),
    metadata: jsonb('metadata').notNull(),
    status: text('status', {
      enum: ['open', 'requires_action', 'succeeded', 'failed', 'expired', 'canceled'],
    }).notNull(),
    paymentMethodId: text('payment_method_id'),
    failureMessage: text('failure_message'),
    createdAt: createdAt(),
    expiresAt: at('expires_at').notNull(),
  },
  (t) => [
    index('provider_payments_expires_idx')
      .on(t.expiresAt)
      .where(sql`${t.status} = 'open'`),
  ],
);

/** Webhook events the built-in provider sends, kept until the server has acknowledged them. */
export const providerWebhooks = pgTable(
  'provider_webhooks',
  {
    id: text('id').primaryKey(),
    type: text('type').notNull(),
    payload: text('payload').notNull(),
    createdAt: createdAt(),
    deliveredAt: at('delivered_at'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: at('next_attempt_at').notNull().defaultNow(),
  },
  (t) => [
    index('provider_webhooks_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`${t.deliveredAt} is null`),
  ],
);
