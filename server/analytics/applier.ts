// The change feed's applier: the outbox's batches after the store's position, in seq order, applied to the store from
// PostgreSQL's current rows of the ids they name. Exactly once in effect:
// - a batch's rows are the ids' rows as PostgreSQL has them now, put in place of whatever the store had of them, so
//   applying a batch again (a crash before its position was recorded) leaves the store as once would;
// - what is read is made durable in PostgreSQL before the store takes it (flushCommitted), so a PostgreSQL crash never
//   takes back a change the store holds;
// - the store records the position after the rows, and PostgreSQL's consumer (markApplied, which trims the outbox)
//   after the store: a store ahead of the consumer by batches still in the outbox has applied them (reconcile()).
import { rm } from 'node:fs/promises';
import type pg from 'pg';
import type { Db } from '@server/db/database';
import { ofPosts } from '@server/tags/carried';
import { STORE_DATABASE } from './layout';
import {
  consumerPosition,
  flushCommitted,
  markApplied,
  outboxBatch,
  outboxSizes,
  readOutbox,
  type OutboxSize,
} from './outbox';
import { recordPosition, storePosition, type StorePosition } from './position';
import {
  copyPostFiles,
  fillLexicon,
  fillSampled,
  fillTexts,
  fillTokens,
  insertProfiles,
  insertTags,
  loadPostFiles,
  POST_TOKENS,
  type PostFiles,
  PROFILE_ROW_COLUMNS,
  profileRowsSql,
  tagRowsSql,
} from './rows';
import { PROFILE_COLUMNS, type FollowedRound, type ProfileColumn } from './figures/kept-sets';
import { makeScratch } from './scratch';
import type { AnalyticsStore } from './store';

/** Batches whose sizes are read at once, of which a round takes its first. */
const READ_BATCHES = 500;
/** A round stops taking batches once it has this many ids (a single larger batch is one round, in chunks). */
const ROUND_IDS = 50_000;
/** A tagged post's id counts as this share of one: its tags are a few short rows, a post's row is its whole text. */
const TAG_ID_SHARE = 4;
/**
 * Ids a statement names, and so the posts of one insert into each table: they are spliced into fillTokens' condition
 * and PostgreSQL's COPY (which binds no parameters) as numbers, about 200 KB of them, within the 64 MiB max_query_size
 * both stores are given (store.ts, remote.ts). Larger inserts are fewer parts for the store to merge: 25,000 posts a
 * part rather than 5,000 took a third less of its CPU a post (docs/analytics-engine.md, "Fewer, larger rounds").
 */
const CHUNK_IDS = 25_000;
/** Beyond this many old tokens the token table's delete names the posts only (the tokens then cover every granule). */
const TOKEN_FILTER_MAX = 50_000;

/** Where a round may be held (tests of a crash at each point). */
export type ApplyPoint =
  /** The batches and their rows are read from PostgreSQL; the store is untouched. */
  | 'read'
  /** The store holds the rows; its position is not recorded yet. */
  | 'applied'
  /** The store's position is recorded; PostgreSQL's consumer is not. */
  | 'recorded';

export interface ApplierDeps {
  db: Db;
  pool: pg.Pool;
  store: AnalyticsStore;
  /** The feeding process's owner token (server/analytics/lock.ts): positions are recorded only while it owns them. */
  owner?: string;
  /** Called at each point of a round; a test holds the round there to kill the process. */
  at?(point: ApplyPoint): Promise<void> | void;
  /**
   * Told before a round's first write to the store (once `readsDrained` has resolved: the reads under way end first)
   * and once its position is recorded there: between the two the store holds part of a round, and a reader's figures
   * taken meanwhile are of no one corpus version.
   */
  writing?(phase: 'begin' | 'end', position: StorePosition): void;
  readsDrained?(): Promise<void>;
  /** Told once a round's rows are written, before its position is recorded (the kept match sets follow it). */
  written?(round: FollowedRound): Promise<void>;
  /** Told once a round is recorded whether it left batches it had read (full: ROUND_IDS): the next is as full. */
  left?(more: boolean): void;
}

export type Reconciled =
  | { state: 'current'; position: StorePosition }
  /** The store cannot be brought up to date from the outbox: rebuild it. */
  | { state: 'rebuild'; why: string };

/**
 * Compares the store's position with PostgreSQL's consumer before applying: equal, or the store ahead by batches the
 * outbox still has (a crash between the store's record and markApplied, which is completed here), is current;
 * anything else (no position, no consumer, the store behind what the outbox trimmed, or ahead of what PostgreSQL has)
 * needs a rebuild.
 */
export async function reconcile({
  db,
  store,
  owner,
}: Pick<ApplierDeps, 'db' | 'store' | 'owner'>): Promise<Reconciled> {
  const held = await storePosition(store);
  if (!held) return { state: 'rebuild', why: 'the store records no outbox position' };
  const consumer = await consumerPosition(db);
  if (!consumer) return { state: 'rebuild', why: 'the store is not registered as the outbox consumer' };
  if (held.seq === consumer.appliedSeq) return { state: 'current', position: held };
  if (held.seq < consumer.appliedSeq) {
    return {
      state: 'rebuild',
      why: `the store holds batch ${held.seq}, behind the ${consumer.appliedSeq} PostgreSQL has trimmed`,
    };
  }
  const batch = await outboxBatch(db, held.seq);
  if (batch?.corpusVersion !== held.corpusVersion) {
    return {
      state: 'rebuild',
      why: `the store holds batch ${held.seq} (corpus version ${held.corpusVersion}), which PostgreSQL does not have`,
    };
  }
  await markApplied(db, held.seq, owner);
  return { state: 'current', position: held };
}

const chunks = <T>(items: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

const sortedUnion = (lists: number[][]) => [...new Set(lists.flat())].sort((a, b) => a - b);

/** A list of ids as a ClickHouse array parameter's text (UInt64 values beyond 2^53 stay exact as text). */
const idArray = (ids: readonly (number | string)[]) => `[${ids.join(',')}]`;

/** How many batches of `sizes` one round takes: until ROUND_IDS ids; a reset batch starts a round of its own. */
function roundLength(sizes: OutboxSize[]): number {
  let taken = 0;
  let ids = 0;
  for (const size of sizes) {
    if (taken > 0 && (size.reset || ids >= ROUND_IDS)) break;
    taken++;
    ids += size.posts + size.profiles + size.tagPosts / TAG_ID_SHARE;
  }
  return taken;
}

/** PostgreSQL's current rows of `select` (whose $1 is an array of ids) for the ids `ids`, CHUNK_IDS at a time. */
async function currentRows<T extends object>(pool: pg.Pool, select: string, ids: number[]): Promise<T[]> {
  const rows: T[] = [];
  for (const chunk of chunks(ids, CHUNK_IDS)) rows.push(...(await pool.query<T>(select, [chunk])).rows);
  return rows;
}

/** A chunk of a round's posts: its ids, and the files of their current rows (ids PostgreSQL no longer has are not). */
type PostChunk = PostFiles & { ids: number[] };

/** PostgreSQL's current rows of the posts `ids`, a file of each chunk in `dir`, in one snapshot. */
async function currentPostFiles(pool: pg.Pool, ids: number[], dir: string): Promise<PostChunk[]> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const files: PostChunk[] = [];
    for (const [index, chunk] of chunks(ids, CHUNK_IDS).entries()) {
      if (!chunk.every(Number.isSafeInteger))
        throw new Error(`Not post ids: ${chunk.slice(0, 5).join(', ')}…`);
      // Behind a sub-select (COPY takes no parameters): planning with 25,000 ids as constants took 31 ms a chunk at
      // 10M posts, 275 cold; with the sub-select 1 ms, the read itself the same (190-200 ms).
      const condition = `id = ANY ((SELECT '{${chunk.join(',')}}'::bigint[])::bigint[])`;
      files.push({ ids: chunk, ...(await copyPostFiles(client, condition, dir, String(index))) });
    }
    await client.query('COMMIT');
    return files;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** Empties every table of the store but its layout and position (the corpus was emptied). */
async function emptyStore(store: AnalyticsStore) {
  const tables = await store.query<{ name: string }>(
    `SELECT name FROM system.tables WHERE database = {db:String} AND name NOT IN ('layout', 'applied')`,
    { db: STORE_DATABASE },
  );
  for (const { name } of tables) await store.exec(`TRUNCATE TABLE ${STORE_DATABASE}.${name}`);
}

/** Puts the posts' current rows (as currentPostFiles wrote them) in place of what the store has of their ids. */
async function replacePosts(store: AnalyticsStore, postChunks: PostChunk[]) {
  const db = STORE_DATABASE;
  for (const chunk of postChunks) {
    const held = await store.query<{ id: string; toks: string[] }>(
      `SELECT id, ${POST_TOKENS} AS toks FROM ${db}.posts WHERE id IN {ids:Array(UInt64)}`,
      { ids: idArray(chunk.ids) },
    );
    if (held.length > 0) {
      // The token table is ordered by token: naming the held posts' tokens lets the delete skip granules (a new
      // post has no rows to delete).
      const tokens = [...new Set(held.flatMap((row) => row.toks))];
      const posts = idArray(held.map((row) => row.id));
      await (tokens.length <= TOKEN_FILTER_MAX
        ? store.exec(
            `DELETE FROM ${db}.tok WHERE tok IN {toks:Array(UInt64)} AND post IN {posts:Array(UInt64)}`,
            {
              toks: idArray(tokens),
              posts,
            },
          )
        : store.exec(`DELETE FROM ${db}.tok WHERE post IN {posts:Array(UInt64)}`, { posts }));
      await store.exec(`DELETE FROM ${db}.posts_sampled WHERE id IN {posts:Array(UInt64)}`, { posts });
      await store.exec(`DELETE FROM ${db}.texts WHERE id IN {posts:Array(UInt64)}`, { posts });
      await store.exec(`DELETE FROM ${db}.posts WHERE id IN {posts:Array(UInt64)}`, { posts });
    }
    if (chunk.count > 0) {
      await loadPostFiles(store, db, chunk);
      // The store's posts of these ids are now exactly the rows just written.
      const ids = `id IN (${chunk.ids.join(',')})`;
      await fillTokens(store, db, ids);
      await fillSampled(store, db, ids);
      await fillTexts(store, db, ids);
      await fillLexicon(store, db, ids);
    }
  }
}

/**
 * Tagged posts whose held rows are read, and deleted, in one statement each (a round has up to 200,000). Their ids are
 * a set (`IN (SELECT …)`): `IN` an array of more than about 100,000 ids (measured: fine at 100,000, not at 200,000)
 * tests each row against the whole array, and the read of a 134,000-post rule's rows at 1M took about 55 s.
 */
const TAG_CHUNK_IDS = ROUND_IDS * TAG_ID_SHARE;

/**
 * The set of the posts `{posts:String}` names, one id a line (postLines): read by the store's TSV input, where an
 * array literal of 200,000 ids took the store's parser about 0.5 s more a statement (measured at 10M, 2026-11-28).
 */
const POST_SET = `(SELECT post FROM format(TSV, 'post UInt64', {posts:String}))`;
const postLines = (ids: readonly (number | string)[]) => ids.join('\n');

/**
 * Puts the tags the posts `ids` carry now (`rows`, a pair perhaps more than once) in place of what the store has of
 * their tags, writing only what differs: a rule's past matches add rows to posts that may carry other tags, which stay
 * as they are. The held pairs of a chunk of posts are read in one statement; those no longer carried (or held twice)
 * are deleted in one mutation over their tags and posts, and the carried pairs that mutation takes or the store lacks
 * are inserted.
 */
async function replaceTags(store: AnalyticsStore, ids: number[], rows: Array<{ tag: string; post: string }>) {
  const byPost = new Map<string, string[]>();
  for (const { tag, post } of rows) {
    const tags = byPost.get(post);
    if (tags) tags.push(tag);
    else byPost.set(post, [tag]);
  }
  const inserts: Array<{ tag: string; post: string }> = [];
  for (const chunk of chunks(ids, TAG_CHUNK_IDS)) {
    const held = new Map<string, number>();
    for (const { t, p } of await store.query<{ t: string; p: string }>(
      `SELECT toString(tag) AS t, toString(post) AS p FROM ${STORE_DATABASE}.post_tags
      WHERE post IN ${POST_SET}`,
      { posts: postLines(chunk) },
    ))
      held.set(`${t}/${p}`, (held.get(`${t}/${p}`) ?? 0) + 1);
    const carried = new Set<string>();
    for (const post of chunk) for (const tag of byPost.get(String(post)) ?? []) carried.add(`${tag}/${post}`);
    const staleTags = new Set<string>();
    const stalePosts = new Set<string>();
    for (const [key, n] of held) {
      if (n === 1 && carried.has(key)) continue;
      const [tag, post] = key.split('/') as [string, string];
      staleTags.add(tag);
      stalePosts.add(post);
    }
    if (staleTags.size > 0)
      await store.exec(
        `DELETE FROM ${STORE_DATABASE}.post_tags
        WHERE tag IN {tags:Array(UUID)} AND post IN ${POST_SET}`,
        { tags: [...staleTags], posts: postLines([...stalePosts]) },
      );
    for (const key of carried) {
      const [tag, post] = key.split('/') as [string, string];
      if (held.get(key) !== 1 || (staleTags.has(tag) && stalePosts.has(post))) inserts.push({ tag, post });
    }
  }
  await insertTags(store, STORE_DATABASE, inserts);
}

/** A profile's row as text, the same whether read from PostgreSQL (profileRowsSql) or from the store. */
const profileKey = (row: Record<string, unknown>) =>
  PROFILE_ROW_COLUMNS.map((column) => String(row[column])).join('\0');

/**
 * Puts the profiles' current rows (`rows`, of `ids`) in place of what the store has of those ids, writing only those
 * that differ: a collector's batch names every author of its posts, most of them unchanged, and each DELETE is a
 * mutation of the table's parts (about a second each at 200,000 posts: docs/analytics-engine.md, "Ingest"). Returns
 * what it changed that a query reads, of the profiles the store held (kept-sets.ts): a new profile's posts are the
 * round's own, or come after it.
 */
async function replaceProfiles(
  store: AnalyticsStore,
  ids: number[],
  rows: Array<Record<string, unknown>>,
): Promise<Pick<FollowedRound, 'profileColumns' | 'followerCounts'>> {
  const current = new Map(rows.map((row) => [String(row.id), row]));
  const stale = new Set<string>();
  const same = new Set<string>();
  const changed = new Set<ProfileColumn>();
  const followerCounts: Array<[number, number]> = [];
  for (const chunk of chunks(ids, CHUNK_IDS)) {
    const held = await store.query<Record<string, unknown>>(
      `SELECT ${PROFILE_ROW_COLUMNS.join(', ')} FROM ${STORE_DATABASE}.profiles WHERE id IN {ids:Array(UInt64)}`,
      { ids: idArray(chunk) },
    );
    const copies = new Map<string, number>();
    for (const row of held) copies.set(String(row.id), (copies.get(String(row.id)) ?? 0) + 1);
    for (const row of held) {
      const id = String(row.id);
      const now = current.get(id);
      if (copies.get(id) !== 1 || !now) {
        stale.add(id);
        PROFILE_COLUMNS.forEach((column) => changed.add(column));
      } else if (profileKey(now) === profileKey(row)) same.add(id);
      else {
        stale.add(id);
        for (const column of PROFILE_COLUMNS) {
          if (String(now[column]) === String(row[column])) continue;
          if (column === 'followers') followerCounts.push([Number(row.followers), Number(now.followers)]);
          else changed.add(column);
        }
      }
    }
  }
  for (const chunk of chunks([...stale], CHUNK_IDS)) {
    await store.exec(`DELETE FROM ${STORE_DATABASE}.profiles WHERE id IN {ids:Array(UInt64)}`, {
      ids: idArray(chunk),
    });
  }
  const written = rows.filter((row) => !same.has(String(row.id)));
  await insertProfiles(store, STORE_DATABASE, written);
  return { profileColumns: changed, followerCounts };
}

/**
 * Applies the next round of batches after `from` (the store's position); returns the new position, or null when the
 * outbox has nothing after it.
 */
export async function applyRound(deps: ApplierDeps, from: StorePosition): Promise<StorePosition | null> {
  const { db, pool, store } = deps;
  const sizes = await outboxSizes(db, from.seq, READ_BATCHES);
  const taken = roundLength(sizes);
  if (taken === 0) return null;
  // Only the round's ids are read: the outbox is trimmed by this consumer alone, so its first batches are still these.
  const round = await readOutbox(db, from.seq, taken);
  const last = round.at(-1);
  if (!last) return null;
  const reset = round[0]!.reset;
  const postIds = sortedUnion(round.map((batch) => batch.postIds));
  const profileIds = sortedUnion(round.map((batch) => batch.profileIds));
  const tagPostIds = sortedUnion(round.map((batch) => batch.tagPostIds));
  // The posts' rows go through files (a round's can be tens of megabytes): PostgreSQL writes them, the store reads
  // them.
  const dir = await makeScratch('feed');
  try {
    const posts = await currentPostFiles(pool, postIds, dir);
    const profiles = await currentRows<Record<string, unknown>>(
      pool,
      profileRowsSql('id = ANY ($1::bigint[])'),
      profileIds,
    );
    // The tags the round's tagged posts carry now.
    const tagRows = await currentRows<{ tag: string; post: string }>(
      pool,
      tagRowsSql('true', { repeats: true, from: ofPosts('$1::bigint[]') }),
      tagPostIds,
    );
    await flushCommitted(db);
    await deps.at?.('read');

    const position = { seq: last.seq, corpusVersion: last.corpusVersion };
    await deps.readsDrained?.();
    deps.writing?.('begin', position);
    if (reset) await emptyStore(store);
    await replacePosts(store, posts);
    const profilesChanged = await replaceProfiles(store, profileIds, profiles);
    await replaceTags(store, tagPostIds, tagRows);
    await deps.written?.({ reset, postIds, ...profilesChanged });
    await deps.at?.('applied');

    await recordPosition(store, position);
    deps.writing?.('end', position);
    await deps.at?.('recorded');
    await markApplied(db, position.seq, deps.owner);
    deps.left?.(sizes.length > round.length);
    return position;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
