// A saved long query's matches written before its dashboards are read (issue 55). The first read of a long query
// writes the set of its matches (server/analytics/figures/match-sets.ts): at 10M posts over 90 days, 2.5 s for the
// bench's 300-term query, against about 1 s for every read after it, which reads the kept set. A saved query is read
// again and again, so its set is written in the background when the query is saved or its text changed, and when the
// server starts (the long saved queries changed last, at most KEPT_SETS): its first dashboard then reads a kept set,
// which follows the change feed and is carried to a later end as any kept set is (kept-sets.ts).
//
// The set holds PREPARED_MS back from the moment it is written: a view of up to 90 days with the previous period its
// overview compares it with, and a day for the bucket bounds of the workspace's zone. A longer or older view writes
// its own set, as an unsaved query's does. Only the embedded store keeps sets, so only it is prepared.
import { desc } from 'drizzle-orm';
import type { Db } from '@server/db/database';
import { savedQueries } from '@server/db/social-schema';
import { storeMatch } from '@server/analytics/figures/match';
import { KEPT_SETS } from '@server/analytics/figures/kept-sets';
import { matchSetsFor } from '@server/analytics/figures/match-sets';
import type { AnalyticsService } from '@server/analytics/service';
import { parsedQuery } from '@server/lists/store';

const DAY_MS = 86_400_000;
/** How far back from its writing a prepared set holds a saved query's matches. */
export const PREPARED_MS = (2 * 90 + 1) * DAY_MS;
/** The saved queries changed last that the server's start looks through for long ones. */
const RECENT = 50;

/**
 * Writes the kept set of the matches of a workspace's query `text` up to `now` (unless a kept one holds them already)
 * when the query is long and the store an embedded one ready to answer; false when it is not.
 */
export async function prepareQuery(
  db: Db,
  service: AnalyticsService | undefined,
  workspaceId: string,
  text: string,
  now = new Date(),
): Promise<boolean> {
  const reading = service?.reading();
  if (!reading || reading.generation % 2 === 1 || reading.store.pid === undefined) return false;
  const { ast } = await parsedQuery(db, workspaceId, text);
  const sets = matchSetsFor(reading.store, ast, storeMatch(), {
    generation: reading.generation,
    write: true,
  });
  if (!sets) return false;
  await sets.prepare({ from: new Date(now.getTime() - PREPARED_MS), to: now });
  return true;
}

/** Prepares a saved query's set in the background; a failure is only said (the first read writes the set then). */
export function prepareInBackground(
  db: Db,
  service: AnalyticsService | undefined,
  workspaceId: string,
  text: string,
  log: (line: string) => void,
): void {
  prepareQuery(db, service, workspaceId, text).catch((error: unknown) =>
    log(
      `A saved query's matches could not be prepared: ${error instanceof Error ? error.message : String(error)}.`,
    ),
  );
}

/** At start: prepares the sets of the long saved queries changed last (at most KEPT_SETS); how many it wrote. */
export async function prepareRecentQueries(db: Db, service: AnalyticsService): Promise<number> {
  const rows = await db
    .select({ workspaceId: savedQueries.workspaceId, query: savedQueries.query })
    .from(savedQueries)
    .orderBy(desc(savedQueries.updatedAt), desc(savedQueries.id))
    .limit(RECENT);
  let prepared = 0;
  for (const row of rows) {
    if (prepared === KEPT_SETS) break;
    // A query that no longer parses (a list it read was deleted) is left to its page, which says why.
    if (await prepareQuery(db, service, row.workspaceId, row.query).catch(() => false)) prepared += 1;
  }
  return prepared;
}
