// Where a read of the corpus finds its figures: the analytics store (server/analytics), the only engine that computes
// them. The dashboards, Compare, discover, the post and profile pages, the query editor's count, the saved queries'
// volume, exports and the scraping page's totals all read the store through fromStore.
//
// - At PostgreSQL's version: the store's figures, then the posts and people they name looked up in a snapshot of that
//   same version. The answer is exactly that version's, and the answer cache keys it by that version.
// - Behind it: the applier is given the service's readWaitMs to catch up; a store still behind then answers as it is,
//   saying up to when it is complete (data_as_of: when the oldest batch it has not applied was written; everything
//   committed before it is in the store), and the answer is never kept in the answer cache (noteBehind). Posts or
//   people PostgreSQL no longer has are left out by the look-up.
// - Not ready (opening, rebuilding, starting again, a store found damaged being rebuilt), or gone during the read:
//   503 figures_preparing with the rebuild's progress, or figures_unavailable with a sentence (figures-wait.ts).
//
// The store's own consistency: its figures count only when no round of the change feed wrote to it while they were
// read (the service's write generation, the same and even before and after); otherwise they are read again, after the
// round.
import { sql } from 'drizzle-orm';
import type { Db } from '@server/db/database';
import { storeMatch } from '@server/analytics/figures/match';
import { matchSetsFor } from '@server/analytics/figures/match-sets';
import type { StoreMatch } from '@server/analytics/figures/scope';
import type { AnalyticsService } from '@server/analytics/service';
import {
  AnalyticsStoreStopped,
  AnalyticsStoreUnreachable,
  type AnalyticsStore,
} from '@server/analytics/store';
import type { QueryNode } from '@server/query/index';
import { noteBehind } from '../reads';
import { figuresUnavailable, figuresWait, storeOff } from '@server/analytics/figures-wait';
import type { InsightScope } from './request';
import { readOnly, type Tx } from './transactions';

/**
 * How long a reader waits for a round writing to the store to finish before it reads again: a round of a rule's tags
 * at 10M posts writes for up to about 4 s (2 s left three reads in a row waiting in vain, and the dashboard got 503).
 */
const WRITES_WAIT_MS = 5_000;
const TRIES = 3;

const corpusVersion = async (db: Db | Tx) =>
  Number(
    (await db.execute<{ version: string }>(sql`SELECT version::text FROM corpus_state WHERE id`)).rows[0]
      ?.version,
  );

/** When the oldest batch the store has not applied was written (null when it has applied every batch there is). */
async function unappliedSince(db: Db | Tx, appliedSeq: number): Promise<Date | null> {
  const [row] = (
    await db.execute<{ written_at: string }>(
      sql`SELECT written_at::text FROM analytics_outbox WHERE seq > ${appliedSeq} ORDER BY seq LIMIT 1`,
    )
  ).rows;
  return row ? new Date(row.written_at) : null;
}

/**
 * What a read on the store is for: the zone of the PostgreSQL snapshot its posts are looked up in and, when its
 * figures compile a query for the store through `match`, that query (a dashboard's InsightScope is one; the saved
 * queries' volume names its queries as the operands of one OR; the query editor's count, which compiles its own,
 * none). The compiler needs nothing of it in advance: a query's words are split where it compiles
 * (server/analytics/matching/words.ts).
 */
export interface StoreRead {
  timeZone: string;
  scope?: { query: QueryNode | null };
}

/** What the figures are read with: the read, and the query language's compiler for the store. */
export interface StoreSource<C extends StoreRead> {
  context: C;
  match: StoreMatch;
}

/** How a read waits; a person's read takes the defaults, a background job more patience. */
export interface ReadOptions {
  /** The long query's matches written for the read's other statements (match-sets.ts). */
  shareMatches?: boolean;
  /** How many reads are begun, each after a round that wrote during the one before, before the wait is answered. */
  tries?: number;
  /** How long the applier is given to apply what PostgreSQL has before the store is read: the service's readWaitMs. */
  catchUpMs?: number;
}

/**
 * `figures` read from the store, then `lookUp` in a PostgreSQL snapshot (the posts and profiles the figures name). A
 * store that cannot answer is the error the route answers with (see the head of this file).
 */
export async function fromStore<R, T, C extends StoreRead = InsightScope>(
  db: Db,
  context: C,
  service: AnalyticsService | undefined,
  figures: (store: AnalyticsStore, source: StoreSource<C>) => Promise<R>,
  lookUp: (tx: Tx, rows: R) => Promise<T>,
  { shareMatches = false, tries = TRIES, catchUpMs }: ReadOptions = {},
): Promise<T> {
  if (!service) throw storeOff();
  const match = storeMatch();
  for (let attempt = 0; attempt < tries; attempt += 1) {
    // Batches the store has not applied: the applier is given readWaitMs (or catchUpMs) to apply them first (their
    // newest read on the primary: `db` may be a read replica, whose outbox lags).
    await service.catchUp(catchUpMs ?? service.readWaitMs);
    // Then a round writing (or about to) is waited for, and the read begins at once after it (read-gate.ts): waited
    // for before the catch-up, a round could begin to write during it, and the read was wasted.
    await service.writesSettled(WRITES_WAIT_MS);
    const reading = service.reading();
    if (!reading) throw figuresWait(service.state());
    if (reading.generation % 2 === 1) continue;
    // Rounds wait for this read to end before they write (read-gate.ts).
    const readEnded = service.readBegun();
    let rows: R;
    // A long query's matches found once (match-sets.ts): written by the figures that send several statements over
    // the query (`shareMatches`), and kept for any read while the embedded store is unchanged.
    const sets = matchSetsFor(reading.store, context.scope?.query, match, {
      generation: reading.store.pid === undefined ? null : reading.generation,
      write: shareMatches,
    });
    try {
      rows = await figures(sets?.store ?? reading.store, { context, match: sets?.match ?? match });
    } catch (error) {
      // The store went away under the statement (its process stopped, its server out of reach).
      if (error instanceof AnalyticsStoreUnreachable)
        throw figuresUnavailable(`the analytics store cannot be reached (${error.message}).`);
      if (error instanceof AnalyticsStoreStopped)
        throw figuresWait({ ...service.state(), phase: 'restarting' });
      // Its tables gone (a server's data dropped), or its files damaged or gone: not read until the service has
      // reconciled or rebuilt it. Its tables all there: the statement's own fault, thrown as any refused statement is.
      if (await service.distrustFor(reading, error))
        throw figuresWait({ ...service.state(), phase: 'opening' });
      throw error;
    } finally {
      readEnded();
      void sets?.drop();
    }
    if (!service.unchangedSince(reading)) continue;
    return readOnly(
      db,
      async (tx) => {
        if ((await corpusVersion(tx)) > reading.corpusVersion) {
          const asOf = await unappliedSince(tx, reading.appliedSeq);
          if (asOf) noteBehind(reading.corpusVersion, asOf);
        }
        return lookUp(tx, rows);
      },
      { timeZone: context.timeZone },
    );
  }
  // Rounds kept writing to the store while it was read (a large batch being applied): asked again shortly.
  throw figuresWait({ ...service.state(), phase: 'applying' });
}
