// A workspace's subscription: its row (made on first need for workspaces older than billing), its status as people
// see it, and keeping `workspaces.plan` / `plan_expired_at` (what the workspace guard reads) in step with it.
import { eq, sql } from 'drizzle-orm';
import { subscriptions } from '@server/db/billing-schema';
import { workspaces } from '@server/db/schema';
import type { Executor } from '@server/workspaces/access';
import type { BillingInterval, SubscriptionStatus } from '@contract/billing';

export type SubscriptionRow = typeof subscriptions.$inferSelect;
type WorkspaceRow = typeof workspaces.$inferSelect;

export const DAY_MS = 24 * 60 * 60 * 1000;

/** The end of a period that starts at `start` (calendar months and years, as card providers bill). */
export function addInterval(start: Date, interval: BillingInterval): Date {
  const end = new Date(start);
  if (interval === 'year') end.setUTCFullYear(end.getUTCFullYear() + 1);
  else end.setUTCMonth(end.getUTCMonth() + 1);
  return end;
}

/** The row a workspace gets when billing first looks at it: from its plan and expiry, as the migration backfilled. */
function initialRow(workspace: WorkspaceRow): typeof subscriptions.$inferInsert {
  const end = workspace.planExpiredAt;
  const expired = end !== null && end.getTime() <= Date.now();
  return {
    workspaceId: workspace.id,
    planId: workspace.plan,
    status: expired ? 'expired' : workspace.plan === 'trial' ? 'trialing' : 'active',
    periodStart: workspace.plan === 'trial' ? workspace.createdAt : null,
    periodEnd: end,
    nextRunAt: expired ? null : end,
  };
}

/** The workspace's subscription row, created when missing; `lock` holds it until the transaction ends. */
export async function subscriptionOf(
  tx: Executor,
  workspace: WorkspaceRow,
  options: { lock?: boolean } = {},
): Promise<SubscriptionRow> {
  const read = async () => {
    const query = tx.select().from(subscriptions).where(eq(subscriptions.workspaceId, workspace.id));
    const [row] = options.lock ? await query.for('update') : await query;
    return row;
  };
  const existing = await read();
  if (existing) return existing;
  // Made once; two requests at once both read nothing, and the second insert does nothing.
  await tx.insert(subscriptions).values(initialRow(workspace)).onConflictDoNothing();
  return (await read())!;
}

/** The status as shown: a period that has run out is expired even before the billing job has marked it. */
export function effectiveStatus(
  sub: SubscriptionRow,
  workspace: Pick<WorkspaceRow, 'planExpiredAt'>,
  now = new Date(),
): SubscriptionStatus {
  if (workspace.planExpiredAt !== null && workspace.planExpiredAt.getTime() <= now.getTime())
    return 'expired';
  return sub.status;
}

/** When access ends if nothing more is paid: the period's end when canceled, else after the past-due grace. */
export function accessEnd(
  sub: Pick<SubscriptionRow, 'status' | 'periodEnd'>,
  graceDays: number,
): Date | null {
  if (!sub.periodEnd) return null;
  if (sub.status === 'trialing' || sub.status === 'canceled' || sub.status === 'expired')
    return sub.periodEnd;
  return new Date(sub.periodEnd.getTime() + graceDays * DAY_MS);
}

/** Writes the subscription's changes and the workspace's plan and expiry in step (inside the caller's transaction). */
export async function saveSubscription(
  tx: Executor,
  workspaceId: string,
  changes: Partial<typeof subscriptions.$inferInsert>,
  graceDays: number,
): Promise<SubscriptionRow> {
  const [row] = await tx
    .update(subscriptions)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(eq(subscriptions.workspaceId, workspaceId))
    .returning();
  const planExpiredAt = accessEnd(row!, graceDays);
  await tx.update(workspaces).set({ plan: row!.planId, planExpiredAt }).where(eq(workspaces.id, workspaceId));
  return row!;
}
