// Sending an alert's e-mails and webhook call (the rows evaluate.ts writes with the event). Each due delivery is
// leased first (its next attempt moved LEASE_SECONDS on, committed), then sent, then recorded: a process that dies
// mid-send leaves a lease that runs out and the delivery is tried again; one that sent and recorded never sends it
// again, after a restart or from another process (the lease and SKIP LOCKED keep two from taking the same row). A
// failure is retried with backoff (webhook.ts, retryDelaySeconds; a receiver's Retry-After waited for when longer) up
// to WEBHOOK_MAX_ATTEMPTS, then given up with its reason kept (never a webhook's URL: its host); a failure that cannot
// succeed later (a 4xx other than 408 and 429, a refused URL, an SMTP server's 5xx refusal) is given up at once.
// Every attempt is written to the rule's delivery log (delivery-log.ts), as is each "Send a test" (sendTest), which
// goes through the same sending code with a message marked as a test and is never retried.
import { randomUUID } from 'node:crypto';
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { AlertDeliveryLogEntry } from '@contract/alerts';
import { alertDeliveries, alertEvents, alertMutes, alertRules } from '@server/db/alerts-schema';
import type { Db } from '@server/db/database';
import { memberships, users, workspaces } from '@server/db/schema';
import { savedQueries } from '@server/db/social-schema';
import type { Mailer } from '@server/mail/mailer';
import { recordAttempt, toLogEntry } from './delivery-log';
import { eventPath, hostOf, notificationPath, toAlertRuleResponse } from './store';
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

/** How one send went; `status` is the receiver's answer (an HTTP status, an SMTP reply's code) when one came. */
type Outcome =
  | { ok: true; status?: number | undefined }
  | { ok: false; retry: boolean; error: string; status?: number | undefined; retryAfterSeconds?: number };

/**
 * A failed send's outcome: an SMTP server's permanent refusal (a 5xx reply: no such mailbox, a policy refusal) is
 * given up at once; its temporary ones (4xx), a lost connection or a timeout are retried.
 */
function failedSend(error: unknown): Outcome {
  const { responseCode, message } = error as { responseCode?: unknown; message?: string };
  const permanent = typeof responseCode === 'number' && responseCode >= 500 && responseCode < 600;
  return {
    ok: false,
    retry: !permanent,
    error: message ?? String(error),
    status: typeof responseCode === 'number' ? responseCode : undefined,
  };
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
      const outcome = await sendAlert(deps, row);
      const attempts = row.delivery.attempts;
      const giveUp = !outcome.ok && (!outcome.retry || attempts >= WEBHOOK_MAX_ATTEMPTS);
      await recordAttempt(deps.db, {
        ruleId: row.rule.id,
        deliveryId: id,
        channel: row.delivery.channel,
        recipient: recipientOf(row.delivery.channel, row.rule.webhookUrl, row.email),
        ok: outcome.ok,
        statusCode: outcome.status ?? null,
        error: outcome.ok ? null : outcome.error,
        willRetry: !outcome.ok && !giveUp,
      });
      if (outcome.ok) {
        round.sent += 1;
        await deps.db
          .update(alertDeliveries)
          .set({ sentAt: now(), nextAttemptAt: null, lastError: null })
          .where(eq(alertDeliveries.id, id));
        continue;
      }
      round.failed += 1;
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

/** Who an attempt went to, as the log shows it: the address, or the webhook's host (never its URL). */
const recipientOf = (channel: 'email' | 'webhook', webhookUrl: string | null, email: string | null) =>
  channel === 'webhook' ? (hostOf(webhookUrl) ?? 'no webhook') : (email ?? 'a former member');

/** What is sent, whichever the channel: an alert's event, or a test. */
interface AlertMessage {
  title: string;
  text: string;
  /** The dashboard the message opens. */
  link: string;
  /** The webhook's `x-murmur-delivery`, the same on every retry of one delivery. */
  deliveryId: string;
  /** The webhook's `murmur` object besides the delivery id, rule and url. */
  details: Record<string, unknown>;
  test: boolean;
}

type Rule = typeof alertRules.$inferSelect;
type Target = { channel: 'webhook' } | { channel: 'email'; userId: string | null; email: string | null };

/** An alert's event, sent through sendMessage. */
function sendAlert(deps: DeliveryDeps, row: DeliveryRow): Promise<Outcome> {
  const { delivery, event, rule } = row;
  const link = `${deps.appUrl}${eventPath(rule, event)}`;
  const message: AlertMessage = {
    title: event.title,
    text: event.message,
    link,
    deliveryId: String(delivery.id),
    details: {
      window: { from: event.windowStart.toISOString(), to: event.windowEnd.toISOString() },
      figures: event.figures,
    },
    test: false,
  };
  const target: Target =
    delivery.channel === 'webhook'
      ? { channel: 'webhook' }
      : { channel: 'email', userId: delivery.userId, email: row.email };
  return sendMessage(
    deps,
    { rule, queryName: row.queryName, workspaceName: row.workspaceName },
    message,
    target,
  );
}

/** One message to one target; a thrown failure (an SMTP refusal, a lost connection) becomes its outcome. */
async function sendMessage(
  deps: DeliveryDeps,
  about: { rule: Rule; queryName: string; workspaceName: string },
  message: AlertMessage,
  target: Target,
): Promise<Outcome> {
  try {
    return await sendUnchecked(deps, about, message, target);
  } catch (error) {
    return failedSend(error);
  }
}

async function sendUnchecked(
  deps: DeliveryDeps,
  { rule, queryName, workspaceName }: { rule: Rule; queryName: string; workspaceName: string },
  message: AlertMessage,
  target: Target,
): Promise<Outcome> {
  const { link } = message;
  if (target.channel === 'webhook') {
    if (!rule.webhookUrl) return { ok: false, retry: false, error: 'The rule has no webhook any more.' };
    const body = JSON.stringify({
      ...slackPayload({
        title: message.title,
        text: message.text,
        url: link,
        fields: [
          { label: 'Workspace', value: workspaceName },
          { label: 'Saved query', value: queryName },
        ],
      }),
      murmur: {
        delivery_id: message.deliveryId,
        test: message.test,
        rule_id: rule.id,
        kind: rule.kind,
        period: rule.period,
        ...message.details,
        url: link,
      },
    });
    const result = await deliverWebhook(
      {
        url: rule.webhookUrl,
        body,
        secret: rule.webhookSecret,
        deliveryId: message.deliveryId,
        timestamp: Math.floor((deps.now?.() ?? new Date()).getTime() / 1000),
      },
      { allowPrivateHosts: deps.allowPrivateHosts },
    );
    return result;
  }
  if (!deps.mailer) return { ok: false, retry: false, error: 'No SMTP server is configured (SMTP_URL).' };
  if (!target.email || !target.userId) return { ok: false, retry: false, error: 'The recipient is gone.' };
  const unsubscribe = `${deps.appUrl}/unsubscribe#token=${unsubscribeToken(deps.unsubscribeKey, rule.id, target.userId)}`;
  const why = message.test
    ? `You get this test because you are told of this alert rule in the workspace "${workspaceName}".`
    : `You get this because you are told of this alert rule in the workspace "${workspaceName}".`;
  const text =
    `${message.text}\n\nOpen the dashboard: ${link}\n\n` +
    `${why} To stop these e-mails and notifications for this rule: ${unsubscribe}\n`;
  const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const html =
    `<p>${escape(message.text)}</p><p><a href="${escape(link)}">Open the dashboard</a></p>` +
    `<p style="color:#666;font-size:12px">${escape(why)} ` +
    `<a href="${escape(unsubscribe)}">Unsubscribe from this rule</a>.</p>`;
  const sent = await deps.mailer.send({
    to: target.email,
    subject: message.title,
    text,
    html,
    headers: { 'List-Unsubscribe': `<${unsubscribe}>` },
  });
  const code = /^\d{3}/.exec(sent.response ?? '')?.[0];
  return { ok: true, status: code ? Number(code) : undefined };
}

/**
 * "Send a test" of a rule: a message marked as a test, through the same sending code, to the rule's webhook and (when
 * it e-mails) each recipient who is still a member and has not muted it, each attempt written to the log (never
 * retried). The log's entries, or null when the rule has neither an e-mail recipient nor a webhook.
 */
export async function sendTest(
  deps: DeliveryDeps,
  { workspaceId, ruleId, sentBy }: { workspaceId: string; ruleId: string; sentBy: string },
): Promise<AlertDeliveryLogEntry[] | null> {
  const [found] = await deps.db
    .select({ rule: alertRules, queryName: savedQueries.name, workspaceName: workspaces.name })
    .from(alertRules)
    .innerJoin(savedQueries, eq(savedQueries.id, alertRules.savedQueryId))
    .innerJoin(workspaces, eq(workspaces.id, alertRules.workspaceId))
    .where(and(eq(alertRules.workspaceId, workspaceId), eq(alertRules.id, ruleId)));
  if (!found) return null;
  const { rule } = found;
  const told =
    rule.email && rule.recipientIds.length
      ? await deps.db
          .select({ userId: users.id, email: users.email })
          .from(memberships)
          .innerJoin(users, eq(users.id, memberships.userId))
          .leftJoin(
            alertMutes,
            and(eq(alertMutes.ruleId, rule.id), eq(alertMutes.userId, memberships.userId)),
          )
          .where(
            and(
              eq(memberships.workspaceId, workspaceId),
              inArray(memberships.userId, rule.recipientIds),
              isNull(alertMutes.userId),
            ),
          )
      : [];
  const targets: Target[] = [
    ...(rule.webhookUrl ? [{ channel: 'webhook' as const }] : []),
    ...told.map((t) => ({ channel: 'email' as const, userId: t.userId, email: t.email })),
  ];
  if (!targets.length) return null;
  const now = deps.now?.() ?? new Date();
  const summary = toAlertRuleResponse(rule, { canEdit: false, muted: false }).summary;
  const message: AlertMessage = {
    title: `Test: alert rule on "${found.queryName}"`,
    text:
      `This is a test, not an alert: nothing fired. ${sentBy} sent it from the Alerts page of "${found.workspaceName}" ` +
      `to check that this rule's messages arrive. The rule: ${summary}.`,
    link: `${deps.appUrl}${notificationPath(rule.workspaceId, rule.savedQueryId, rule.period, now)}`,
    deliveryId: `test_${randomUUID()}`,
    details: { window: null, figures: null },
    test: true,
  };
  const entries: AlertDeliveryLogEntry[] = [];
  for (const target of targets) {
    const outcome = await sendMessage(deps, found, message, target);
    const row = await recordAttempt(deps.db, {
      ruleId: rule.id,
      deliveryId: null,
      channel: target.channel,
      recipient: recipientOf(target.channel, rule.webhookUrl, 'email' in target ? target.email : null),
      ok: outcome.ok,
      statusCode: outcome.status ?? null,
      error: outcome.ok ? null : outcome.error,
      willRetry: false,
      test: true,
    });
    entries.push(toLogEntry(row));
  }
  return entries;
}
