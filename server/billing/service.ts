// Plans and billing: the plan page's view, the checkout, plan changes, cancel and resume. The one place a payment
// changes a plan, a verified webhook, is ./events.ts.
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { invoices, payments, subscriptions } from '../db/billing-schema';
import { memberships, users, workspaces } from '../db/schema';
import { ApiError } from '../errors';
import type { ServerConfig } from '../config';
import type { Db } from '../db/database';
import type { Executor, WorkspaceAccess } from '../workspaces/access';
import { toUnixSeconds } from '../workspaces/access';
import { usableTimeZone } from '../social/time-zone';
import type {
  BillingDetails,
  BillingInterval,
  BillingResponse,
  PaymentResponse,
  Plan,
  PlanResponse,
} from '../../src/contract/billing';
import { dailyPrice, priceOf, type Catalogue, type PaidPlan } from './plans';
import { downgradeBlockers, usageOf } from './limits';
import type { PaymentProvider } from './provider';
import {
  DAY_MS,
  effectiveStatus,
  saveSubscription,
  subscriptionOf,
  type SubscriptionRow,
} from './subscriptions';

export type PaymentRow = typeof payments.$inferSelect;

export interface BillingContext {
  db: Db;
  config: ServerConfig;
  catalogue: Catalogue;
  /** Null when no provider is configured (production without Stripe): buying is refused with 503. */
  provider: PaymentProvider | null;
}

const billingError = (status: number, code: string, message: string) => new ApiError(status, code, message);
export const ownersOnly = () =>
  billingError(403, 'owner_required', 'Only an owner can buy, change or cancel the plan and see billing.');
const noProvider = () =>
  billingError(503, 'payments_unavailable', 'Card payments are not set up on this server.');
const unknownPlan = (id: string) => billingError(400, 'unknown_plan', `There is no plan "${id}" to buy.`);
const paymentNotFound = () => billingError(404, 'payment_not_found', 'There is no such payment.');

const seconds = (date: Date | null) => (date ? toUnixSeconds(date) : null);

function paidPlan(catalogue: Catalogue, planId: string): PaidPlan {
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

function toPaymentResponse(row: PaymentRow): PaymentResponse {
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

// Buying.

/** Whether the workspace has a paid period running that a checkout would only duplicate. */
const hasRunningPeriod = (sub: SubscriptionRow, now: Date) =>
  (sub.status === 'active' || sub.status === 'canceled') &&
  sub.periodEnd !== null &&
  sub.periodEnd.getTime() > now.getTime() &&
  sub.interval !== null;

export async function startCheckout(
  ctx: BillingContext,
  access: WorkspaceAccess,
  userId: string,
  body: { plan_id: string; interval: BillingInterval },
): Promise<{ payment_id: string; checkout_url: string }> {
  if (!ctx.provider) throw noProvider();
  const provider = ctx.provider;
  const plan = paidPlan(ctx.catalogue, body.plan_id);
  const { workspace } = access;
  const amount = priceOf(plan, body.interval);
  const { payment, customerRef, email } = await ctx.db.transaction(async (tx) => {
    const sub = await subscriptionOf(tx, workspace, { lock: true });
    if (hasRunningPeriod(sub, new Date())) {
      throw billingError(
        409,
        'already_subscribed',
        sub.status === 'canceled'
          ? 'This plan is paid until the end of its period: resume it, or change the plan.'
          : 'This workspace already has a paid plan: change the plan instead.',
      );
    }
    const [user] = await tx.select({ email: users.email }).from(users).where(eq(users.id, userId));
    const [created] = await tx
      .insert(payments)
      .values({
        workspaceId: workspace.id,
        kind: 'subscribe',
        planId: plan.id,
        interval: body.interval,
        amount,
        currency: ctx.catalogue.currency,
        status: 'open',
        provider: provider.name,
        createdBy: userId,
      })
      .returning();
    return {
      payment: created!,
      customerRef: sub.provider === provider.name ? sub.customerRef : null,
      email: sub.billingEmail || user?.email || null,
    };
  });
  const base = ctx.config.APP_URL;
  const session = await provider.createCheckout({
    paymentId: payment.id,
    workspaceId: workspace.id,
    amount,
    currency: payment.currency,
    description: describe(plan, body.interval, workspace.name),
    customerEmail: email,
    customerRef,
    successUrl: `${base}/checkout/return?payment_id=${payment.id}`,
    cancelUrl: `${base}/workspace/${encodeURIComponent(workspace.id)}/checkout?canceled=${payment.id}`,
  });
  await ctx.db
    .update(payments)
    .set({ providerRef: session.ref, checkoutUrl: session.url, updatedAt: sql`now()` })
    .where(eq(payments.id, payment.id));
  return { payment_id: payment.id, checkout_url: session.url };
}

export async function paymentFor(ctx: BillingContext, paymentId: string, userId: string) {
  const [row] = await ctx.db
    .select({ payment: payments, privilege: memberships.privilege })
    .from(payments)
    .leftJoin(
      memberships,
      and(eq(memberships.workspaceId, payments.workspaceId), eq(memberships.userId, userId)),
    )
    .where(eq(payments.id, paymentId));
  // Only the workspace's owners learn anything of its payments; anyone else gets the same 404 as for no payment.
  if (!row || row.privilege !== 'owner') throw paymentNotFound();
  return toPaymentResponse(row.payment);
}

/**
 * Charges a payment row's amount on the saved card; the webhook decides. The charge's reference is written to the
 * payment while the row is locked, so its webhook, which may arrive before the provider has answered here, waits for
 * it (applyEvent locks the payment too) and is checked against it. A charge that fails to start changes nothing.
 */
export async function chargeSavedCard(
  ctx: BillingContext,
  payment: PaymentRow,
  sub: SubscriptionRow,
  description: string,
) {
  await ctx.db.transaction(async (tx) => {
    await tx.select({ id: payments.id }).from(payments).where(eq(payments.id, payment.id)).for('update');
    const charge = await ctx.provider!.chargeSaved({
      paymentId: payment.id,
      attempt: payment.attempts,
      workspaceId: payment.workspaceId,
      amount: payment.amount,
      currency: payment.currency,
      description,
      customerRef: sub.customerRef!,
      paymentMethodRef: sub.paymentMethodRef!,
    });
    await tx
      .update(payments)
      .set({ providerRef: charge.ref, updatedAt: sql`now()` })
      .where(eq(payments.id, payment.id));
  });
}

export async function changePlan(
  ctx: BillingContext,
  access: WorkspaceAccess,
  userId: string,
  body: { plan_id: string; interval: BillingInterval },
) {
  const target = paidPlan(ctx.catalogue, body.plan_id);
  const { workspace } = access;
  const now = new Date();
  const outcome = await ctx.db.transaction(async (tx) => {
    const sub = await subscriptionOf(tx, workspace, { lock: true });
    if (!hasRunningPeriod(sub, now) || sub.status === 'canceled') {
      throw billingError(
        409,
        'no_running_plan',
        sub.status === 'canceled'
          ? 'Resume the plan before changing it.'
          : 'There is no paid plan to change: buy one through the checkout.',
      );
    }
    const current = ctx.catalogue.findPaid(sub.planId);
    const interval = sub.interval!;
    if (current && current.id === target.id && interval === body.interval) {
      await saveSubscription(
        tx,
        workspace.id,
        { scheduledPlanId: null, scheduledInterval: null },
        ctx.config.PAST_DUE_GRACE_DAYS,
      );
      return { kind: 'none' as const, amount: 0, payment: null, sub };
    }
    const upgrade = !current || dailyPrice(target, body.interval) > dailyPrice(current, interval);
    if (!upgrade) {
      const usage = await usageOf(tx, workspace, ctx.catalogue);
      const reasons = downgradeBlockers(usage.items, target.limits, target.name);
      if (reasons.length > 0) {
        throw billingError(
          409,
          'downgrade_blocked',
          `This workspace uses more than ${target.name} allows: ${reasons.join(' ')}`,
        );
      }
      await saveSubscription(
        tx,
        workspace.id,
        { scheduledPlanId: target.id, scheduledInterval: body.interval },
        ctx.config.PAST_DUE_GRACE_DAYS,
      );
      return { kind: 'downgrade' as const, amount: 0, payment: null, sub };
    }
    if (!ctx.provider) throw noProvider();
    if (!sub.customerRef || !sub.paymentMethodRef || sub.provider !== ctx.provider.name) {
      throw billingError(
        409,
        'no_saved_card',
        'There is no saved card to charge: renew through the checkout.',
      );
    }
    // Prorated: the difference in daily price for the days left of the period, in whole minor units.
    const daysLeft = (sub.periodEnd!.getTime() - now.getTime()) / DAY_MS;
    const perDay = dailyPrice(target, body.interval) - (current ? dailyPrice(current, interval) : 0);
    const amount = Math.max(0, Math.round(perDay * daysLeft));
    const [payment] = await tx
      .insert(payments)
      .values({
        workspaceId: workspace.id,
        kind: 'upgrade',
        planId: target.id,
        interval: body.interval,
        amount,
        currency: ctx.catalogue.currency,
        status: 'processing',
        attempts: 1,
        provider: ctx.provider.name,
        createdBy: userId,
      })
      .returning();
    return { kind: 'upgrade' as const, amount, payment: payment!, sub };
  });
  if (outcome.payment) {
    await chargeSavedCard(
      ctx,
      outcome.payment,
      outcome.sub,
      describe(target, body.interval, `upgrade for the rest of the period, ${workspace.name}`),
    );
  }
  return { kind: outcome.kind, amount: outcome.amount, payment_id: outcome.payment?.id ?? null };
}

export async function cancelPlan(ctx: BillingContext, access: WorkspaceAccess) {
  await ctx.db.transaction(async (tx) => {
    const sub = await subscriptionOf(tx, access.workspace, { lock: true });
    if (sub.status !== 'active' || !hasRunningPeriod(sub, new Date())) {
      throw billingError(409, 'not_cancelable', 'Only a paid plan that is active can be canceled.');
    }
    await saveSubscription(
      tx,
      access.workspace.id,
      { status: 'canceled', cancelAtPeriodEnd: true, scheduledPlanId: null, scheduledInterval: null },
      ctx.config.PAST_DUE_GRACE_DAYS,
    );
  });
}

export async function resumePlan(ctx: BillingContext, access: WorkspaceAccess) {
  await ctx.db.transaction(async (tx) => {
    const sub = await subscriptionOf(tx, access.workspace, { lock: true });
    if (sub.status !== 'canceled' || !hasRunningPeriod(sub, new Date())) {
      throw billingError(
        409,
        'not_resumable',
        'Only a canceled plan whose period has not ended can be resumed.',
      );
    }
    await saveSubscription(
      tx,
      access.workspace.id,
      { status: 'active', cancelAtPeriodEnd: false },
      ctx.config.PAST_DUE_GRACE_DAYS,
    );
  });
}
