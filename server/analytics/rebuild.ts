// A fresh store from PostgreSQL: every profile and post (the record's columns; the store computes the words) read
// in batches in one snapshot (the profiles through a cursor, the posts by COPY to files, a range of ids each), loaded
// into a database of its own and swapped in when complete, so that a rebuild cut short leaves the store as it was. The
// store is registered as the outbox's consumer first and the snapshot's outbox position goes into the new database with
// its rows: every batch committed after the snapshot is in the outbox for the applier, and none before it is applied
// again.
import { rm } from 'node:fs/promises';
import type pg from 'pg';
import type { Db } from '@server/db/database';
import { ensureLayout, STORE_DATABASE } from './layout';
import {
  consumerPosition,
  flushCommitted,
  markApplied,
  registerConsumer,
  SNAPSHOT_POSITION_SQL,
} from './outbox';
import { ensurePositionTable, recordPosition, type StorePosition } from './position';
import {
  copyPostFiles,
  fillLexicon,
  fillSampled,
  fillTexts,
  fillTokens,
  insertProfiles,
  insertTags,
  loadPostFiles,
  profileRowsSql,
  tagRowsSql,
} from './rows';
import { TAG } from './open';
import { makeScratch } from './scratch';
import type { AnalyticsStore } from './store';

/** Where a rebuild loads before the swap; dropped when a rebuild starts, so one cut short is thrown away. */
const NEXT_DATABASE = `${STORE_DATABASE}_next`;
/** Where the store replaced by a rebuild goes at the swap, to be dropped after it. */
const OLD_DATABASE = `${STORE_DATABASE}_old`;
export const DEFAULT_REBUILD_BATCH = 5_000;
/**
 * Ids of posts a statement of the token table's and the sample-ordered copy's fills reads: each statement stays well
 * inside the store's time limit (one fill of every post took over 120 s at 10M, and the service's rebuild, cut off
 * there, began again from the start, again and again).
 */
const FILL_IDS = 250_000;
/** A whole table merged into one part can take minutes at 10M: its own time limit. */
const MERGE_TIMEOUT_MS = 3_600_000;

export interface RebuildOptions {
  /** Rows a fetch (a COPY, for the posts) and an insert. */
  batch?: number;
  /** Ids of posts a statement of the fills reads (FILL_IDS). */
  fillIds?: number;
  /**
   * Posts loaded so far (phase `posts`), then posts whose token rows and sample-ordered copy are filled (`tokens`),
   * of `total` (counted in the same snapshot).
   */
  onProgress?(done: number, total: number, phase: 'posts' | 'tokens'): void;
  /** Then, while the tables are merged each into one part: rows of the tables merged so far, of all their rows. */
  onMerge?(done: number, total: number): void;
}

/** A rebuild's phases, in their order. */
const PHASES = ['posts', 'tokens', 'merges'] as const;

/** Where a rebuild is (progressLines), for the server's state and GET /api/health. */
export interface RebuildProgress {
  /** Loading the posts, filling the token rows and the copies from them, or merging each table into one part. */
  phase: (typeof PHASES)[number];
  /** The phase's place (1 to `steps`). */
  step: number;
  steps: number;
  /** Posts (posts, tokens) or rows (merges) done, of `total`. */
  done: number;
  total: number;
  /** Of the phase, rounded down (100 only when it is done). */
  percent: number;
  /** Seconds the phase still needs at the rate measured since it began; null until a first part of it is done. */
  etaSeconds: number | null;
}

export interface RebuildResult {
  posts: number;
  profiles: number;
  /** The outbox position of the snapshot: what the store now holds and PostgreSQL's consumer records. */
  position: StorePosition;
}

/** Reads `sql` through a cursor, `batch` rows at a time, handing each batch to `load` while the next is read. */
async function streamInto(
  client: pg.PoolClient,
  name: string,
  sql: string,
  batch: number,
  load: (rows: object[]) => Promise<void>,
): Promise<number> {
  await client.query(`DECLARE ${name} NO SCROLL CURSOR FOR ${sql}`);
  let loading: Promise<void> = Promise.resolve();
  let count = 0;
  for (;;) {
    const { rows } = await client.query<object>(`FETCH ${batch} FROM ${name}`);
    await loading;
    if (rows.length === 0) break;
    count += rows.length;
    loading = load(rows);
  }
  await client.query(`CLOSE ${name}`);
  return count;
}

/**
 * The posts after id `after` (all when null), `batch` at a time, as conditions over `posts` (`id > a AND id <= b`):
 * each the next `batch` ids, found in the primary key.
 */
async function* postBatches(client: pg.PoolClient, batch: number): AsyncGenerator<string> {
  let after: string | null = null;
  for (;;) {
    const from: string = after === null ? 'true' : `id > ${after}`;
    // Named apart from the column: ORDER BY an output column's name would sort the ids as text.
    const { rows } = await client.query<{ last: string }>(
      `SELECT id::text AS last FROM posts WHERE ${from} ORDER BY id OFFSET ${batch - 1} LIMIT 1`,
    );
    const last = rows[0]?.last;
    if (last === undefined) {
      yield from;
      return;
    }
    if (!/^\d+$/.test(last)) throw new Error(`Not a post id: ${last}`);
    yield `${from} AND id <= ${last}`;
    after = last;
  }
}

/**
 * Loads every post of the snapshot `client` reads into `db`, `batch` at a time: each batch's rows written by
 * PostgreSQL to a file (copyLines) and read by the store, the next batch copied while the store loads the one
 * before. Returns how many posts.
 */
async function loadPosts(
  client: pg.PoolClient,
  store: AnalyticsStore,
  db: string,
  batch: number,
  onLoaded: (posts: number) => void,
): Promise<number> {
  const dir = await makeScratch('rebuild');
  let loading: Promise<void> = Promise.resolve();
  let posts = 0;
  let index = 0;
  try {
    for await (const condition of postBatches(client, batch)) {
      index += 1;
      const files = await copyPostFiles(client, condition, dir, String(index));
      await loading;
      posts += files.count;
      loading = (async () => {
        await loadPostFiles(store, db, files);
        await rm(files.posts);
        onLoaded(files.count);
      })();
      // Awaited above or below; until then a failure is not an unhandled rejection.
      loading.catch(() => undefined);
    }
    await loading;
    return posts;
  } finally {
    await loading.catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}

const fmt = (n: number) => n.toLocaleString('en-US');

/**
 * A rebuild's progress as log lines, for the server's rebuild in the background: `onProgress` and `onMerge`
 * (RebuildOptions) write one at most every `everyMs` (`[analytics] rebuilding, 1,000 of 10,000 posts loaded`) and tell
 * `figures` where the rebuild is (RebuildProgress: its phase, done of total, and the time the phase still needs at the
 * rate measured since it began); `rebuilt` writes the last, with the time since this was made.
 */
export function progressLines(
  log: (line: string) => void,
  everyMs: number,
  figures: (progress: RebuildProgress) => void,
) {
  const started = performance.now();
  let lastLine = started;
  let phase: RebuildProgress['phase'] | null = null;
  let phaseStarted = started;
  const report = (done: number, total: number, now: (typeof PHASES)[number]) => {
    const at = performance.now();
    if (now !== phase) {
      phase = now;
      phaseStarted = at;
    }
    const seconds = (at - phaseStarted) / 1000;
    figures({
      phase: now,
      step: PHASES.indexOf(now) + 1,
      steps: PHASES.length,
      done,
      total,
      percent: total > 0 ? Math.floor((Math.min(done, total) * 100) / total) : 0,
      etaSeconds: done > 0 && seconds > 0 ? Math.ceil((Math.max(0, total - done) * seconds) / done) : null,
    });
    if (at - lastLine < everyMs) return;
    lastLine = at;
    const what = { posts: 'posts loaded', tokens: 'posts with their token rows', merges: 'rows merged' }[now];
    log(`${TAG} rebuilding, ${fmt(done)} of ${fmt(total)} ${what}`);
  };
  return {
    onProgress(done: number, total: number, now: 'posts' | 'tokens') {
      report(done, total, now);
    },
    onMerge(done: number, total: number) {
      report(done, total, 'merges');
    },
    rebuilt(result: RebuildResult) {
      log(
        `${TAG} Rebuilt: ${fmt(result.posts)} posts and ${fmt(result.profiles)} profiles in ` +
          `${((performance.now() - started) / 1000).toFixed(1)} s (corpus version ${result.position.corpusVersion}).`,
      );
    },
  };
}

export async function rebuildStore(
  { db, pool, owner }: { db: Db; pool: pg.Pool; owner?: string },
  store: AnalyticsStore,
  options: RebuildOptions = {},
): Promise<RebuildResult> {
  const batch = options.batch ?? DEFAULT_REBUILD_BATCH;
  await store.exec(`DROP DATABASE IF EXISTS ${NEXT_DATABASE} SYNC`);
  await store.exec(`DROP DATABASE IF EXISTS ${OLD_DATABASE} SYNC`);
  await ensureLayout(store, NEXT_DATABASE);
  await ensurePositionTable(store, NEXT_DATABASE);
  // Before the snapshot: from here on every batch committed is in the outbox.
  await registerConsumer(db, owner);
  const client = await pool.connect();
  let result: RebuildResult;
  try {
    // One snapshot for the outbox position, the profiles, the posts and their count.
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const at = await client.query<{ seq: string; version: string }>(SNAPSHOT_POSITION_SQL);
    if (!at.rows[0])
      throw new Error('The analytics store was unregistered from the outbox during its rebuild');
    const position = { seq: Number(at.rows[0].seq), corpusVersion: Number(at.rows[0].version) };
    // What the snapshot sees may still be unflushed (bulk writers commit asynchronously): flushed before it is loaded.
    await flushCommitted(db);
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM posts');
    const total = Number(rows[0]!.n);
    options.onProgress?.(0, total, 'posts');
    const profiles = await streamInto(client, 'rebuild_profiles', profileRowsSql(), batch, (batchRows) =>
      insertProfiles(store, NEXT_DATABASE, batchRows),
    );
    await streamInto(client, 'rebuild_tags', tagRowsSql('true'), batch, (batchRows) =>
      insertTags(store, NEXT_DATABASE, batchRows as Array<{ tag: string; post: string }>),
    );
    let done = 0;
    const posts = await loadPosts(client, store, NEXT_DATABASE, batch, (loaded) => {
      done += loaded;
      options.onProgress?.(done, total, 'posts');
    });
    await client.query('COMMIT');
    result = { posts, profiles, position };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
  // The token table, the sample-ordered copy, the texts and the lexicon from the posts, a range of ids a statement
  // (only the ranges that hold posts, counted in one statement for the progress), then each table merged into one
  // sorted part.
  const step = Math.max(1, options.fillIds ?? FILL_IDS);
  const ranges = await store.query<{ lo: string; n: string }>(
    `SELECT intDiv(id, {step:UInt64}) * {step:UInt64} AS lo, count() AS n FROM ${NEXT_DATABASE}.posts
    GROUP BY lo ORDER BY lo`,
    { step },
  );
  let filled = 0;
  options.onProgress?.(filled, result.posts, 'tokens');
  for (const { lo, n } of ranges) {
    const range = `id >= ${Number(lo)} AND id < ${Number(lo) + step}`;
    await fillTokens(store, NEXT_DATABASE, range);
    await fillSampled(store, NEXT_DATABASE, range);
    await fillTexts(store, NEXT_DATABASE, range);
    await fillLexicon(store, NEXT_DATABASE, range);
    filled += Number(n);
    options.onProgress?.(filled, result.posts, 'tokens');
  }
  // The merges' progress in rows: each table's rows counted when it is merged (a part a table).
  const merged = ['posts', 'tok', 'posts_sampled', 'texts', 'profiles'];
  const sizes = await store.query<{ table: string; rows: string }>(
    `SELECT table, sum(rows) AS rows FROM system.parts WHERE database = {db:String} AND active GROUP BY table`,
    { db: NEXT_DATABASE },
  );
  const rowsOf = new Map(sizes.map((row) => [row.table, Number(row.rows)]));
  const mergeTotal = merged.reduce((sum, table) => sum + (rowsOf.get(table) ?? 0), 0);
  let mergeDone = 0;
  options.onMerge?.(mergeDone, mergeTotal);
  for (const table of merged) {
    await store.exec(`OPTIMIZE TABLE ${NEXT_DATABASE}.${table} FINAL`, undefined, MERGE_TIMEOUT_MS);
    mergeDone += rowsOf.get(table) ?? 0;
    options.onMerge?.(mergeDone, mergeTotal);
  }
  await recordPosition(store, result.position, NEXT_DATABASE);
  // The swap: the old store steps aside, the new one takes its name. Between the two a reader finds no store (and
  // the figures wait), never a half-loaded one.
  const [had] = await store.query<{ n: string }>(
    'SELECT count() AS n FROM system.databases WHERE name = {db:String}',
    { db: STORE_DATABASE },
  );
  if (Number(had?.n) > 0) await store.exec(`RENAME DATABASE ${STORE_DATABASE} TO ${OLD_DATABASE}`);
  await store.exec(`RENAME DATABASE ${NEXT_DATABASE} TO ${STORE_DATABASE}`);
  // Then its files go, not waited for: a table whose damaged part a statement failed on stays held for minutes, and
  // dropping it waits for that (measured: about 120 s). A drop cut short is done again by the next rebuild.
  void store
    .exec(`DROP DATABASE IF EXISTS ${OLD_DATABASE} SYNC`, undefined, MERGE_TIMEOUT_MS)
    .catch(() => undefined);
  // Last, PostgreSQL's side: the batches up to the snapshot are in the store and leave the outbox. A crash before
  // this leaves the store ahead of the consumer by batches still in the outbox, which the applier recognises.
  const consumer = await consumerPosition(db);
  if (consumer && result.position.seq > consumer.appliedSeq)
    await markApplied(db, result.position.seq, owner);
  return result;
}
