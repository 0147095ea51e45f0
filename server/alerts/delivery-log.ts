// The alerts' delivery log (alert_delivery_log; docs/alerts.md): every attempt to deliver an e-mail or a webhook call,
// and every "Send a test", with its recipient (an address, or a webhook's host), whether it went through, the
// receiver's status and the error in words. The Alerts page lists a rule's newest and says on the rule when its last
// delivery failed. Only the newest ALERT_DELIVERY_LOG_KEPT of a rule are kept: each write trims the rest.
import { and, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import { ALERT_DELIVERY_LOG_KEPT, type AlertDeliveryLogEntry, type AlertRule } from '@contract/alerts';
import { alertDeliveryLog } from '@server/db/alerts-schema';
import { toUnixSeconds, type Executor } from '@server/workspaces/access';

type Row = typeof alertDeliveryLog.$inferSelect;
export type DeliveryAttempt = Omit<typeof alertDeliveryLog.$inferInsert, 'id' | 'at'>;

/** Records one attempt and trims the rule's log to its newest ALERT_DELIVERY_LOG_KEPT. */
export async function recordAttempt(db: Executor, attempt: DeliveryAttempt): Promise<Row> {
  const [row] = await db
    .insert(alertDeliveryLog)
    .values({ ...attempt, error: attempt.error?.slice(0, 500) ?? null })
    .returning();
  const [oldest] = await db
    .select({ id: alertDeliveryLog.id })
    .from(alertDeliveryLog)
    .where(eq(alertDeliveryLog.ruleId, attempt.ruleId))
    .orderBy(desc(alertDeliveryLog.id))
    .offset(ALERT_DELIVERY_LOG_KEPT - 1)
    .limit(1);
  if (oldest) {
    await db
      .delete(alertDeliveryLog)
      .where(and(eq(alertDeliveryLog.ruleId, attempt.ruleId), lt(alertDeliveryLog.id, oldest.id)));
  }
  return row!;
}

export const toLogEntry = (row: Row): AlertDeliveryLogEntry => ({
  id: row.id,
  at: toUnixSeconds(row.at),
  channel: row.channel,
  recipient: row.recipient,
  ok: row.ok,
  status_code: row.statusCode,
  error: row.error,
  will_retry: row.willRetry,
  test: row.test,
});

/** A rule's log, newest first. */
export async function deliveryLogOf(db: Executor, ruleId: string): Promise<AlertDeliveryLogEntry[]> {
  const rows = await db
    .select()
    .from(alertDeliveryLog)
    .where(eq(alertDeliveryLog.ruleId, ruleId))
    .orderBy(desc(alertDeliveryLog.id))
    .limit(ALERT_DELIVERY_LOG_KEPT);
  return rows.map(toLogEntry);
}

/**
 * Each rule's last delivery, for "its last delivery failed" on the rule: of the newest attempt to each recipient (each
 * address, the webhook), the newest that failed, if one did; else the newest. A webhook that fails is not hidden by an
 * e-mail of the same alert that went through after it.
 */
export async function lastDeliveries(
  db: Executor,
  ruleIds: string[],
): Promise<Map<string, NonNullable<AlertRule['last_delivery']>>> {
  if (!ruleIds.length) return new Map();
  const rows = await db
    .selectDistinctOn([alertDeliveryLog.ruleId, alertDeliveryLog.channel, alertDeliveryLog.recipient], {
      ruleId: alertDeliveryLog.ruleId,
      at: alertDeliveryLog.at,
      ok: alertDeliveryLog.ok,
      error: alertDeliveryLog.error,
    })
    .from(alertDeliveryLog)
    .where(inArray(alertDeliveryLog.ruleId, ruleIds))
    .orderBy(
      alertDeliveryLog.ruleId,
      alertDeliveryLog.channel,
      alertDeliveryLog.recipient,
      sql`${alertDeliveryLog.id} DESC`,
    );
  const last = new Map<string, (typeof rows)[number]>();
  for (const row of rows) {
    const kept = last.get(row.ruleId);
    const better =
      !kept || (!row.ok && kept.ok) || (row.ok === kept.ok && row.at.getTime() > kept.at.getTime());
    if (better) last.set(row.ruleId, row);
  }
  return new Map(
    [...last].map(([ruleId, r]) => [ruleId, { at: toUnixSeconds(r.at), ok: r.ok, error: r.error }]),
  );
}
