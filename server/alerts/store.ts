// Alert rules and notifications in the database: rows to responses, the checks a rule passes before it is stored, and
// the dashboard a notification opens.
import { randomBytes } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import {
  ALERT_KIND_LABELS,
  SPIKE_HISTORY,
  thresholdProblem,
  type AlertKind,
  type AlertPeriod,
  type AlertRule,
} from '@contract/alerts';
import { alertRules } from '@server/db/alerts-schema';
import { memberships } from '@server/db/schema';
import { savedQueries } from '@server/db/social-schema';
import { savedQueryTracking } from '@server/db/tracking-schema';
import { ApiError } from '@server/errors';
import { toUnixSeconds, type Executor } from '@server/workspaces/access';
import { webhookUrlProblem } from './webhook';

type Row = typeof alertRules.$inferSelect;

export const alertRuleNotFound = () =>
  new ApiError(404, 'alert_rule_not_found', 'This alert rule does not exist in this workspace.');

/** The rule `ruleId` of the workspace, or 404 alert_rule_not_found. */
export async function findAlertRule(db: Executor, workspaceId: string, ruleId: string): Promise<Row> {
  const [row] = await db
    .select()
    .from(alertRules)
    .where(and(eq(alertRules.workspaceId, workspaceId), eq(alertRules.id, ruleId)));
  if (!row) throw alertRuleNotFound();
  return row;
}

export const alertRulesDenied = () =>
  new ApiError(403, 'forbidden', 'Only owners and managers can change alert rules.');

const invalid = (message: string) => new ApiError(400, 'invalid_alert_rule', message);

export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64url')}`;

/** What the rule watches, in a sentence. */
function ruleSummary(kind: AlertKind, period: AlertPeriod, threshold: number | null): string {
  const window = period === 'hour' ? 'an hour' : 'a day';
  if (kind === 'spike')
    return `A spike in ${window} against the ${SPIKE_HISTORY[period]} ${period}s before it`;
  if (kind === 'volume') return `${(threshold ?? 0).toLocaleString('en-US')} mentions or more in ${window}`;
  if (kind === 'source_silent')
    return `A tracked source silent for ${threshold} hour${threshold === 1 ? '' : 's'} or more`;
  return `The negative share up ${threshold} points or more in ${window} against the ${period} before`;
}

/** A URL's host (a webhook's URL is its secret: only the host is shown or logged). */
export const hostOf = (url: string | null) => {
  if (!url) return null;
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
};

export function toAlertRuleResponse(
  row: Row,
  viewer: { canEdit: boolean; muted: boolean },
  lastDelivery: AlertRule['last_delivery'] = null,
): AlertRule {
  return {
    id: row.id,
    workspace_id: row.workspaceId,
    saved_query_id: row.savedQueryId,
    kind: row.kind,
    period: row.period,
    threshold: row.threshold,
    in_app: row.inApp,
    email: row.email,
    recipient_ids: row.recipientIds,
    webhook_url: viewer.canEdit ? row.webhookUrl : null,
    webhook_host: hostOf(row.webhookUrl),
    webhook_secret: viewer.canEdit ? row.webhookSecret : null,
    enabled: row.enabled,
    muted: viewer.muted,
    last_fired_at: row.lastFiredAt ? toUnixSeconds(row.lastFiredAt) : null,
    created_by: row.createdBy,
    created_at: toUnixSeconds(row.createdAt),
    updated_at: toUnixSeconds(row.updatedAt),
    summary: `${ALERT_KIND_LABELS[row.kind]}: ${ruleSummary(row.kind, row.period, row.threshold)}`,
    last_delivery: lastDelivery,
  };
}

/**
 * A rule's fields checked against each other and the workspace: the threshold fits the kind, the saved query is the
 * workspace's (and tracked, for a source-silent rule), every recipient is a member, the webhook URL can be called,
 * and someone or something is told.
 */
export async function checkRule(
  db: Executor,
  workspaceId: string,
  rule: {
    savedQueryId: string;
    kind: AlertKind;
    threshold: number | null;
    inApp: boolean;
    email: boolean;
    recipientIds: string[];
    webhookUrl: string | null;
  },
  { allowPrivateHosts }: { allowPrivateHosts: boolean },
): Promise<void> {
  const problem = thresholdProblem(rule.kind, rule.threshold);
  if (problem) throw invalid(problem);
  const [query] = await db
    .select({ id: savedQueries.id })
    .from(savedQueries)
    .where(and(eq(savedQueries.id, rule.savedQueryId), eq(savedQueries.workspaceId, workspaceId)));
  if (!query) throw invalid('There is no such saved query in this workspace.');
  if (rule.kind === 'source_silent') {
    const [tracking] = await db
      .select({ enabled: savedQueryTracking.enabled, sources: savedQueryTracking.sources })
      .from(savedQueryTracking)
      .where(eq(savedQueryTracking.savedQueryId, rule.savedQueryId));
    if (!tracking?.enabled || tracking.sources.length === 0)
      throw invalid(
        'A source-silent rule needs a tracked saved query: track this one on at least one source first ' +
          '(Saved queries, Track).',
      );
  }
  const recipients = [...new Set(rule.recipientIds)];
  if (recipients.length) {
    const members = await db
      .select({ userId: memberships.userId })
      .from(memberships)
      .where(and(eq(memberships.workspaceId, workspaceId), inArray(memberships.userId, recipients)));
    if (members.length !== recipients.length)
      throw invalid('Every recipient must be a member of this workspace.');
  }
  if (rule.webhookUrl !== null) {
    const urlProblem = webhookUrlProblem(rule.webhookUrl, { allowPrivateHosts });
    if (urlProblem) throw invalid(urlProblem);
  }
  const toldInApp = rule.inApp || rule.email;
  if (!rule.webhookUrl && !(toldInApp && recipients.length))
    throw invalid('Choose who is told: at least one member (in the app or by e-mail), or a webhook.');
}

/** The dashboard a notification opens: the overview of the rule's saved query over a range ending with its window. */
export function notificationPath(
  workspaceId: string,
  savedQueryId: string,
  period: AlertPeriod,
  windowEnd: Date,
  /** A spike's window start: the overview opens "Why this spike" for it. */
  why: Date | null = null,
): string {
  return overviewPath(workspaceId, savedQueryId, period === 'hour' ? '24h' : '30d', windowEnd, why);
}

function overviewPath(
  workspaceId: string,
  savedQueryId: string,
  range: '24h' | '7d' | '30d' | '90d',
  end: Date,
  why: Date | null,
): string {
  const search = new URLSearchParams({
    query: savedQueryId,
    range,
    end: end.toISOString(),
    ...(why && { why: why.toISOString() }),
  });
  return `/workspace/${encodeURIComponent(workspaceId)}/insight/overview?${search.toString()}`;
}

/**
 * The dashboard an event opens: a source-silent rule's, the overview over a range that holds the silence (its gaps
 * marked under the chart); the other kinds' as notificationPath says.
 */
export function eventPath(
  rule: { workspaceId: string; savedQueryId: string; kind: AlertKind; period: AlertPeriod },
  event: { windowStart: Date; windowEnd: Date },
): string {
  if (rule.kind !== 'source_silent')
    return notificationPath(
      rule.workspaceId,
      rule.savedQueryId,
      rule.period,
      event.windowEnd,
      rule.kind === 'spike' ? event.windowStart : null,
    );
  const hours = (event.windowEnd.getTime() - event.windowStart.getTime()) / 3_600_000;
  const range = hours < 24 ? '24h' : hours < 7 * 24 ? '7d' : hours < 30 * 24 ? '30d' : '90d';
  return overviewPath(rule.workspaceId, rule.savedQueryId, range, event.windowEnd, null);
}
