// What the analytics service (service.ts) is and says: its options, its state as /api/health and the figures' wait
// report it, and the reading a reader checks its figures against.
import type pg from 'pg';
import type { Db } from '@server/db/database';
import type { ApplierDeps } from './applier';
import type { StoreAt } from './open';
import type { RebuildProgress } from './rebuild';
import type { AnalyticsStore } from './store';

export interface AnalyticsState {
  /** What the store is doing. */
  phase: 'opening' | 'standby' | 'rebuilding' | 'applying' | 'restarting' | 'down' | 'stopped';
  /** The store may answer: its layout is current and its position is PostgreSQL's consumer's. */
  ready: boolean;
  /** Ready, and its last look at the outbox found nothing after its position. */
  caughtUp: boolean;
  /** The last outbox batch the store holds, and the corpus version it made (null until ready once). */
  appliedSeq: number | null;
  corpusVersion: number | null;
  /** While rebuilding: its phase, done of total, and the time the phase still needs at its measured rate. */
  progress?: RebuildProgress;
}

export interface AnalyticsServiceOptions extends StoreAt {
  db: Db;
  pool: pg.Pool;
  /** Tries to open the store's process again after it died, the first after restartDelayMs, doubled each next one. */
  restarts?: number;
  restartDelayMs?: number;
  /** The outbox is looked at this often even without a notification. */
  pollMs?: number;
  /**
   * While batches keep coming, a round starts at most this long after the one before (COALESCE_MS by default): the
   * batches written meanwhile are applied together, in fewer and larger inserts that the store merges less. The first
   * batch after a quiet spell is applied at once.
   */
  coalesceMs?: number;
  /** While another process holds the store's lock (server/analytics/lock.ts), it is tried again this often. */
  standbyRetryMs?: number;
  log?(line: string): void;
  /**
   * How long a read that finds the store behind PostgreSQL waits for the applier to catch up before it answers behind
   * (0: at once). A test server sets it, so that a test reads its own writes.
   */
  readWaitMs?: number;
  /** Holds a round at a point (tests of a crash between PostgreSQL's commit and the store's apply). */
  at?: ApplierDeps['at'];
}

/**
 * What a reader of the store checks its figures against: the store's position and its write generation (even while
 * no round writes to it, odd while one does). Figures read between two equal, even generations are of `corpusVersion`.
 */
export interface StoreReading {
  store: AnalyticsStore;
  generation: number;
  appliedSeq: number;
  corpusVersion: number;
}
