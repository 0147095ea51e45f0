// The outbox position the store holds, in a table of its own beside the layout's: the last batch whose rows it has
// applied and the corpus version that batch made. Written after the batch's rows (so a crash between the two applies
// the batch again, which changes nothing), and by a rebuild into the new database before it is swapped in (so the
// store and its position arrive together).
import { DURABLE, hasTable, STORE_DATABASE } from './layout';
import type { AnalyticsStore } from './store';

export interface StorePosition {
  /** The last outbox seq applied (0: none yet; a rebuild's snapshot may start anywhere). */
  seq: number;
  /** The corpus version that batch made: what the store's answers reflect. */
  corpusVersion: number;
}

const TABLE = 'applied';

/**
 * Makes the position table in `db` when missing: one row a round until its parts merge, which keep the latest only
 * (ReplacingMergeTree by seq over one key), so it does not grow with the rounds; the latest is read either way.
 */
export async function ensurePositionTable(store: AnalyticsStore, db = STORE_DATABASE): Promise<void> {
  await store.exec(
    `CREATE TABLE IF NOT EXISTS ${db}.${TABLE} (seq UInt64, corpus_version UInt64, at DateTime64(3) DEFAULT now64(3))
      ENGINE = ReplacingMergeTree(seq) ORDER BY tuple() SETTINGS ${DURABLE}`,
  );
}

/** The position the store in `db` holds, or null when it has none (no table yet, or no row). */
export async function storePosition(
  store: AnalyticsStore,
  db = STORE_DATABASE,
): Promise<StorePosition | null> {
  if (!(await hasTable(store, db, TABLE))) return null;
  const [row] = await store.query<{ seq: string; corpus_version: string }>(
    `SELECT seq, corpus_version FROM ${db}.${TABLE} ORDER BY seq DESC LIMIT 1`,
  );
  return row ? { seq: Number(row.seq), corpusVersion: Number(row.corpus_version) } : null;
}

/** Records `position` as the store's (positions only grow: the latest seq is the one read). */
export async function recordPosition(
  store: AnalyticsStore,
  position: StorePosition,
  db = STORE_DATABASE,
): Promise<void> {
  await store.exec(
    `INSERT INTO ${db}.${TABLE} (seq, corpus_version) VALUES ({seq:UInt64}, {version:UInt64})`,
    {
      seq: position.seq,
      version: position.corpusVersion,
    },
  );
}
