// Alert rules evaluated (docs/alerts.md): every enabled rule of every workspace whose plan runs, judged on its saved
// query's overview over its window (the zone's current hour or day, so far) and the windows before it, read as the
// overview dashboard reads them (the analytics store): its buckets alone (overviewBuckets), which is all
// a rule reads. One read per saved query and period serves every rule on it. Run by the alerts job (job.ts) every minute and after the analytics store applies a batch.
//
// A rule fires once per episode: when its condition holds in a window and did not in the window before (neither held
// nor stayed above its release level: hysteresis). Firing writes the event (unique per rule and window, so a restart
// or a second worker evaluating the same window writes nothing more), the notifications and the deliveries, in one
// transaction with the rule's episode (fire.ts). Source-silent rules are judged on tracking's coverage instead
// (silence.ts), whether the store is ready or not.
import { and, eq, isNull, or, sql } from 'drizzle-orm';
import {
  SENTIMENT_SHIFT_MIN_MENTIONS,
  SPIKE_HISTORY,
  type AlertKind,
  type AlertPeriod,
} from '@contract/alerts';
import { instantOfWallClock, wallClock } from '@contract/zoned-time';
import { figuresReady } from '@server/analytics/figures-wait';
import type { AnalyticsService } from '@server/analytics/service';
import { alertRules } from '@server/db/alerts-schema';
import type { Db } from '@server/db/database';
import { workspaces } from '@server/db/schema';
import { savedQueries } from '@server/db/social-schema';
import {
  overviewBuckets,
  SPIKE_MIN_COUNT,
  spikeStats,
  type OverviewBucket,
} from '@server/social/insights/overview';
import { loadCorrections, type Corrections } from '@server/social/corrections';
import { resolveInsightScope } from '@server/social/insights/request';
import { writeFiring, type RuleRow } from './fire';
import { evaluateSilences } from './silence';
import { spikeWhy, type SpikeWhy } from './spike-why';
import { wording } from './wording';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** The window a rule judges at an instant, and the range of the overview it is judged on. */
export interface AlertWindow {
  start: Date;
  end: Date;
  /** The previous window's start. */
  previous: Date;
  /** The overview's range: SPIKE_HISTORY windows before this one, and this one. */
  from: Date;
}

const pad = (n: number) => String(n).padStart(2, '0');
const dayText = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The current hour or day of the zone at `now`, as its instants. */
export function windowAt(now: Date, period: AlertPeriod, timeZone: string): AlertWindow {
  const w = wallClock(now, timeZone);
  const day = `${w.year}-${pad(w.month)}-${pad(w.day)}`;
  if (period === 'hour') {
    const start = instantOfWallClock(`${day}T${pad(w.hour)}:00:00`, timeZone);
    return {
      start,
      end: new Date(start.getTime() + HOUR_MS),
      previous: new Date(start.getTime() - HOUR_MS),
      from: new Date(start.getTime() - SPIKE_HISTORY.hour * HOUR_MS),
    };
  }
  const today = Date.parse(`${day}T00:00:00Z`);
  const localDay = (offset: number) =>
    instantOfWallClock(`${dayText(today + offset * DAY_MS)}T00:00:00`, timeZone);
  return { start: localDay(0), end: localDay(1), previous: localDay(-1), from: localDay(-SPIKE_HISTORY.day) };
}

/** A window's mentions and negative posts, as the overview counts them. */
export interface WindowCount {
  mentions: number;
  negative: number;
}

/** What a rule found in its window: whether its condition holds, whether it stays above its release level. */
export interface Judgement {
  holds: boolean;
  /** Above the release level (the episode goes on without firing again). */
  keeps: boolean;
  figures: Record<string, number | null>;
}

const share = (count: WindowCount) => (count.mentions ? count.negative / count.mentions : 0);
const round1 = (n: number) => Math.round(n * 10) / 10;

/**
 * The rule's condition on its windows' counts (oldest first, the current window last). Release levels: a spike's
 * window above the mean; a volume's at 80 % of its threshold; a sentiment shift's at half its points.
 */
export function judge(kind: AlertKind, threshold: number | null, counts: WindowCount[]): Judgement {
  const current = counts.at(-1) ?? { mentions: 0, negative: 0 };
  if (kind === 'spike') {
    const stats = spikeStats(counts.map((c) => c.mentions));
    return {
      holds: stats.isSpike(current.mentions),
      keeps: current.mentions > stats.mean && current.mentions >= SPIKE_MIN_COUNT,
      figures: {
        mentions: current.mentions,
        mean: round1(stats.mean),
        stddev: round1(stats.stddev),
        threshold: round1(stats.threshold),
      },
    };
  }
  if (kind === 'volume') {
    const t = threshold ?? Infinity;
    return {
      holds: current.mentions >= t,
      keeps: current.mentions >= 0.8 * t,
      figures: { mentions: current.mentions, threshold: t },
    };
  }
  const previous = counts.at(-2) ?? { mentions: 0, negative: 0 };
  const compared = current.mentions >= SENTIMENT_SHIFT_MIN_MENTIONS && previous.mentions > 0;
  const points = compared ? (share(current) - share(previous)) * 100 : null;
  const t = threshold ?? Infinity;
  return {
    holds: points !== null && points >= t,
    keeps: points !== null && points >= t / 2,
    figures: {
      mentions: current.mentions,
      negative_share: round1(share(current) * 100),
      previous_mentions: previous.mentions,
      previous_negative_share: compared ? round1(share(previous) * 100) : null,
      points: points === null ? null : round1(points),
      threshold: t,
    },
  };
}

/**
 * The rule's episode after judging `window`: it fires when its condition holds and the episode's last window is
 * neither this one nor the one before (a calm window ended the last episode); the episode goes on while each window
 * holds or keeps.
 */
export function nextEpisode(
  episodeWindow: Date | null,
  window: Pick<AlertWindow, 'start' | 'previous'>,
  judgement: Pick<Judgement, 'holds' | 'keeps'>,
): { fire: boolean; episodeWindow: Date | null } {
  const ongoing = episodeWindow !== null && episodeWindow.getTime() >= window.previous.getTime();
  if (judgement.holds) return { fire: !ongoing, episodeWindow: window.start };
  if (judgement.keeps && ongoing) return { fire: false, episodeWindow: window.start };
  return { fire: false, episodeWindow };
}

export interface EvaluationResult {
  rules: number;
  /** Overviews read (one per saved query and period). */
  overviews: number;
  fired: number;
  /**
   * Saved queries whose overview (or, for source-silent rules, coverage) could not be read (a query that no longer
   * parses, a timeout): logged, skipped.
   */
  failed: number;
}

/** The rules to judge: enabled, in workspaces whose plan has not expired. */
async function enabledRules(db: Db, now: Date): Promise<RuleRow[]> {
  return db
    .select({
      id: alertRules.id,
      workspaceId: alertRules.workspaceId,
      savedQueryId: alertRules.savedQueryId,
      kind: alertRules.kind,
      period: alertRules.period,
      threshold: alertRules.threshold,
      inApp: alertRules.inApp,
      email: alertRules.email,
      recipientIds: alertRules.recipientIds,
      webhookUrl: alertRules.webhookUrl,
      timeZone: workspaces.timeZone,
      queryName: savedQueries.name,
    })
    .from(alertRules)
    .innerJoin(workspaces, eq(workspaces.id, alertRules.workspaceId))
    .innerJoin(savedQueries, eq(savedQueries.id, alertRules.savedQueryId))
    .where(
      and(
        eq(alertRules.enabled, true),
        or(
          isNull(workspaces.planExpiredAt),
          sql`${workspaces.planExpiredAt} > ${now.toISOString()}::timestamptz`,
        ),
      ),
    );
}

/** The windows' counts of a saved query's overview over `window`'s range, oldest first, or null if it is not there. */
function countsOf(buckets: OverviewBucket[], window: AlertWindow): WindowCount[] | null {
  if (buckets.at(-1)?.start !== window.start.toISOString()) return null;
  return buckets.map((b) => ({ mentions: b.mentions, negative: b.negative }));
}

/**
 * Judges every enabled rule at `now` and fires those whose episode starts. `nudge` is told when anything fired (the
 * delivery job then sends at once).
 */
export async function evaluateAlerts({
  db,
  analytics,
  now = new Date(),
  log = console.log,
}: {
  db: Db;
  analytics?: AnalyticsService | undefined;
  now?: Date;
  log?: (message: string) => void;
}): Promise<EvaluationResult> {
  const rules = await enabledRules(db, now);
  const result: EvaluationResult = { rules: rules.length, overviews: 0, fired: 0, failed: 0 };
  // Sources gone silent (silence.ts): read from tracking's coverage, not the store's figures.
  const silences = await evaluateSilences(
    db,
    rules.filter((rule) => rule.kind === 'source_silent'),
    now,
    log,
  );
  result.fired += silences.fired;
  result.failed += silences.failed;
  const windowed = rules.filter((rule) => rule.kind !== 'source_silent');
  const groups = new Map<string, RuleRow[]>();
  for (const rule of windowed) {
    const key = `${rule.savedQueryId} ${rule.period}`;
    groups.set(key, [...(groups.get(key) ?? []), rule]);
  }
  // No store that can answer (opening, rebuilding, off): the round is skipped, not failed; a later one evaluates.
  const wait = figuresReady(analytics);
  if (wait && windowed.length > 0) {
    log(`[alerts] Round skipped: ${wait.message}`);
    return result;
  }
  // Each workspace's sentiment corrections (a sentiment shift counts them), read once a round.
  const corrections = new Map<string, Promise<Corrections>>();
  const correctionsOf = (workspaceId: string) => {
    let loaded = corrections.get(workspaceId);
    if (!loaded) corrections.set(workspaceId, (loaded = loadCorrections(db, workspaceId)));
    return loaded;
  };
  for (const group of groups.values()) {
    const { workspaceId, savedQueryId, period, timeZone } = group[0]!;
    const window = windowAt(now, period, timeZone);
    let counts: WindowCount[] | null;
    try {
      const context = await resolveInsightScope(
        db,
        { timeZone },
        {
          workspace_id: workspaceId,
          saved_query_id: savedQueryId,
          filters: { from: window.from.toISOString(), to: window.end.toISOString() },
          refine: [],
        },
        now,
        await correctionsOf(workspaceId),
      );
      counts = countsOf(await overviewBuckets(db, context, analytics), window);
      result.overviews += 1;
    } catch (error) {
      result.failed += 1;
      log(`Alerts: the saved query ${savedQueryId} could not be read (${(error as Error).message}).`);
      continue;
    }
    if (!counts) {
      result.failed += 1;
      log(`Alerts: the overview of ${savedQueryId} did not end at the window ${window.start.toISOString()}.`);
      continue;
    }
    const judged = group.map((rule) => ({ rule, judgement: judge(rule.kind, rule.threshold, counts) }));
    // A spike that may fire: its drivers, read once for the group's rules (spike-why.ts).
    const why = judged.some(({ rule, judgement }) => rule.kind === 'spike' && judgement.holds)
      ? await spikeWhy(
          db,
          analytics,
          {
            workspaceId,
            savedQueryId,
            timeZone,
            corrections: await correctionsOf(workspaceId),
            from: window.start,
            to: new Date(Math.min(now.getTime(), window.end.getTime())),
            now,
          },
          log,
        )
      : null;
    for (const { rule, judgement } of judged) {
      if (await settle(db, rule, window, judgement, rule.kind === 'spike' ? why : null)) result.fired += 1;
    }
  }
  return result;
}

/**
 * The rule's episode moved on, and when it fires, its event, notifications and deliveries written: one transaction,
 * the rule's row locked (two evaluations of one rule take turns). Whether it fired.
 */
async function settle(
  db: Db,
  rule: RuleRow,
  window: AlertWindow,
  judgement: Judgement,
  why: SpikeWhy | null,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select({ episodeWindow: alertRules.episodeWindow, enabled: alertRules.enabled })
      .from(alertRules)
      .where(eq(alertRules.id, rule.id))
      .for('update');
    if (!current?.enabled) return false;
    const next = nextEpisode(current.episodeWindow, window, judgement);
    if (next.episodeWindow?.getTime() !== current.episodeWindow?.getTime()) {
      await tx
        .update(alertRules)
        .set({ episodeWindow: next.episodeWindow })
        .where(eq(alertRules.id, rule.id));
    }
    if (!next.fire) return false;
    const { title, message } = wording(rule, judgement.figures, why);
    return writeFiring(tx, rule, {
      windowStart: window.start,
      windowEnd: window.end,
      figures: why ? { ...judgement.figures, drivers: why.drivers } : judgement.figures,
      title,
      message,
    });
  });
}
