// The one place a payment changes a plan: a verified webhook, applied once (billing_events), only when it is about the
// pending payment as asked, in order (payments.last_event_at), under the subscription's row lock.
import { and, eq, sql } from 'drizzle-orm';
import { billingEvents, invoices, payments } from '@server/db/billing-schema';
import { workspaces } from '@server/db/schema';
import type { Executor } from '@server/workspaces/access';
import type { PaymentEvent } from './provider';
import { describe, detailsOf, type BillingContext, type PaymentRow } from './service';
import {
  accessEnd,
  addInterval,
  DAY_MS,
  saveSubscription,
  subscriptionOf,
  type SubscriptionRow,
} from './subscriptions';

export type EventOutcome = 'applied' | 'duplicate' | 'ignored' | 'stale';

async function issueInvoice(tx: Executor, payment: PaymentRow, sub: SubscriptionRow, description: string) {
  await tx
    .insert(invoices)
    .values({
      workspaceId: payment.workspaceId,
      paymentId: payment.id,
      number: sql`'MUR-' || nextval('invoice_number_seq')::text`,
      amount: payment.amount,
      currency: payment.currency,
      status: 'paid',
      description,
      billedTo: {
        ...detailsOf(sub),
        card: sub.cardLast4 ? { brand: sub.cardBrand, last4: sub.cardLast4 } : null,
      },
    })
    .onConflictDoNothing({ target: invoices.paymentId });
}

/**
 * Whether a verified event is about this payment as we asked for it: the workspace its metadata names, the provider's
 * reference we hold for the payment (its checkout session, or the charge of its latest try), and for a success the
 * amount and the currency. A provider's signature says who sent the event, not that it matches what we asked for.
 */
function isAboutPayment(event: Exclude<PaymentEvent, { type: 'ignored' }>, payment: PaymentRow): boolean {
  if (event.workspaceId !== payment.workspaceId) return false;
  const ref = payment.providerRef;
  if (ref === null || (event.providerRef !== ref && event.checkoutRef !== ref)) return false;
  if (event.type !== 'payment.succeeded') return true;
  return event.amount === payment.amount && event.currency.toLowerCase() === payment.currency.toLowerCase();
}

/** What a paid payment does to the subscription: a new period, the next period, or a bigger plan at once. */
function periodAfter(payment: PaymentRow, sub: SubscriptionRow, now: Date) {
  if (payment.kind === 'upgrade') return { start: sub.periodStart, end: sub.periodEnd };
  if (payment.kind === 'renewal') {
    const start = payment.periodStart ?? sub.periodEnd ?? now;
    return { start, end: addInterval(start, payment.interval) };
  }
  // A second checkout paid for the same plan while the first's period runs adds a period after it.
  const running =
    sub.status === 'active' && sub.planId === payment.planId && sub.periodEnd && sub.periodEnd > now;
  const start = running ? sub.periodEnd! : now;
  return { start, end: addInterval(start, payment.interval) };
}

/**
 * Applies one verified event: recorded first (a second delivery of the same event stops there), then the payment and
 * the subscription locked, so events of one payment delivered at once take turns. An event older than the last one
 * applied to the payment changes nothing, and nothing changes a paid payment.
 */
export async function applyEvent(
  ctx: BillingContext,
  provider: string,
  event: PaymentEvent,
): Promise<EventOutcome> {
  return ctx.db.transaction(async (tx) => {
    const recorded = await tx
      .insert(billingEvents)
      .values({ provider, eventId: event.id, type: event.type })
      .onConflictDoNothing()
      .returning({ id: billingEvents.eventId });
    if (recorded.length === 0) return 'duplicate';
    if (event.type === 'ignored') return 'ignored';
    const [payment] = await tx
      .select()
      .from(payments)
      .where(and(eq(payments.id, event.paymentId), eq(payments.provider, provider)))
      .for('update');
    // Not this payment's (another workspace, session, charge, amount or currency): nothing is applied, and the event
    // stays recorded, for the records.
    if (!payment || !isAboutPayment(event, payment)) return 'ignored';
    const [workspace] = await tx
      .select()
      .from(workspaces)
      .where(eq(workspaces.id, payment.workspaceId))
      .for('update');
    if (!workspace) return 'ignored';
    const sub = await subscriptionOf(tx, workspace, { lock: true });
    if (payment.status === 'paid') return 'stale';
    if (event.type !== 'payment.succeeded' && payment.lastEventAt && event.occurredAt < payment.lastEventAt) {
      return 'stale';
    }
    const grace = ctx.config.PAST_DUE_GRACE_DAYS;
    const now = new Date();
    if (event.type === 'payment.succeeded') {
      const plan = ctx.catalogue.find(payment.planId);
      const { start, end } = periodAfter(payment, sub, now);
      const card = event.card;
      const saved = await saveSubscription(
        tx,
        workspace.id,
        {
          planId: payment.planId,
          interval: payment.interval,
          status: 'active',
          periodStart: start,
          periodEnd: end,
          cancelAtPeriodEnd: false,
          pastDueSince: null,
          nextRunAt: end,
          ...(payment.kind === 'renewal' && { scheduledPlanId: null, scheduledInterval: null }),
          // A bigger plan replaces a smaller one waiting for the period's end.
          ...(payment.kind === 'upgrade' && { scheduledPlanId: null, scheduledInterval: null }),
          provider,
          ...(event.customerRef && { customerRef: event.customerRef }),
          ...(event.paymentMethodRef && { paymentMethodRef: event.paymentMethodRef }),
          ...(card && {
            cardBrand: card.brand,
            cardLast4: card.last4,
            cardExpMonth: card.expMonth,
            cardExpYear: card.expYear,
          }),
        },
        grace,
      );
      const [paid] = await tx
        .update(payments)
        .set({
          status: 'paid',
          providerRef: event.providerRef,
          failureMessage: null,
          lastEventAt: event.occurredAt,
          updatedAt: sql`now()`,
        })
        .where(eq(payments.id, payment.id))
        .returning();
      const what =
        payment.kind === 'upgrade'
          ? `upgrade until ${end!.toISOString().slice(0, 10)}`
          : `${start!.toISOString().slice(0, 10)} to ${end!.toISOString().slice(0, 10)}`;
      await issueInvoice(tx, paid!, saved, describe(plan, payment.interval, what));
      return 'applied';
    }
    const status =
      event.type === 'payment.failed'
        ? 'failed'
        : event.type === 'payment.expired'
          ? 'expired'
          : 'requires_action';
    await tx
      .update(payments)
      .set({
        status,
        failureMessage: event.message,
        lastEventAt: event.occurredAt,
        updatedAt: sql`now()`,
      })
      .where(eq(payments.id, payment.id));
    // A renewal that fails puts the plan past due; the job tries again daily until the grace runs out.
    if (payment.kind === 'renewal' && status === 'failed' && sub.status === 'active') {
      const until = accessEnd(sub, grace);
      const retry = new Date(Math.min(now.getTime() + DAY_MS, until?.getTime() ?? now.getTime()));
      await saveSubscription(
        tx,
        workspace.id,
        { status: 'past_due', pastDueSince: now, nextRunAt: retry },
        grace,
      );
    }
    return 'applied';
  });
}
