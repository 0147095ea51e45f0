// Buying and changing plans: the checkout, a renewal's charge of the saved card, upgrades (at once, prorated) and
// downgrades (at the period's end), cancel and resume. The plan changes only on a verified webhook (./events.ts).
import { and, eq, sql } from 'drizzle-orm';
import { payments } from '@server/db/billing-schema';
import { memberships, users } from '@server/db/schema';
import type { WorkspaceAccess } from '@server/workspaces/access';
import type { BillingInterval } from '@contract/billing';
import { dailyPrice, priceOf } from './plans';
import { downgradeBlockers, usageOf } from './limits';
import { DAY_MS, saveSubscription, subscriptionOf, type SubscriptionRow } from './subscriptions';
import {
  billingError,
  noProvider,
  paymentNotFound,
  paidPlan,
  describe,
  toPaymentResponse,
  type PaymentRow,
  type BillingContext,
} from './service';

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
