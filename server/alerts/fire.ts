// A rule firing, in the caller's transaction (the rule's row locked): its event (unique per rule, window and source:
// a second evaluation of the same window writes nothing more), the rule's last firing, the in-app notifications of its
// recipients still members who did not mute it, and its e-mail and webhook deliveries. Shared by the window kinds
// (evaluate.ts) and source_silent (silence.ts).
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { AlertKind, AlertPeriod } from '@contract/alerts';
import {
  alertDeliveries,
  alertEvents,
  alertMutes,
  alertRules,
  notifications,
} from '@server/db/alerts-schema';
import { memberships } from '@server/db/schema';
import type { Tx } from '@server/social/insights/transactions';

/** A rule as the evaluation reads it. */
export interface RuleRow {
  id: string;
  workspaceId: string;
  savedQueryId: string;
  kind: AlertKind;
  period: AlertPeriod;
  threshold: number | null;
  inApp: boolean;
  email: boolean;
  recipientIds: string[];
  webhookUrl: string | null;
  timeZone: string;
  queryName: string;
}

export interface Firing {
  windowStart: Date;
  windowEnd: Date;
  /** A source-silent rule's source; '' for the other kinds. */
  source?: string;
  figures: Record<string, unknown>;
  title: string;
  message: string;
}

/** Writes the firing; false when its event was already there (nothing else is written then). */
export async function writeFiring(tx: Tx, rule: RuleRow, firing: Firing): Promise<boolean> {
  const [event] = await tx
    .insert(alertEvents)
    .values({ ruleId: rule.id, workspaceId: rule.workspaceId, ...firing, source: firing.source ?? '' })
    .onConflictDoNothing({ target: [alertEvents.ruleId, alertEvents.windowStart, alertEvents.source] })
    .returning({ id: alertEvents.id });
  if (!event) return false;
  await tx
    .update(alertRules)
    .set({ lastFiredAt: sql`now()` })
    .where(eq(alertRules.id, rule.id));
  // Who is told: the rule's recipients who are still members and have not muted it.
  const told = rule.recipientIds.length
    ? (
        await tx
          .select({ userId: memberships.userId })
          .from(memberships)
          .leftJoin(
            alertMutes,
            and(eq(alertMutes.ruleId, rule.id), eq(alertMutes.userId, memberships.userId)),
          )
          .where(
            and(
              eq(memberships.workspaceId, rule.workspaceId),
              inArray(memberships.userId, rule.recipientIds),
              isNull(alertMutes.userId),
            ),
          )
      ).map((row) => row.userId)
    : [];
  if (rule.inApp && told.length) {
    await tx
      .insert(notifications)
      .values(told.map((userId) => ({ userId, workspaceId: rule.workspaceId, eventId: event.id })))
      .onConflictDoNothing();
  }
  const deliveries = [
    ...(rule.email ? told.map((userId) => ({ channel: 'email' as const, userId })) : []),
    ...(rule.webhookUrl ? [{ channel: 'webhook' as const, userId: null }] : []),
  ];
  if (deliveries.length) {
    await tx
      .insert(alertDeliveries)
      .values(deliveries.map((d) => ({ ...d, eventId: event.id, nextAttemptAt: sql`now()` })));
  }
  return true;
}
