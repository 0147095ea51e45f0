// A saved long query's matches written before its dashboards are read (issue 55). The first read of a long query
// writes the set of its matches (server/analytics/figures/match-sets.ts): at 10M posts over 90 days, 2.5 s for the
// bench's 300-term query, against about 1 s for every read after it, which reads the kept set. A saved query is read
// again and again, so its set is written in the background when the query is saved or its text changed, and when the
// server starts (the long saved queries changed last, at most KEPT_SETS), and when a list it reads is edited (its
// expanded query is another): its first dashboard then reads a kept set, which follows the change feed and is carried
// to a later end as any kept set is (kept-sets.ts).
//
// The set holds PREPARED_MS back from the moment it is written: a view of up to 90 days with the previous period its
// overview compares it with, and a day for the bucket bounds of the workspace's zone. A longer or older view writes
// its own set, as an unsaved query's does. Only the embedded store keeps sets, so only it is prepared. The saved
// queries' and the lists' routes are given their preparation by server/routes.ts (they import no figures).
import { desc, eq } from 'drizzle-orm';
import type { Db } from '@server/db/database';
import { savedQueries } from '@server/db/social-schema';
import { parsedQuery } from '@server/lists/store';
import { listNames, parseQuery } from '@server/query/index';
import type { AnalyticsService } from '@server/analytics/service';
import { KEPT_SETS } from '@server/analytics/figures/kept-sets';
import { storeMatch } from '@server/analytics/figures/match';
import { matchSetsFor } from '@server/analytics/figures/match-sets';

const DAY_MS = 86_400_000;
/** How far back from its writing a prepared set holds a saved query's matches. */
export const PREPARED_MS = (2 * 90 + 1) * DAY_MS;
/** How long a preparation waits for a round writing to the store, up to three times. */
const WRITES_WAIT_MS = 2_000;
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
  const { ast } = await parsedQuery(db, workspaceId, text);
  // A round of the change feed writing to the store is waited for, as a read waits (store-source.ts).
  const writing = () => (service?.reading()?.generation ?? 0) % 2 === 1;
  for (let attempt = 0; service && attempt < 3 && writing(); attempt += 1)
    await service.writesSettled(WRITES_WAIT_MS);
  const reading = service?.reading();
  if (!reading || reading.generation % 2 === 1 || reading.store.pid === undefined) return false;
  const sets = matchSetsFor(reading.store, ast, storeMatch(), {
    generation: reading.generation,
    write: true,
  });
  if (!sets) return false;
  await sets.prepare({ from: new Date(now.getTime() - PREPARED_MS), to: now });
  return true;
}

/** `prepare` run in the background; a failure is only said (the first read writes the set then). */
export function inBackground(prepare: Promise<unknown>, log: (line: string) => void): void {
  prepare.catch((error: unknown) =>
    log(
      `A saved query's matches could not be prepared: ${error instanceof Error ? error.message : String(error)}.`,
    ),
  );
}

/** Whether the saved query `text` reads the list `name`. */
function readsList(text: string, name: string): boolean {
  const parsed = parseQuery(text);
  return parsed.ok && listNames(parsed.ast).includes(name);
}

/**
 * Prepares the sets of the long saved queries changed last, at most KEPT_SETS: at start, every workspace's; after a
 * list is edited, those of its workspace that read it (`readers`). How many it prepared.
 */
export async function prepareSavedQueries(
  db: Db,
  service: AnalyticsService | undefined,
  readers?: { workspaceId: string; list: string },
): Promise<number> {
  const rows = await db
    .select({ workspaceId: savedQueries.workspaceId, query: savedQueries.query })
    .from(savedQueries)
    .where(readers && eq(savedQueries.workspaceId, readers.workspaceId))
    .orderBy(desc(savedQueries.updatedAt), desc(savedQueries.id))
    .limit(RECENT);
  let prepared = 0;
  for (const row of rows) {
    if (prepared === KEPT_SETS) break;
    if (readers && !readsList(row.query, readers.list)) continue;
    // A query that no longer parses (a list it read was deleted) is left to its page, which says why.
    if (await prepareQuery(db, service, row.workspaceId, row.query).catch(() => false)) prepared += 1;
  }
  return prepared;
}
