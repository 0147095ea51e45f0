// Plans and billing: the context every billing module shares, its errors, and the plan and billing pages' views.
// Buying and changing plans are ./plan-changes.ts; the one place a payment changes a plan, a verified webhook, is
// ./events.ts.
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { invoices, payments, subscriptions } from '@server/db/billing-schema';
import { workspaces } from '@server/db/schema';
import { ApiError } from '@server/errors';
import type { ServerConfig } from '@server/config';
import type { Db } from '@server/db/database';
import type { Executor, WorkspaceAccess } from '@server/workspaces/access';
import { toUnixSeconds } from '@server/workspaces/access';
import { usableTimeZone } from '@contract/zoned-time';
import type {
  BillingDetails,
  BillingInterval,
  BillingResponse,
  PaymentResponse,
  Plan,
  PlanResponse,
} from '@contract/billing';
import { type Catalogue, type PaidPlan } from './plans';
import { usageOf } from './limits';
import type { PaymentProvider } from './provider';
import { effectiveStatus, subscriptionOf, type SubscriptionRow } from './subscriptions';

export type PaymentRow = typeof payments.$inferSelect;

export interface BillingContext {
  db: Db;
  config: ServerConfig;
  catalogue: Catalogue;
  /** Null when no provider is configured (production without Stripe): buying is refused with 503. */
  provider: PaymentProvider | null;
}

export const billingError = (status: number, code: string, message: string) =>
  new ApiError(status, code, message);
export const ownersOnly = () =>
  billingError(403, 'owner_required', 'Only an owner can buy, change or cancel the plan and see billing.');
export const noProvider = () =>
  billingError(503, 'payments_unavailable', 'Card payments are not set up on this server.');
const unknownPlan = (id: string) => billingError(400, 'unknown_plan', `There is no plan "${id}" to buy.`);
export const paymentNotFound = () => billingError(404, 'payment_not_found', 'There is no such payment.');

const seconds = (date: Date | null) => (date ? toUnixSeconds(date) : null);

export function paidPlan(catalogue: Catalogue, planId: string): PaidPlan {
  const plan = catalogue.findPaid(planId);
  if (!plan) throw unknownPlan(planId);
  return plan;
}

export const describe = (plan: Plan, interval: BillingInterval, what: string) =>
  `Murmur ${plan.name}, ${interval === 'year' ? 'yearly' : 'monthly'} — ${what}`;

// Views.

export async function planView(ctx: BillingContext, access: WorkspaceAccess): Promise<PlanResponse> {
  // One snapshot: a webhook committing meanwhile is seen whole or not at all (never the old plan without its pending
  // payment, which would leave the page waiting for nothing).
  return ctx.db.transaction((tx) => planViewIn(tx, ctx, access), { isolationLevel: 'repeatable read' });
}

async function planViewIn(db: Executor, ctx: BillingContext, access: WorkspaceAccess): Promise<PlanResponse> {
  // Read again: the access was resolved before the request's own change (cancel, resume, a plan change).
  const [workspace = access.workspace] = await db
    .select()
    .from(workspaces)
    .where(eq(workspaces.id, access.workspace.id));
  const sub = await subscriptionOf(db, workspace);
  const timeZone = usableTimeZone(workspace.timeZone);
  const usage = await usageOf(db, { ...workspace, timeZone }, ctx.catalogue);
  const [pending] = await db
    .select({ id: payments.id })
    .from(payments)
    .where(
      and(
        eq(payments.workspaceId, workspace.id),
        inArray(payments.status, ['processing', 'requires_action']),
      ),
    )
    .orderBy(desc(payments.createdAt))
    .limit(1);
  return {
    workspace_id: workspace.id,
    currency: ctx.catalogue.currency,
    plan: ctx.catalogue.find(workspace.plan),
    status: effectiveStatus(sub, workspace),
    interval: sub.interval,
    period_start: seconds(sub.periodStart),
    period_end: seconds(sub.periodEnd),
    access_ends_at: seconds(workspace.planExpiredAt),
    cancel_at_period_end: sub.cancelAtPeriodEnd,
    scheduled_change:
      sub.scheduledPlanId && sub.periodEnd
        ? {
            plan_id: sub.scheduledPlanId,
            interval: sub.scheduledInterval ?? sub.interval ?? 'month',
            effective_at: toUnixSeconds(sub.periodEnd),
          }
        : null,
    usage_month: usage.month,
    usage: usage.items,
    plans: ctx.catalogue.paid,
    can_manage: access.privilege === 'owner',
    pending_payment_id: pending?.id ?? null,
    time_zone: timeZone,
  };
}

export const detailsOf = (sub: SubscriptionRow): BillingDetails => ({
  email: sub.billingEmail,
  name: sub.billingName,
  address_line1: sub.addressLine1,
  address_line2: sub.addressLine2,
  postal_code: sub.postalCode,
  city: sub.city,
  country: sub.country,
});

export async function billingView(ctx: BillingContext, access: WorkspaceAccess): Promise<BillingResponse> {
  const sub = await subscriptionOf(ctx.db, access.workspace);
  const rows = await ctx.db
    .select()
    .from(invoices)
    .where(eq(invoices.workspaceId, access.workspace.id))
    .orderBy(desc(invoices.issuedAt));
  return {
    payment_method:
      sub.cardLast4 && sub.cardBrand
        ? {
            brand: sub.cardBrand,
            last4: sub.cardLast4,
            exp_month: sub.cardExpMonth ?? 0,
            exp_year: sub.cardExpYear ?? 0,
          }
        : null,
    details: detailsOf(sub),
    invoices: rows.map((row) => ({
      id: row.id,
      number: row.number,
      issued_at: toUnixSeconds(row.issuedAt),
      amount: row.amount,
      currency: row.currency,
      status: row.status,
      description: row.description,
    })),
    provider: ctx.config.PAYMENT_PROVIDER === 'stripe' ? 'stripe' : 'builtin',
  };
}

export async function updateDetails(ctx: BillingContext, access: WorkspaceAccess, details: BillingDetails) {
  await ctx.db.transaction(async (tx) => {
    await subscriptionOf(tx, access.workspace, { lock: true });
    await tx
      .update(subscriptions)
      .set({
        billingEmail: details.email,
        billingName: details.name,
        addressLine1: details.address_line1,
        addressLine2: details.address_line2,
        postalCode: details.postal_code,
        city: details.city,
        country: details.country,
        updatedAt: sql`now()`,
      })
      .where(eq(subscriptions.workspaceId, access.workspace.id));
  });
  return billingView(ctx, access);
}

export function toPaymentResponse(row: PaymentRow): PaymentResponse {
  return {
    id: row.id,
    workspace_id: row.workspaceId,
    kind: row.kind,
    plan_id: row.planId,
    interval: row.interval,
    amount: row.amount,
    currency: row.currency,
    status: row.status,
    failure_message: row.failureMessage,
    created_at: toUnixSeconds(row.createdAt),
  };
}
