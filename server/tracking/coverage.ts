// What collection calls: the saved queries tracked on a source now, and coverage of (query, source) recorded as posts
// arrive (posts per UTC day, the last post, how far back the backfill reached) or as a gap opens (its reason, sentence
// and span). On a pool or in an open transaction (a page's posts and its coverage commit together). The stream
// consumers (Bluesky's Jetstream, Mastodon's streaming API) and the polling job (poll.ts) share these.
import type pg from 'pg';
import { inArray } from 'drizzle-orm';
import type { GAP_REASONS } from '@contract/tracking';
import { workspaces } from '@server/db/schema';
import { collectedThisMonth, limitsOf } from '@server/billing/limits';
import type { Catalogue } from '@server/billing/plans';
import type { ListKind, QueryLists } from '@server/query/index';
import { TRACKING_CHANGED } from '@server/saved-queries/store';
import type { Executor } from '@server/workspaces/access';

type Queryable = pg.Pool | pg.PoolClient;

export interface TrackedQuery {
  savedQueryId: string;
  workspaceId: string;
  /** The saved query's current text: an edit re-derives what is collected at the next poll or event. */
  text: string;
  /** The workspace's lists the text may read (none read when it names none), current as the text is. */
  lists: QueryLists;
}

/** The saved queries tracked on `source` now (tracking on, the source chosen), oldest first. */
export async function trackedQueriesFor(db: Queryable, source: string): Promise<TrackedQuery[]> {
  const { rows } = await db.query<Omit<TrackedQuery, 'lists'> & { lists: [string, ListKind, string[]][] }>(
    `SELECT q.id AS "savedQueryId", q.workspace_id AS "workspaceId", q.query AS text,
       (SELECT coalesce(json_agg(json_build_array(l.name, l.kind, l.items)), '[]'::json)
        FROM query_lists l WHERE l.workspace_id = q.workspace_id AND q.query ~* 'list\\(') AS lists
     FROM saved_query_tracking t JOIN saved_queries q ON q.id = t.saved_query_id
     WHERE t.enabled AND $1 = ANY (t.sources)
     ORDER BY q.created_at, q.id`,
    [source],
  );
  return rows.map((row) => ({
    ...row,
    lists: new Map(row.lists.map(([name, kind, items]) => [name, { kind, items }])),
  }));
}

type GapReason = (typeof GAP_REASONS)[number];

export interface Gap {
  reason: GapReason;
  /** The sentence shown: "Rate limited until 14:05 UTC". */
  message: string;
  /** When the gap is expected to end; null when unknown. */
  until: Date | null;
}

export interface Collected {
  /** When each post newly collected for the query was posted: one entry a post, counted on today's UTC day. */
  postedAt: readonly Date[];
  /** The oldest post time the search reached (a backfill's progress), matching or not. */
  reachedBack?: Date;
  /**
   * The gap stays open: a backfill beside a stream (Bluesky, Mastodon: the gap is the stream's to close), posts
   * another query's search found (the gap is of the query's own searches), one feed of several that answered, or a
   * Mastodon hashtag stream's posts while the public one is down (the gaps follow the streams' state, not posts).
   */
  keepGap?: boolean;
}

/**
 * Records what arrived for (query, source): today's count, the last post, how far back the backfill reached; and
 * closes any gap (the source answered; not with keepGap), kept with its span. A no-op when the source is no longer tracked for the query.
 */
export async function recordCoverage(
  db: Queryable,
  savedQueryId: string,
  source: string,
  collected: Collected,
  now = new Date(),
): Promise<void> {
  const times = collected.postedAt.map((t) => t.getTime());
  const newest = times.length > 0 ? new Date(Math.max(...times)) : null;
  const back = [...times, ...(collected.reachedBack ? [collected.reachedBack.getTime()] : [])];
  const oldest = back.length > 0 ? new Date(Math.min(...back)) : null;
  if (!collected.keepGap) await closeOpenGaps(db, source, [savedQueryId], null, now);
  const { rowCount } = await db.query(
    `UPDATE tracking_coverage SET last_poll_at = $3,
       last_post_at = CASE WHEN $4::timestamptz IS NULL THEN last_post_at
         ELSE greatest(last_post_at, $4::timestamptz) END,
       backfilled_to = CASE WHEN $5::timestamptz IS NULL THEN backfilled_to
         ELSE least(backfilled_to, $5::timestamptz) END${
           collected.keepGap
             ? ''
             : ', gap_reason = NULL, gap_message = NULL, gap_since = NULL, gap_until = NULL'
         }
     WHERE saved_query_id = $1 AND source = $2`,
    [savedQueryId, source, now, newest, oldest],
  );
  if (!rowCount || times.length === 0) return;
  await db.query(
    `INSERT INTO tracking_coverage_days (saved_query_id, source, day, posts) VALUES ($1, $2, ($3::timestamptz AT TIME
       ZONE 'UTC')::date, $4)
     ON CONFLICT (saved_query_id, source, day) DO UPDATE SET posts = tracking_coverage_days.posts + excluded.posts`,
    [savedQueryId, source, now, times.length],
  );
}

/** Opens (or updates) the gap of (query, source): its reason, sentence and end; its start stays the first time. */
export async function recordGap(
  db: Queryable,
  savedQueryId: string,
  source: string,
  gap: Gap,
  now = new Date(),
): Promise<void> {
  await db.query(
    `UPDATE tracking_coverage SET last_poll_at = $3, gap_reason = $4, gap_message = $5, gap_until = $6,
       gap_since = CASE WHEN gap_reason IS NULL THEN $3 ELSE gap_since END
     WHERE saved_query_id = $1 AND source = $2`,
    [savedQueryId, source, now, gap.reason, gap.message, gap.until],
  );
}

/**
 * Closes the open gaps on `source` — of the queries given (all when null), of `reason` (any when null) — and keeps each
 * in tracking_gaps with its span (since → now), in one statement: coverage then says what was missed after it ended.
 */
async function closeOpenGaps(
  db: Queryable,
  source: string,
  savedQueryIds: string[] | null,
  reason: GapReason | null,
  now: Date,
): Promise<void> {
  await db.query(
    `WITH closed AS (
       UPDATE tracking_coverage c SET gap_reason = NULL, gap_message = NULL, gap_since = NULL, gap_until = NULL
       FROM (SELECT saved_query_id, source, gap_reason, gap_message, gap_since FROM tracking_coverage
             WHERE source = $1 AND gap_reason IS NOT NULL
               AND ($2::uuid[] IS NULL OR saved_query_id = ANY($2::uuid[]))
               AND ($3::text IS NULL OR gap_reason = $3)
             FOR UPDATE) o
       WHERE c.saved_query_id = o.saved_query_id AND c.source = o.source
       RETURNING o.saved_query_id, o.source, o.gap_reason, o.gap_message, o.gap_since)
     INSERT INTO tracking_gaps (saved_query_id, source, reason, message, since, ended_at)
     SELECT saved_query_id, source, gap_reason, coalesce(gap_message, ''), gap_since, greatest(gap_since, $4)
     FROM closed WHERE gap_since IS NOT NULL`,
    [source, savedQueryIds, reason, now],
  );
}

/**
 * Closes the open gaps of `reason` on `source` for every query (the stream is back): nothing else ends a stream's
 * drop when no post comes. Each is kept with its span.
 */
export async function closeGaps(
  db: Queryable,
  source: string,
  reason: GapReason,
  now = new Date(),
  savedQueryIds: string[] | null = null,
): Promise<void> {
  await closeOpenGaps(db, source, savedQueryIds, reason, now);
}

export interface CoverageState {
  lastPostAt: Date | null;
  backfilledTo: Date | null;
  gapUntil: Date | null;
  /** When the query was first tracked on the source: a stream counts what was posted after it. */
  trackingSince: Date;
  /** Polling sources: the connector's cursor of each search, by its text. */
  cursors: Record<string, unknown>;
}

/** Where (query, source) stands, locked for the caller's transaction; undefined when it is not tracked. */
export async function coverageState(
  db: Queryable,
  savedQueryId: string,
  source: string,
): Promise<CoverageState | undefined> {
  const { rows } = await db.query<CoverageState>(
    `SELECT last_post_at AS "lastPostAt", backfilled_to AS "backfilledTo", gap_until AS "gapUntil",
       tracking_since AS "trackingSince", cursors
     FROM tracking_coverage WHERE saved_query_id = $1 AND source = $2 FOR UPDATE`,
    [savedQueryId, source],
  );
  return rows[0];
}

/** Keeps the cursors of the searches the query compiles to now (an edit drops the others). */
export async function saveCursors(
  db: Queryable,
  savedQueryId: string,
  source: string,
  cursors: Record<string, unknown>,
): Promise<void> {
  await db.query(
    'UPDATE tracking_coverage SET cursors = $3::jsonb WHERE saved_query_id = $1 AND source = $2',
    [savedQueryId, source, JSON.stringify(cursors)],
  );
}

/**
 * A stream's side of tracking (server/scraping/streams): the queries tracked on `source`, as the consumer takes them,
 * and, in each batch's transaction, the posts each query matched added to its coverage.
 */
export function streamTracking(
  source: string,
  db: Executor,
  catalogue: Catalogue,
  options: Pick<Collected, 'keepGap'> = {},
) {
  return {
    changes: TRACKING_CHANGED,
    queries: async (pool: pg.Pool) =>
      (await collectableQueries(db, pool, catalogue, source)).map((query) => ({
        id: query.savedQueryId,
        text: query.text,
        lists: query.lists,
      })),
    record: async (client: pg.PoolClient, hits: ReadonlyArray<{ queries: string[]; postedAt: string }>) => {
      const byQuery = new Map<string, Date[]>();
      for (const hit of hits)
        for (const id of hit.queries) byQuery.set(id, [...(byQuery.get(id) ?? []), new Date(hit.postedAt)]);
      for (const [id, postedAt] of byQuery)
        await recordCoverage(client, id, source, { ...options, postedAt });
    },
  };
}

/** The first instant of next month (UTC): when a month's collection limit lifts. */
const nextMonth = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));

/**
 * The queries tracked on `source` whose workspace may still collect this month (the plan's posts_collected_per_month,
 * server/billing/limits.ts). The others pause with the gap plan_limit, said with its sentence; nothing collected is
 * lost. A query allowed again (a larger plan) has that gap closed. Checked at each round or query refresh, so a
 * workspace may pass its limit by what one round collects.
 */
export async function collectableQueries(
  db: Executor,
  pool: Queryable,
  catalogue: Catalogue,
  source: string,
  now = new Date(),
): Promise<TrackedQuery[]> {
  const tracked = await trackedQueriesFor(pool, source);
  const ids = [...new Set(tracked.map((query) => query.workspaceId))];
  if (ids.length === 0) return [];
  const plans = await db
    .select({ id: workspaces.id, plan: workspaces.plan })
    .from(workspaces)
    .where(inArray(workspaces.id, ids));
  const refused = new Map<string, Gap>();
  for (const { id, plan } of plans) {
    const { limits, planName } = limitsOf(catalogue, plan);
    const limit = limits.posts_collected_per_month;
    if (limit === null || (await collectedThisMonth(db, id)) < limit) continue;
    const resumes = nextMonth(now).toLocaleDateString('en-GB', {
      day: 'numeric',
      month: 'long',
      timeZone: 'UTC',
    });
    refused.set(id, {
      reason: 'plan_limit',
      message:
        `Collection paused: this workspace has collected its ${planName} plan's ${limit.toLocaleString('en-US')} ` +
        `posts this month. Nothing collected is lost; collection resumes on ${resumes}, or with a larger plan.`,
      // Not a wait the poll honours (gap_until): a larger plan lifts it at the next round.
      until: null,
    });
  }
  const allowed: TrackedQuery[] = [];
  for (const query of tracked) {
    const gap = refused.get(query.workspaceId);
    if (gap) await recordGap(pool, query.savedQueryId, source, gap, now);
    else allowed.push(query);
  }
  if (allowed.length > 0)
    await closeOpenGaps(
      pool,
      source,
      allowed.map((query) => query.savedQueryId),
      'plan_limit',
      now,
    );
  return allowed;
}
