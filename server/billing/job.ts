// The billing job (server/scheduler.ts): trials end, paid periods renew (the saved card is charged), failed renewals
// are tried again daily while past due, and plans whose time has run out expire. What is due lives in the database
// (subscriptions.next_run_at), so a restart loses nothing; each row is taken with FOR UPDATE SKIP LOCKED, so servers
// sharing a database never handle one twice.
import { and, eq, lte, sql } from 'drizzle-orm';
import { payments, subscriptions } from '@server/db/billing-schema';
import { workspaces } from '@server/db/schema';
import { priceOf } from './plans';
import { chargeSavedCard } from './plan-changes';
import type { BillingContext } from './service';
import { accessEnd, DAY_MS, saveSubscription, type SubscriptionRow } from './subscriptions';
import type { PeriodicJob } from '@server/scheduler';

type PaymentRow = typeof payments.$inferSelect;

interface Step {
  workspaceId: string;
  outcome: 'expired' | 'renewing' | 'past_due' | 'waiting';
  charge?: { payment: PaymentRow; sub: SubscriptionRow; description: string };
}

const later = (a: Date, b: Date | null) => (b && b < a ? b : a);

/** Handles one due subscription, or returns null when none is due. */
async function step(ctx: BillingContext, now: Date): Promise<Step | null> {
  const grace = ctx.config.PAST_DUE_GRACE_DAYS;
  return ctx.db.transaction(async (tx) => {
    const [sub] = await tx
      .select()
      .from(subscriptions)
      .where(lte(subscriptions.nextRunAt, now))
      .orderBy(subscriptions.nextRunAt)
      .limit(1)
      .for('update', { skipLocked: true });
    if (!sub) return null;
    const id = sub.workspaceId;
    const expire = async (): Promise<Step> => {
      await saveSubscription(tx, id, { status: 'expired', nextRunAt: null, cancelAtPeriodEnd: false }, grace);
      return { workspaceId: id, outcome: 'expired' };
    };
    const wait = async (until: Date | null): Promise<Step> => {
      await tx.update(subscriptions).set({ nextRunAt: until }).where(eq(subscriptions.workspaceId, id));
      return { workspaceId: id, outcome: 'waiting' };
    };
    const periodOver = sub.periodEnd === null || sub.periodEnd <= now;
    if (sub.status === 'expired') return wait(null);
    if (sub.status === 'trialing' || sub.status === 'canceled')
      return periodOver ? expire() : wait(sub.periodEnd);
    if (!periodOver) return wait(sub.periodEnd);
    const end = accessEnd(sub, grace)!;
    if (sub.status === 'past_due' && end <= now) return expire();
    // A renewal: the saved card charged for the next period, on the plan waiting for it (a downgrade) if any.
    const planId = sub.scheduledPlanId ?? sub.planId;
    const interval = sub.scheduledInterval ?? sub.interval ?? 'month';
    const plan = ctx.catalogue.findPaid(planId);
    const retryAt = later(new Date(now.getTime() + DAY_MS), end > now ? end : null);
    if (
      !ctx.provider ||
      !plan ||
      !sub.customerRef ||
      !sub.paymentMethodRef ||
      sub.provider !== ctx.provider.name
    ) {
      if (end <= now) return expire();
      await saveSubscription(
        tx,
        id,
        { status: 'past_due', pastDueSince: sub.pastDueSince ?? now, nextRunAt: end },
        grace,
      );
      return { workspaceId: id, outcome: 'past_due' };
    }
    const [existing] = await tx
      .select()
      .from(payments)
      .where(
        and(
          eq(payments.workspaceId, id),
          eq(payments.kind, 'renewal'),
          eq(payments.periodStart, sub.periodEnd!),
        ),
      )
      .for('update');
    let payment: PaymentRow;
    if (existing?.status === 'paid') return wait(retryAt);
    if (existing) {
      [payment] = (await tx
        .update(payments)
        .set({ status: 'processing', attempts: sql`${payments.attempts} + 1`, updatedAt: sql`now()` })
        .where(eq(payments.id, existing.id))
        .returning()) as [PaymentRow];
    } else {
      [payment] = (await tx
        .insert(payments)
        .values({
          workspaceId: id,
          kind: 'renewal',
          planId: plan.id,
          interval,
          amount: priceOf(plan, interval),
          currency: ctx.catalogue.currency,
          status: 'processing',
          attempts: 1,
          provider: ctx.provider.name,
          periodStart: sub.periodEnd,
        })
        .returning()) as [PaymentRow];
    }
    await tx.update(subscriptions).set({ nextRunAt: retryAt }).where(eq(subscriptions.workspaceId, id));
    const [workspace] = await tx
      .select({ name: workspaces.name })
      .from(workspaces)
      .where(eq(workspaces.id, id));
    return {
      workspaceId: id,
      outcome: 'renewing',
      charge: {
        payment,
        sub,
        description: `Murmur ${plan.name}, ${interval === 'year' ? 'yearly' : 'monthly'} renewal — ${workspace?.name ?? id}`,
      },
    };
  });
}

/** Handles everything due now; returns what was done per workspace. */
export async function runDue(
  ctx: BillingContext,
  now = new Date(),
  log: (message: string) => void = console.log,
): Promise<Step[]> {
  const steps: Step[] = [];
  for (let i = 0; i < 1000; i++) {
    const done = await step(ctx, now);
    if (!done) break;
    steps.push(done);
    if (done.charge) {
      const { payment, sub, description } = done.charge;
      try {
        await chargeSavedCard(ctx, payment, sub, description);
      } catch (error) {
        // Tried again at the row's next run (a day later at most), with the next attempt's idempotency key.
        log(`Billing: the renewal charge of ${payment.id} failed to start: ${(error as Error).message}`);
      }
    }
  }
  return steps;
}

/**
 * Every BILLING_JOB_EVERY_MINUTES (a job of server/scheduler.ts): the due subscriptions, then `extra` (the built-in
 * provider's own chores).
 */
export const billingJob = (
  ctx: BillingContext,
  options: { extra?: () => Promise<unknown>; log?: (message: string) => void } = {},
): PeriodicJob => {
  const { extra, log = console.log } = options;
  const minutes = ctx.config.BILLING_JOB_EVERY_MINUTES;
  return {
    name: 'billing',
    cron: minutes === 60 ? '0 * * * *' : `*/${minutes} * * * *`,
    run: async () => {
      for (const s of await runDue(ctx, new Date(), log)) {
        if (s.outcome !== 'waiting')
          log(`Billing: workspace ${s.workspaceId} ${s.outcome.replace('_', ' ')}.`);
      }
      await extra?.();
    },
  };
};
