// Alerts (internal API): rules on a workspace's saved queries, and the notifications they send. Shared by the SPA and
// the server (server/alerts). Owners and managers make and change rules; every member reads them, mutes them for
// themselves and reads their own notifications.
import * as z from 'zod/mini';
import { workspaceIdSchema } from './workspaces';

/**
 * - spike: the window's mentions are a spike by the overview's own rule (above the mean of the window and the ones
 *   before it, 12 hours or 14 days, plus two standard deviations, and at least 5);
 * - volume: the window's mentions reach `threshold`;
 * - sentiment_shift: the window's negative share is at least `threshold` points above the previous window's (with at
 *   least SENTIMENT_SHIFT_MIN_MENTIONS mentions in the window);
 * - source_silent: one of the sources the saved query is tracked on (tracking on, the source chosen) has been silent
 *   for at least `threshold` hours (1 to SOURCE_SILENT_HOURS_MAX). A source is silent since the start of its open
 *   coverage gap, when it has one (any reason, as the coverage panel shows it: a recorded gap, a stream that stopped
 *   committing, a source this installation does not collect); otherwise since the later of its last post (the newest
 *   post time collected for the query) and when tracking began on it (nothing collected with a later post time);
 *   never before tracking was last turned on. It fires once per source and silence start: a silence that goes on is
 *   not told again; a new gap, or a post collected and then silence again, is a new silence. Its window is the
 *   silence (from its start to the evaluation that told it); its `period` is not read. The saved query must be
 *   tracked when the rule is made or changed (400 otherwise); a rule whose query stops being tracked never fires.
 */
export const ALERT_KINDS = ['spike', 'volume', 'sentiment_shift', 'source_silent'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];
/** The window: the current hour or day of the workspace's zone (so far), against those before it. */
export const ALERT_PERIODS = ['hour', 'day'] as const;
export type AlertPeriod = (typeof ALERT_PERIODS)[number];
export const ALERT_CHANNELS = ['email', 'webhook'] as const;

/** The windows before the current one that a spike is measured against. */
export const SPIKE_HISTORY = { hour: 12, day: 14 } as const;
export const SENTIMENT_SHIFT_MIN_MENTIONS = 10;
/** Rules per workspace at most. */
export const ALERT_RULES_LIMIT = 300;
const VOLUME_THRESHOLD_MAX = 1_000_000_000;
/** A source-silent rule's threshold in hours: at most a week. */
export const SOURCE_SILENT_HOURS_MAX = 168;
/** Notifications listed per page. */
export const NOTIFICATIONS_PAGE = 30;

export const ALERT_KIND_LABELS: Record<AlertKind, string> = {
  spike: 'Spike',
  volume: 'Volume threshold',
  sentiment_shift: 'Sentiment shift',
  source_silent: 'Source silent',
};

const ruleFields = {
  saved_query_id: z.uuid(),
  kind: z.enum(ALERT_KINDS),
  period: z.enum(ALERT_PERIODS),
  /**
   * volume: 1 to VOLUME_THRESHOLD_MAX mentions; sentiment_shift: 1 to 100 points; source_silent: 1 to
   * SOURCE_SILENT_HOURS_MAX hours; spike: null.
   */
  threshold: z.nullable(z.int()),
  in_app: z.boolean(),
  email: z.boolean(),
  /** Members of the workspace told in the app and by e-mail. */
  recipient_ids: z.array(z.uuid()).check(z.maxLength(500)),
  /** An http(s) URL the alert is posted to (Slack's incoming webhooks take it as it is), or null. */
  webhook_url: z.nullable(z.string().check(z.maxLength(2000))),
  enabled: z.boolean(),
};

/** What the threshold must be for the kind, as a sentence, or null when it fits. */
export function thresholdProblem(kind: AlertKind, threshold: number | null): string | null {
  if (kind === 'spike') return threshold === null ? null : 'A spike rule takes no threshold.';
  if (threshold === null) return 'This rule needs a threshold.';
  if (kind === 'volume')
    return threshold >= 1 && threshold <= VOLUME_THRESHOLD_MAX
      ? null
      : `The threshold is a number of mentions from 1 to ${VOLUME_THRESHOLD_MAX.toLocaleString('en-US')}.`;
  if (kind === 'source_silent')
    return threshold >= 1 && threshold <= SOURCE_SILENT_HOURS_MAX
      ? null
      : `The silence is a number of hours from 1 to ${SOURCE_SILENT_HOURS_MAX}.`;
  return threshold >= 1 && threshold <= 100 ? null : 'The shift is a number of points from 1 to 100.';
}

export const createAlertRuleBodySchema = z.strictObject({
  ...ruleFields,
  threshold: z._default(ruleFields.threshold, null),
  in_app: z._default(ruleFields.in_app, true),
  email: z._default(ruleFields.email, false),
  webhook_url: z._default(ruleFields.webhook_url, null),
  enabled: z._default(ruleFields.enabled, true),
});
export type CreateAlertRuleBody = z.infer<typeof createAlertRuleBodySchema>;

/** Any of the fields but the saved query; the kind and threshold are checked together once merged with the rule's. */
export const updateAlertRuleBodySchema = z.strictObject({
  kind: z.optional(ruleFields.kind),
  period: z.optional(ruleFields.period),
  threshold: z.optional(ruleFields.threshold),
  in_app: z.optional(ruleFields.in_app),
  email: z.optional(ruleFields.email),
  recipient_ids: z.optional(ruleFields.recipient_ids),
  webhook_url: z.optional(ruleFields.webhook_url),
  enabled: z.optional(ruleFields.enabled),
});

export const alertRuleParamsSchema = z.object({ id: workspaceIdSchema, ruleId: z.uuid() });

export const alertRuleResponseSchema = z.object({
  id: z.string(),
  workspace_id: z.string(),
  saved_query_id: z.string(),
  kind: z.enum(ALERT_KINDS),
  period: z.enum(ALERT_PERIODS),
  threshold: z.nullable(z.int()),
  in_app: z.boolean(),
  email: z.boolean(),
  recipient_ids: z.array(z.string()),
  /** For owners and managers; for viewers only whether there is one (`webhook_host`). */
  webhook_url: z.nullable(z.string()),
  webhook_host: z.nullable(z.string()),
  /** The signing secret of the webhook's deliveries (owners and managers only). */
  webhook_secret: z.nullable(z.string()),
  enabled: z.boolean(),
  /** Whether the caller muted it. */
  muted: z.boolean(),
  /** Unix seconds. */
  last_fired_at: z.nullable(z.int()),
  created_by: z.nullable(z.string()),
  created_at: z.int(),
  updated_at: z.int(),
  /** A sentence saying what the rule watches, e.g. "A spike in an hour against the 12 before it". */
  summary: z.string(),
  /**
   * The rule's last e-mail or webhook delivery (a test included), or null before the first: when the newest attempt to
   * any of its recipients or its webhook failed, the newest such failure; else the newest attempt.
   */
  last_delivery: z.nullable(
    z.object({
      /** Unix seconds. */
      at: z.int(),
      ok: z.boolean(),
      /** Why it failed, in words (null when it went through). */
      error: z.nullable(z.string()),
    }),
  ),
});
export type AlertRule = z.infer<typeof alertRuleResponseSchema>;

/** Delivery attempts kept per rule (the newest). */
export const ALERT_DELIVERY_LOG_KEPT = 50;

const alertDeliveryLogEntrySchema = z.object({
  id: z.int(),
  /** Unix seconds. */
  at: z.int(),
  channel: z.enum(ALERT_CHANNELS),
  /** The e-mail address, or the webhook's host (its URL is a secret). */
  recipient: z.string(),
  ok: z.boolean(),
  /** The receiver's answer: an HTTP status, or the SMTP reply's code; null when none came. */
  status_code: z.nullable(z.int()),
  /** Why it failed, in words; null when it went through. */
  error: z.nullable(z.string()),
  /** A failure that is tried again later. */
  will_retry: z.boolean(),
  /** Sent with "Send a test", not by an alert. */
  test: z.boolean(),
});
export type AlertDeliveryLogEntry = z.infer<typeof alertDeliveryLogEntrySchema>;

export const alertDeliveryLogResponseSchema = z.object({
  /** Newest first, at most ALERT_DELIVERY_LOG_KEPT. */
  deliveries: z.array(alertDeliveryLogEntrySchema),
});
export type AlertDeliveryLog = z.infer<typeof alertDeliveryLogResponseSchema>;

export const alertRuleListResponseSchema = z.object({
  rules: z.array(alertRuleResponseSchema),
  /** Whether the caller may make and change rules (owners and managers). */
  can_edit: z.boolean(),
  limit: z.int(),
});

const notificationSchema = z.object({
  id: z.int(),
  workspace_id: z.string(),
  workspace_name: z.string(),
  rule_id: z.string(),
  saved_query_id: z.string(),
  saved_query_name: z.string(),
  kind: z.enum(ALERT_KINDS),
  period: z.enum(ALERT_PERIODS),
  title: z.string(),
  message: z.string(),
  /** The window that fired (ISO instants) and the zone it is a wall-clock hour or day of. */
  window: z.object({ from: z.string(), to: z.string() }),
  time_zone: z.string(),
  /** The dashboard at the window, as a path of the SPA (no origin). */
  path: z.string(),
  created_at: z.int(),
  read: z.boolean(),
});
export type AppNotification = z.infer<typeof notificationSchema>;

export const notificationListQuerySchema = z.object({
  /** Notifications older than this id (the previous page's last). */
  before: z.optional(z.coerce.number().check(z.int(), z.positive())),
  unread: z.optional(z.enum(['true', 'false'])),
});

export const notificationListResponseSchema = z.object({
  notifications: z.array(notificationSchema),
  unread: z.int(),
  /** The id to pass as `before` for the next page, or null at the end. */
  next_before: z.nullable(z.int()),
});

export const markNotificationsBodySchema = z.union([
  z.strictObject({ ids: z.array(z.int().check(z.positive())).check(z.minLength(1), z.maxLength(100)) }),
  z.strictObject({ all: z.literal(true) }),
]);

export const unreadCountResponseSchema = z.object({ unread: z.int() });

/** The e-mail's unsubscribe link's token: it mutes one rule for one person, nothing else. */
export const unsubscribeBodySchema = z.strictObject({ token: z.string().check(z.maxLength(500)) });
