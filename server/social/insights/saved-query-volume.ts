// The saved queries' volume (POST /social/saved-queries/volume): every saved query of a workspace with its matching
// posts per day over the last 7 whole days and today, days of the workspace's zone. Each query is resolved as the
// dashboards resolve it (request.ts: its text and filters) and counted as the overview counts mentions, all of them in
// one statement on the analytics store (server/analytics/figures/volume.ts), so the list costs one round trip.
import { SAVED_QUERY_VOLUME_DAYS, type SavedQueryVolume } from '@contract/saved-queries';
import { queryFiltersSchema } from '@contract/social-scope';
import type { Db } from '@server/db/database';
import { ApiError } from '@server/errors';
import { listSavedQueries } from '@server/saved-queries/store';
import { formatLocal } from '../counted';
import { usableTimeZone } from '@contract/zoned-time';
import { NO_CORRECTIONS } from '../corrections';
import { resolveInsightScope, type InsightScope } from './request';
import { instantOfWallClock, wallClock } from '@contract/zoned-time';
import { storeDayCounts } from '@server/analytics/figures/volume';
import type { AnalyticsService } from '@server/analytics/service';
import type { QueryNode } from '@server/query/index';
import { fromStore } from './store-source';

const DAY_MS = 86_400_000;

/** The wall-clock dates counted ("YYYY-MM-DD", oldest first, today last) and the first instant of the first. */
function volumeDays(now: Date, timeZone: string): { days: string[]; from: Date } {
  const today = wallClock(now, timeZone);
  const todayAsUtc = Date.UTC(today.year, today.month - 1, today.day);
  const days = Array.from({ length: SAVED_QUERY_VOLUME_DAYS }, (_, i) =>
    new Date(todayAsUtc - (SAVED_QUERY_VOLUME_DAYS - 1 - i) * DAY_MS).toISOString().slice(0, 10),
  );
  return { days, from: instantOfWallClock(`${days[0]}T00:00:00`, timeZone) };
}

/**
 * Every counted query's posts per day (`i`: its index in `contexts`, null ones not counted), from the store in one
 * statement. Every query's words are asked of PostgreSQL together (the queries named as one OR's operands:
 * store-source.ts), then each query is compiled on its own.
 */
function volumeFromStore(
  db: Db,
  contexts: Array<InsightScope | null>,
  timeZone: string,
  service: AnalyticsService | undefined,
) {
  const queries = contexts.flatMap((context) => (context?.scope.query ? [context.scope.query] : []));
  const query: QueryNode | null =
    queries.length > 1 ? { type: 'or', operands: queries } : (queries[0] ?? null);
  return fromStore(
    db,
    { timeZone, scope: { query } },
    service,
    (store, { match }) =>
      storeDayCounts(
        store,
        contexts.map((context) => context && { context, match }),
      ),
    async (_tx, rows) => rows,
  );
}

/**
 * `db` counts the posts (the analytics pool or a read replica); the saved queries are listed from `savedQueriesDb`
 * (the primary's light pool, where they are written), `db` unless given.
 */
export async function savedQueryVolume(
  db: Db,
  workspace: { id: string; timeZone: string },
  {
    savedQueriesDb = db,
    now = new Date(),
    analytics,
  }: { savedQueriesDb?: Db; now?: Date; analytics?: AnalyticsService } = {},
): Promise<SavedQueryVolume> {
  const timeZone = usableTimeZone(workspace.timeZone);
  const { days, from } = volumeDays(now, timeZone);
  const range = { from: from.toISOString(), to: now.toISOString() };
  const saved = await listSavedQueries(savedQueriesDb, workspace.id);

  // The saved query's own text and filters, its date range replaced by the volume's: as a dashboard asked for
  // this saved query with filters { from, to } would count it.
  const contexts = await Promise.all(
    saved.map(async (row) => {
      const filters = queryFiltersSchema.safeParse(row.filters);
      try {
        return await resolveInsightScope(
          savedQueriesDb,
          workspace,
          {
            workspace_id: workspace.id,
            query: row.query,
            filters: { ...(filters.success ? filters.data : {}), ...range },
          },
          now,
          // Counts of posts, without refinements: sentiment is not read.
          NO_CORRECTIONS,
        );
      } catch (error) {
        // Saved before a change of the language made it invalid: listed without counts rather than failing them all.
        if (error instanceof ApiError && error.code === 'invalid_query') return null;
        throw error;
      }
    }),
  );

  const rows = await volumeFromStore(db, contexts, timeZone, analytics);

  const counts = contexts.map((context) => (context ? days.map(() => 0) : null));
  for (const row of rows) {
    const day = days.indexOf(row.local.slice(0, 10));
    if (day >= 0) counts[row.i]![day] = Number(row.n);
  }
  return {
    time_zone: timeZone,
    days,
    range,
    counted:
      `Posts matching each saved query (its text, platforms and languages) posted from ${formatLocal(from, timeZone)} ` +
      `(inclusive) to ${formatLocal(now, timeZone)} (exclusive), ${timeZone}, per wall-clock day; each post once, ` +
      `whatever its kind: the mentions of the overview dashboard.`,
    saved_queries: saved.map((row, i) => ({
      id: row.id,
      counts: counts[i]!,
      total: counts[i] ? counts[i].reduce((a, b) => a + b, 0) : null,
    })),
  };
}
