// Sending an alert's e-mails and webhook call (the rows evaluate.ts writes with the event). Each due delivery is
// leased first (its next attempt moved LEASE_SECONDS on, committed), then sent, then recorded: a process that dies
// mid-send leaves a lease that runs out and the delivery is tried again; one that sent and recorded never sends it
// again, after a restart or from another process (the lease and SKIP LOCKED keep two from taking the same row). A
// failure is retried with backoff (webhook.ts, retryDelaySeconds; a receiver's Retry-After waited for when longer) up
// to WEBHOOK_MAX_ATTEMPTS, then given up with its reason kept (never a webhook's URL: its host); a failure that cannot
// succeed later (a 4xx other than 408 and 429, a refused URL, an SMTP server's 5xx refusal) is given up at once.
import { eq, sql } from 'drizzle-orm';
import { alertDeliveries, alertEvents, alertRules } from '@server/db/alerts-schema';
import type { Db } from '@server/db/database';
import { users, workspaces } from '@server/db/schema';
import { savedQueries } from '@server/db/social-schema';
import type { Mailer } from '@server/mail/mailer';
import { notificationPath } from './store';
import { unsubscribeToken } from './unsubscribe';
import { deliverWebhook, retryDelaySeconds, slackPayload, WEBHOOK_MAX_ATTEMPTS } from './webhook';

const LEASE_SECONDS = 120;
const BATCH = 20;

export interface DeliveryDeps {
  db: Db;
  /** Absent without SMTP (no SMTP_URL and no development mailbox): e-mails are given up with that reason. */
  mailer?: Mailer | undefined;
  appUrl: string;
  unsubscribeKey: Uint8Array;
  allowPrivateHosts: boolean;
  now?: () => Date;
}

export interface DeliveryRound {
  sent: number;
  failed: number;
  /** Of the failed, those given up (out of attempts or not worth retrying). */
  gaveUp: number;
}

/** Leases up to BATCH due deliveries (their next attempt moved on), committed before anything is sent. */
async function lease(db: Db, now: Date): Promise<number[]> {
  const result = await db.execute<{ id: string }>(sql`
    UPDATE alert_deliveries SET next_attempt_at = ${now.toISOString()}::timestamptz + make_interval(secs => ${LEASE_SECONDS}),
      attempts = attempts + 1
    WHERE id IN (SELECT id FROM alert_deliveries WHERE next_attempt_at <= ${now.toISOString()}::timestamptz
      ORDER BY next_attempt_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
    RETURNING id`);
  return result.rows.map((row) => Number(row.id));
}

type Outcome = { ok: true } | { ok: false; retry: boolean; error: string; retryAfterSeconds?: number };

/**
 * A failed send's outcome: an SMTP server's permanent refusal (a 5xx reply: no such mailbox, a policy refusal) is
 * given up at once; its temporary ones (4xx), a lost connection or a timeout are retried.
 */
function failedSend(error: unknown): Outcome {
  const { responseCode, message } = error as { responseCode?: unknown; message?: string };
  const permanent = typeof responseCode === 'number' && responseCode >= 500 && responseCode < 600;
  return { ok: false, retry: !permanent, error: message ?? String(error) };
}

/** Sends every due delivery (a round of BATCH at a time until none is due). */
export async function deliverDue(deps: DeliveryDeps): Promise<DeliveryRound> {
  const round: DeliveryRound = { sent: 0, failed: 0, gaveUp: 0 };
  const now = deps.now ?? (() => new Date());
  for (;;) {
    const ids = await lease(deps.db, now());
    if (!ids.length) return round;
    for (const id of ids) {
      const [row] = await deps.db
        .select({
          delivery: alertDeliveries,
          event: alertEvents,
          rule: alertRules,
          queryName: savedQueries.name,
          workspaceName: workspaces.name,
          email: users.email,
        })
        .from(alertDeliveries)
        .innerJoin(alertEvents, eq(alertEvents.id, alertDeliveries.eventId))
        .innerJoin(alertRules, eq(alertRules.id, alertEvents.ruleId))
        .innerJoin(savedQueries, eq(savedQueries.id, alertRules.savedQueryId))
        .innerJoin(workspaces, eq(workspaces.id, alertRules.workspaceId))
        .leftJoin(users, eq(users.id, alertDeliveries.userId))
        .where(eq(alertDeliveries.id, id));
      if (!row) continue;
      let outcome: Outcome;
      try {
        outcome = await send(deps, row);
      } catch (error) {
        outcome = failedSend(error);
      }
      const attempts = row.delivery.attempts;
      if (outcome.ok) {
        round.sent += 1;
        await deps.db
          .update(alertDeliveries)
          .set({ sentAt: now(), nextAttemptAt: null, lastError: null })
          .where(eq(alertDeliveries.id, id));
        continue;
      }
      round.failed += 1;
      const giveUp = !outcome.retry || attempts >= WEBHOOK_MAX_ATTEMPTS;
      if (giveUp) round.gaveUp += 1;
      await deps.db
        .update(alertDeliveries)
        .set({
          lastError: outcome.error.slice(0, 500),
          nextAttemptAt: giveUp
            ? null
            : new Date(now().getTime() + retryDelaySeconds(attempts, outcome.retryAfterSeconds) * 1000),
        })
        .where(eq(alertDeliveries.id, id));
    }
  }
}

type DeliveryRow = {
  delivery: typeof alertDeliveries.$inferSelect;
  event: typeof alertEvents.$inferSelect;
  rule: typeof alertRules.$inferSelect;
  queryName: string;
  workspaceName: string;
  email: string | null;
};

async function send(deps: DeliveryDeps, row: DeliveryRow): Promise<Outcome> {
  const { delivery, event, rule } = row;
  const link = `${deps.appUrl}${notificationPath(rule.workspaceId, rule.savedQueryId, rule.period, event.windowEnd)}`;
  if (delivery.channel === 'webhook') {
    if (!rule.webhookUrl) return { ok: false, retry: false, error: 'The rule has no webhook any more.' };
    const body = JSON.stringify({
      ...slackPayload({
        title: event.title,
        text: event.message,
        url: link,
        fields: [
          { label: 'Workspace', value: row.workspaceName },
          { label: 'Saved query', value: row.queryName },
        ],
      }),
      murmur: {
        delivery_id: String(delivery.id),
        rule_id: rule.id,
        kind: rule.kind,
        period: rule.period,
        window: { from: event.windowStart.toISOString(), to: event.windowEnd.toISOString() },
        figures: event.figures,
        url: link,
      },
    });
    const result = await deliverWebhook(
      {
        url: rule.webhookUrl,
        body,
        secret: rule.webhookSecret,
        deliveryId: String(delivery.id),
        timestamp: Math.floor((deps.now?.() ?? new Date()).getTime() / 1000),
      },
      { allowPrivateHosts: deps.allowPrivateHosts },
    );
    return result.ok ? { ok: true } : result;
  }
  if (!deps.mailer) return { ok: false, retry: false, error: 'No SMTP server is configured (SMTP_URL).' };
  if (!row.email || !delivery.userId) return { ok: false, retry: false, error: 'The recipient is gone.' };
  const unsubscribe = `${deps.appUrl}/unsubscribe#token=${unsubscribeToken(deps.unsubscribeKey, rule.id, delivery.userId)}`;
  const text =
    `${event.message}\n\nOpen the dashboard: ${link}\n\n` +
    `You get this because you are told of this alert rule in the workspace "${row.workspaceName}". ` +
    `To stop these e-mails and notifications for this rule: ${unsubscribe}\n`;
  const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const html =
    `<p>${escape(event.message)}</p><p><a href="${escape(link)}">Open the dashboard</a></p>` +
    `<p style="color:#666;font-size:12px">You get this because you are told of this alert rule in the workspace ` +
    `"${escape(row.workspaceName)}". <a href="${escape(unsubscribe)}">Unsubscribe from this rule</a>.</p>`;
  await deps.mailer.send({
    to: row.email,
    subject: event.title,
    text,
    html,
    headers: { 'List-Unsubscribe': `<${unsubscribe}>` },
  });
  return { ok: true };
}
