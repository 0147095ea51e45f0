// Plans, usage, billing and checkout (the /api/workspaces/:id/plan, /billing and /checkout endpoints and the
// /api/checkout/payments/:id status), shared by the SPA and the server. Money is in integer minor units (cents);
// timestamps are unix seconds. Response shapes avoid transforms: the server encodes responses through them.
import * as z from 'zod/mini';
import { storableText } from './text';

const LIMIT_KEYS = [
  'saved_queries',
  'members',
  'history_days',
  'dashboard_requests_per_month',
  'exports_per_month',
  'tracked_queries',
  'posts_collected_per_month',
] as const;
export type LimitKey = (typeof LIMIT_KEYS)[number];

const BILLING_INTERVALS = ['month', 'year'] as const;
const billingIntervalSchema = z.enum(BILLING_INTERVALS);
export type BillingInterval = z.infer<typeof billingIntervalSchema>;

const SUBSCRIPTION_STATUSES = ['trialing', 'active', 'past_due', 'canceled', 'expired'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

const unixSeconds = z.int();
const money = z.int().check(z.gte(0));
/** A limit; null is unlimited (the demo and internal workspaces). */
const limitValue = z.nullable(z.int().check(z.gte(0)));

export const planLimitsSchema = z.object({
  saved_queries: limitValue,
  members: limitValue,
  history_days: limitValue,
  dashboard_requests_per_month: limitValue,
  exports_per_month: limitValue,
  /** Saved queries tracked at once (server/tracking). */
  tracked_queries: limitValue,
  /** Posts collected for the workspace's tracked queries in a calendar month (UTC), counted per query. */
  posts_collected_per_month: limitValue,
});
export type PlanLimits = z.infer<typeof planLimitsSchema>;

const planSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  /** Null for plans that are not sold (the trial). */
  prices: z.nullable(z.object({ month: money, year: money })),
  limits: planLimitsSchema,
});
export type Plan = z.infer<typeof planSchema>;

const usageItemSchema = z.object({
  key: z.enum(LIMIT_KEYS),
  used: z.int(),
  limit: limitValue,
});
export type UsageItem = z.infer<typeof usageItemSchema>;

const planChangeSchema = z.object({
  plan_id: z.string(),
  interval: billingIntervalSchema,
  /** When the change takes effect (the end of the current period). */
  effective_at: unixSeconds,
});

export const planResponseSchema = z.object({
  workspace_id: z.string(),
  currency: z.string(),
  plan: planSchema,
  status: z.enum(SUBSCRIPTION_STATUSES),
  interval: z.nullable(billingIntervalSchema),
  /** Start of the current period (or of the trial). */
  period_start: z.nullable(unixSeconds),
  /** End of the current period or trial: a renewal when active, the end when canceled or trialing. */
  period_end: z.nullable(unixSeconds),
  /** When access ends if nothing more is paid (plan_expired_at), null for a plan without an end. */
  access_ends_at: z.nullable(unixSeconds),
  cancel_at_period_end: z.boolean(),
  scheduled_change: z.nullable(planChangeSchema),
  /** The month the monthly volumes count (first day, in the workspace's time zone, as YYYY-MM-DD). */
  usage_month: z.string(),
  usage: z.array(usageItemSchema),
  plans: z.array(planSchema),
  /** Whether the caller may buy, change and cancel (owners). */
  can_manage: z.boolean(),
  /** A payment of this workspace still in progress (checkout open or awaiting confirmation), if any. */
  pending_payment_id: z.nullable(z.string()),
  time_zone: z.string(),
});
export type PlanResponse = z.infer<typeof planResponseSchema>;

const paymentMethodSchema = z.object({
  brand: z.string(),
  last4: z.string(),
  exp_month: z.int(),
  exp_year: z.int(),
});

const INVOICE_STATUSES = ['paid', 'open', 'void'] as const;
const invoiceSchema = z.object({
  id: z.string(),
  number: z.string(),
  issued_at: unixSeconds,
  amount: money,
  currency: z.string(),
  status: z.enum(INVOICE_STATUSES),
  description: z.string(),
});

const line = (max: number) => storableText().check(z.trim(), z.maxLength(max));

export const billingDetailsSchema = z.object({
  email: z.union([z.literal(''), z.email().check(z.maxLength(254))]),
  name: line(120),
  address_line1: line(200),
  address_line2: line(200),
  postal_code: line(20),
  city: line(100),
  /** ISO 3166-1 alpha-2, or empty. */
  country: z.union([z.literal(''), z.string().check(z.regex(/^[A-Z]{2}$/))]),
});
export type BillingDetails = z.infer<typeof billingDetailsSchema>;

export const billingResponseSchema = z.object({
  payment_method: z.nullable(paymentMethodSchema),
  details: billingDetailsSchema,
  invoices: z.array(invoiceSchema),
  provider: z.enum(['builtin', 'stripe']),
});
export type BillingResponse = z.infer<typeof billingResponseSchema>;

// Requests.

export const checkoutBodySchema = z.object({
  plan_id: z.string().check(z.minLength(1), z.maxLength(40)),
  interval: billingIntervalSchema,
});
export type CheckoutBody = z.infer<typeof checkoutBodySchema>;

export const checkoutResponseSchema = z.object({
  payment_id: z.string(),
  /** The hosted checkout page to send the browser to. */
  checkout_url: z.url(),
});

export const changePlanResponseSchema = z.object({
  /** `upgrade`: charged now (prorated), applied when the payment is confirmed; `downgrade`: at the period's end. */
  kind: z.enum(['upgrade', 'downgrade', 'none']),
  /** The prorated amount charged now (upgrades), 0 otherwise. */
  amount: money,
  payment_id: z.nullable(z.string()),
  /** When the upgrade needs the card entered again: the checkout to go to. */
  checkout_url: z.nullable(z.url()),
  plan: planResponseSchema,
});

const PAYMENT_STATUSES = ['open', 'processing', 'requires_action', 'paid', 'failed', 'expired'] as const;

export const paymentResponseSchema = z.object({
  id: z.string(),
  workspace_id: z.string(),
  kind: z.enum(['subscribe', 'renewal', 'upgrade']),
  plan_id: z.string(),
  interval: billingIntervalSchema,
  amount: money,
  currency: z.string(),
  status: z.enum(PAYMENT_STATUSES),
  /** The provider's message when the payment failed (a declined card). */
  failure_message: z.nullable(z.string()),
  created_at: unixSeconds,
});
export type PaymentResponse = z.infer<typeof paymentResponseSchema>;

export const paymentParamsSchema = z.object({ paymentId: z.uuid() });
export const invoiceParamsSchema = z.object({
  id: storableText().check(z.minLength(1), z.maxLength(200)),
  invoiceId: z.uuid(),
});

/** The answer of a limit reached (the `error` code names it) adds what the limit is. */
export const LIMIT_ERROR_CODES: Record<LimitKey, string> = {
  saved_queries: 'saved_query_limit',
  members: 'member_limit',
  history_days: 'history_limit',
  dashboard_requests_per_month: 'dashboard_volume_limit',
  exports_per_month: 'export_volume_limit',
  tracked_queries: 'tracked_query_limit',
  posts_collected_per_month: 'collection_limit',
};
