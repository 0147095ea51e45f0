// Source-silent rules evaluated (contract/alerts.ts, docs/alerts.md): for each saved query such a rule watches, its
// tracking and coverage read as the coverage panel reads them (readTracking: the recorded gap, or the one it derives
// for a stream that stopped committing or a source not collected), and each of its tracked sources silent for at
// least the rule's hours told once. A silence starts when the source's open gap opened, or, without one, at the later
// of its last post and when tracking began on it; never before tracking was last turned on. Its event's window is the
// silence (start → the evaluation that told it) and its key (rule, start, source): a silence that goes on is never
// told twice, whatever evaluates it.
import { eq } from 'drizzle-orm';
import type { TrackingResponse } from '@contract/tracking';
import { wallClock } from '@contract/zoned-time';
import { alertRules } from '@server/db/alerts-schema';
import type { Db } from '@server/db/database';
import { readTracking } from '@server/tracking/store';
import { writeFiring, type RuleRow } from './fire';

const HOUR_MS = 3_600_000;

/** A tracked source silent long enough. */
export interface Silence {
  source: string;
  /** As shown: "Bluesky", "Mastodon (mastodon.social)". */
  label: string;
  since: Date;
  /** The open gap's reason and sentence, when the source has one. */
  gap: { reason: string; message: string } | null;
}

const fromUnix = (seconds: number) => new Date(seconds * 1000);

/** The sources of a saved query's tracking silent for at least `hours` at `now` (none while tracking is off). */
export function silentSources(tracking: TrackingResponse, hours: number, now: Date): Silence[] {
  if (!tracking.enabled) return [];
  const turnedOn = tracking.tracking_since ?? 0;
  return tracking.coverage.flatMap((coverage) => {
    const start = coverage.gap
      ? coverage.gap.since
      : Math.max(coverage.last_post_at ?? 0, coverage.tracking_since);
    const since = fromUnix(Math.max(start, turnedOn));
    if (now.getTime() - since.getTime() < hours * HOUR_MS) return [];
    return [
      {
        source: coverage.source,
        label: coverage.label,
        since,
        gap: coverage.gap && { reason: coverage.gap.reason, message: coverage.gap.message },
      },
    ];
  });
}

const pad = (n: number) => String(n).padStart(2, '0');
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "09:12" in the zone, with its day ("25 Nov 09:12") when that is not the day of `now`. */
function clockText(instant: Date, now: Date, timeZone: string): string {
  const w = wallClock(instant, timeZone);
  const today = wallClock(now, timeZone);
  const time = `${pad(w.hour)}:${pad(w.minute)}`;
  const sameDay = w.year === today.year && w.month === today.month && w.day === today.day;
  return sameDay ? time : `${w.day} ${MONTHS[w.month - 1]} ${time}`;
}

/** A silence's title and message: the source, the query, since when in the zone, how long, and why when known. */
export function silenceWording(
  rule: Pick<RuleRow, 'queryName' | 'timeZone'>,
  silence: Silence,
  now: Date,
): { title: string; message: string } {
  const hours = Math.floor((now.getTime() - silence.since.getTime()) / HOUR_MS);
  const head =
    `${silence.label} has been silent for "${rule.queryName}" since ` +
    `${clockText(silence.since, now, rule.timeZone)} (${hours} hour${hours === 1 ? '' : 's'})`;
  const why = silence.gap?.message.trim();
  return {
    title: `${silence.label} silent for "${rule.queryName}"`,
    message: why
      ? `${head}: ${/[.!?]$/.test(why) ? why : `${why}.`}`
      : `${head}: no new post collected for it.`,
  };
}

/** Writes one silence's firing, the rule locked and still a source-silent rule that is on. Whether it fired. */
function tell(db: Db, rule: RuleRow, silence: Silence, now: Date): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select({ enabled: alertRules.enabled, kind: alertRules.kind })
      .from(alertRules)
      .where(eq(alertRules.id, rule.id))
      .for('update');
    if (!current?.enabled || current.kind !== 'source_silent') return false;
    const { title, message } = silenceWording(rule, silence, now);
    return writeFiring(tx, rule, {
      windowStart: silence.since,
      windowEnd: now,
      source: silence.source,
      figures: {
        source: silence.source,
        source_label: silence.label,
        silent_hours: Math.floor((now.getTime() - silence.since.getTime()) / HOUR_MS),
        threshold: rule.threshold,
        gap_reason: silence.gap?.reason ?? null,
      },
      title,
      message,
    });
  });
}

/** Judges the source-silent rules at `now`: one coverage read per saved query serves every rule on it. */
export async function evaluateSilences(
  db: Db,
  rules: RuleRow[],
  now: Date,
  log: (message: string) => void,
): Promise<{ fired: number; failed: number }> {
  const byQuery = new Map<string, RuleRow[]>();
  for (const rule of rules) byQuery.set(rule.savedQueryId, [...(byQuery.get(rule.savedQueryId) ?? []), rule]);
  const result = { fired: 0, failed: 0 };
  for (const [savedQueryId, group] of byQuery) {
    let tracking: TrackingResponse;
    try {
      tracking = await readTracking(db, savedQueryId, now);
    } catch (error) {
      result.failed += 1;
      log(`Alerts: the coverage of ${savedQueryId} could not be read (${(error as Error).message}).`);
      continue;
    }
    for (const rule of group) {
      for (const silence of silentSources(tracking, rule.threshold ?? Infinity, now)) {
        if (await tell(db, rule, silence, now)) result.fired += 1;
      }
    }
  }
  return result;
}
