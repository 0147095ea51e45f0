// Saved queries' tracking in the database, for the API: reading it with its coverage per source, and writing it in the
// caller's transaction. What collection calls (the tracked queries of a source, coverage recorded) is in coverage.ts.
import { and, asc, desc, eq, gt, gte, lt, notInArray, sql } from 'drizzle-orm';
import {
  savedQueryTracking,
  trackingCoverage,
  trackingCoverageDays,
  trackingGaps,
} from '@server/db/tracking-schema';
import { toUnixSeconds, type Executor } from '@server/workspaces/access';
import type { Coverage, GAP_REASONS, TrackingGapsResponse, TrackingResponse } from '@contract/tracking';
import { streamCursors } from '@server/db/scraping-schema';
import { COLLECTED_SOURCES, describeSource, SILENT_AFTER_MS, streamOf } from './sources';
import { announceTrackingChange } from '@server/saved-queries/store';

/** Days of posts per day (and of closed gaps) the coverage panel shows. */
const PER_DAY_DAYS = 14;
/** Closed gaps shown a source, the latest first. */
const CLOSED_GAPS = 10;

const unix = (date: Date | null) => (date ? toUnixSeconds(date) : null);
const utcDay = (date: Date) => date.toISOString().slice(0, 10);

/** When each stream last committed (stream_cursors), by its name. */
async function streamsLastHeard(db: Executor): Promise<Map<string, Date>> {
  const rows = await db.select({ name: streamCursors.name, at: streamCursors.updatedAt }).from(streamCursors);
  return new Map(rows.map((row) => [row.name, row.at]));
}

/**
 * The gap of a source nothing collects for now, or null: a polled source is collected (its own gaps are recorded by
 * the poll); a streamed one while its stream commits, and silent since its last commit otherwise.
 */
function uncollected(
  source: string,
  label: string,
  trackingSince: Date,
  streamed: Map<string, Date>,
  now: Date,
): Coverage['gap'] {
  if (COLLECTED_SOURCES.has(source)) return null;
  const stream = streamOf(source);
  const heard = stream ? streamed.get(stream) : undefined;
  if (heard && now.getTime() - heard.getTime() < SILENT_AFTER_MS) return null;
  if (heard) {
    const since = heard > trackingSince ? heard : trackingSince;
    return {
      reason: 'unreachable',
      message: `The ${label} stream has been silent since ${since.toISOString().slice(11, 16)} UTC.`,
      since: toUnixSeconds(since),
      until: null,
    };
  }
  return {
    reason: 'not_collected',
    // A streamed source is still backfilled by the poll (poll-sources.ts): what is missing is what is new.
    message: stream
      ? `This installation does not collect from ${label} as posts arrive: its stream is not running here (earlier ` +
        'posts are backfilled).'
      : `This installation does not collect from ${label} for tracked queries yet.`,
    since: toUnixSeconds(trackingSince),
    until: null,
  };
}

/** A saved query's tracking and coverage, as the API answers it (off, with no sources, when never set). */
export async function readTracking(
  db: Executor,
  savedQueryId: string,
  now = new Date(),
): Promise<TrackingResponse> {
  const [tracking] = await db
    .select()
    .from(savedQueryTracking)
    .where(eq(savedQueryTracking.savedQueryId, savedQueryId));
  const sources = tracking?.sources ?? [];
  const rows = await db
    .select()
    .from(trackingCoverage)
    .where(eq(trackingCoverage.savedQueryId, savedQueryId));
  const since = new Date(now.getTime() - PER_DAY_DAYS * 86_400_000);
  const days = await db
    .select()
    .from(trackingCoverageDays)
    .where(
      and(eq(trackingCoverageDays.savedQueryId, savedQueryId), gte(trackingCoverageDays.day, utcDay(since))),
    )
    .orderBy(asc(trackingCoverageDays.day));
  const closed = await db
    .select()
    .from(trackingGaps)
    .where(and(eq(trackingGaps.savedQueryId, savedQueryId), gte(trackingGaps.endedAt, since)))
    .orderBy(desc(trackingGaps.endedAt), desc(trackingGaps.since));
  const today = utcDay(now);
  const streamed = await streamsLastHeard(db);
  const coverage: Coverage[] = sources.flatMap((source) => {
    const row = rows.find((r) => r.source === source);
    const described = describeSource(source);
    if (!row || !described) return [];
    const perDay = days.filter((d) => d.source === source).map((d) => ({ day: d.day, posts: d.posts }));
    return [
      {
        source,
        label: described.label,
        mode: described.mode,
        tracking_since: toUnixSeconds(row.trackingSince),
        backfilled_to: unix(row.backfilledTo),
        last_post_at: unix(row.lastPostAt),
        last_poll_at: unix(row.lastPollAt),
        posts_today: perDay.find((d) => d.day === today)?.posts ?? 0,
        per_day: perDay,
        gap:
          row.gapReason && row.gapSince
            ? {
                reason: row.gapReason as (typeof GAP_REASONS)[number],
                message: row.gapMessage ?? '',
                since: toUnixSeconds(row.gapSince),
                until: unix(row.gapUntil),
              }
            : uncollected(source, described.label, row.trackingSince, streamed, now),
        closed_gaps: closed
          .filter((gap) => gap.source === source)
          .slice(0, CLOSED_GAPS)
          .map((gap) => ({
            reason: gap.reason as (typeof GAP_REASONS)[number],
            message: gap.message,
            since: toUnixSeconds(gap.since),
            ended: toUnixSeconds(gap.endedAt),
          })),
      },
    ];
  });
  return {
    saved_query_id: savedQueryId,
    enabled: tracking?.enabled ?? false,
    sources,
    tracking_since: unix(tracking?.trackingSince ?? null),
    coverage,
  };
}

/** Ended gaps a chart's span marks at most. */
const SPAN_GAPS = 200;

/**
 * A tracked query's gaps that overlap [from, to), the latest first: each source's open gap (as its coverage says it,
 * a stream's silence included), then the ended ones kept (tracking_gaps). None when tracking is off.
 */
export async function readGaps(
  db: Executor,
  savedQueryId: string,
  span: { from: Date; to: Date },
  now = new Date(),
): Promise<TrackingGapsResponse> {
  const tracking = await readTracking(db, savedQueryId, now);
  if (!tracking.enabled) return { gaps: [] };
  const labels = new Map(tracking.coverage.map((c) => [c.source, c.label]));
  const [from, to] = [toUnixSeconds(span.from), toUnixSeconds(span.to)];
  const open = tracking.coverage.flatMap((c) =>
    c.gap && c.gap.reason !== 'not_collected' && c.gap.since < to && (c.gap.until ?? Infinity) > from
      ? [{ source: c.source, label: c.label, ...c.gap, ended: false }]
      : [],
  );
  const ended = await db
    .select()
    .from(trackingGaps)
    .where(
      and(
        eq(trackingGaps.savedQueryId, savedQueryId),
        lt(trackingGaps.since, span.to),
        gt(trackingGaps.endedAt, span.from),
      ),
    )
    .orderBy(desc(trackingGaps.endedAt), desc(trackingGaps.since))
    .limit(SPAN_GAPS);
  return {
    gaps: [
      ...open,
      ...ended.flatMap((gap) => {
        const label = labels.get(gap.source);
        return label
          ? [
              {
                source: gap.source,
                label,
                reason: gap.reason as (typeof GAP_REASONS)[number],
                message: gap.message,
                since: toUnixSeconds(gap.since),
                until: toUnixSeconds(gap.endedAt),
                ended: true,
              },
            ]
          : [];
      }),
    ],
  };
}

/**
 * Sets a saved query's tracking in the caller's transaction: turning it on starts "tracking since" now (it stays
 * while on); a source added starts its coverage now, a source removed drops its coverage.
 */
export async function writeTracking(
  tx: Executor,
  savedQueryId: string,
  body: { enabled: boolean; sources: string[] },
  userId: string,
): Promise<void> {
  const [previous] = await tx
    .select()
    .from(savedQueryTracking)
    .where(eq(savedQueryTracking.savedQueryId, savedQueryId))
    .for('update');
  const trackingSince = body.enabled && !previous?.enabled ? sql`now()` : (previous?.trackingSince ?? null);
  await tx
    .insert(savedQueryTracking)
    .values({ savedQueryId, enabled: body.enabled, sources: body.sources, trackingSince, updatedBy: userId })
    .onConflictDoUpdate({
      target: savedQueryTracking.savedQueryId,
      set: {
        enabled: body.enabled,
        sources: body.sources,
        trackingSince,
        updatedBy: userId,
        updatedAt: sql`now()`,
      },
    });
  await tx
    .delete(trackingCoverage)
    .where(
      and(
        eq(trackingCoverage.savedQueryId, savedQueryId),
        body.sources.length > 0 ? notInArray(trackingCoverage.source, body.sources) : sql`true`,
      ),
    );
  if (body.sources.length > 0) {
    await tx
      .insert(trackingCoverage)
      .values(body.sources.map((source) => ({ savedQueryId, source })))
      .onConflictDoNothing();
  }
  await announceTrackingChange(tx, savedQueryId);
}
