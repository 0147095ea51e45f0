// The sets of a long query's matches (match-sets.ts) kept between reads, so the analyst's next dashboards, drill-downs
// and pages of the same query read one rather than the query's slices. A kept set follows the store's contents (its
// write generation: service.ts): each round of the change feed adds the round's posts within its range that match,
// puts back its rows of the round's posts as they are now (followKeptSets), and ends the set when it cannot follow
// (see there). A view asked again a little later (the SPA's presets end at the minute they are asked) reads it carried
// to the later end, and to the earlier start of the previous period it is compared with: only the posts added are
// matched then (EXTEND_MS). At most KEPT_SETS are kept a store, the least recently used dropped first. Only the
// embedded store keeps sets: its scratch database lives exactly as long as its process, which is the store's; a remote
// store's server may restart under a kept set, so there a read drops its sets at its end.
import type { QueryField, QueryNode } from '@server/query/index';
import { fieldRange } from '@server/query/terms';
import { SET_ROW_COLUMNS, STORE_DATABASE } from '../layout';
import { StoreParams } from '../params';
import type { StoreRange } from '../matching/compile';
import type { AnalyticsStore } from '../store';
import type { StoreMatch } from './scope';

/** The store's database for a read's own tables (ENGINE = Memory: none outlives the store's process). */
export const SCRATCH_DATABASE = 'murmur_scratch';

const HOUR_MS = 3_600_000;
/** How far a kept set's range may be carried, to a later end or an earlier start (the matches added found then). */
export const EXTEND_MS = 24 * HOUR_MS;
/** A round whose posts within a kept set's range span longer than this (an import of past posts) ends the set. */
export const FOLLOW_SPAN_MS = 7 * 24 * HOUR_MS;
/** The profile columns a query's fields read: `author:` and `instance:` the handle. */
export const PROFILE_COLUMNS = ['handle', 'followers', 'country'] as const;
export type ProfileColumn = (typeof PROFILE_COLUMNS)[number];
/** The fields a post matches by its author's profile (which a round may change without naming the post): its column. */
const PROFILE_FIELDS: ReadonlyMap<QueryField, ProfileColumn> = new Map([
  ['country', 'country'],
  ['followers', 'followers'],
  ['author', 'handle'],
  ['instance', 'handle'],
]);

/** Sets kept a store between reads (the least recently used dropped first). */
export const KEPT_SETS = 3;

/**
 * The table of a set's rows: each post of the set (`table`, its ids) with its SET_ROW_COLUMNS, which a statement
 * reading only those reads instead of the range's posts tested against the set (storeFrom): at 10M posts the
 * overview of the bench's 300-term query over 90 days took 184–302 ms from them against 735–888 ms from the posts
 * table tested against the set, side by side (its 3.2 million matches over both periods: 318 MB in memory).
 */
export const rowsOf = (set: MatchSet) => `${set.table}_rows`;

/** Creates a set's two tables (its ids, its rows), empty. */
export async function createSetTables(store: AnalyticsStore, set: MatchSet): Promise<void> {
  await store.exec(`CREATE DATABASE IF NOT EXISTS ${SCRATCH_DATABASE} ENGINE = Memory`);
  await store.exec(`CREATE TABLE ${set.table} (post UInt64) ENGINE = Set SETTINGS persistent = 0`);
  // In memory `tags` are plain strings: at 10M they were written in 2.1–2.3 s with the 300-term query's 3.2 million
  // matches and counted in 115–140 ms, against 2.5–2.6 s and 243–332 ms as the token rows' LowCardinality (98 bytes a
  // match against 87; without `tags`, 64 and 1.5–1.7 s).
  const columns = SET_ROW_COLUMNS.map(
    ([name, type]) => `${name} ${name === 'tags' ? 'Array(String)' : type}`,
  );
  await store.exec(`CREATE TABLE ${rowsOf(set)} (${columns.join(', ')}) ENGINE = Memory`);
}

/** Adds to a set's rows the posts (`posts p`) of the condition `where` (its values: `params`). */
export async function addRows(
  store: AnalyticsStore,
  set: MatchSet,
  where: string,
  params: Record<string, unknown>,
): Promise<void> {
  const columns = SET_ROW_COLUMNS.map(([name]) => `p.${name}`).join(', ');
  await store.exec(
    `INSERT INTO ${rowsOf(set)} SELECT ${columns} FROM ${STORE_DATABASE}.posts p WHERE ${where}`,
    params,
  );
}

/** A set of the query's matches over a range: its table, its writing once started, and whether its range is fixed. */
export interface MatchSet {
  table: string;
  range: StoreRange;
  written?: Promise<void>;
  fixed?: true;
  /** Kept between reads: the query it holds, the store's generation it was written at, the reads using it. */
  kept?: {
    key: string;
    query: QueryNode;
    match: StoreMatch;
    generation: number;
    users: number;
    usedAt: number;
    ended?: true;
  };
}

/** The sets kept per store: by its `ended`, which every wrapper of one store shares (a test's watched store too). */
const keptSets = new WeakMap<Promise<string>, MatchSet[]>();
export const keptOf = (store: AnalyticsStore) => keptSets.get(store.ended) ?? [];

export function dropTable(store: AnalyticsStore, set: MatchSet): Promise<void> {
  const drop = (table: string) => store.exec(`DROP TABLE IF EXISTS ${table}`).catch(() => {});
  return set
    .written!.catch(() => {})
    .then(() => Promise.all([drop(set.table), drop(rowsOf(set))]))
    .then(() => {});
}

/** Ends a kept set: no read takes it again, and its table is dropped when the last read using it ends. */
export function endKept(store: AnalyticsStore, set: MatchSet) {
  const kept = set.kept!;
  if (kept.ended) return;
  kept.ended = true;
  const list = keptOf(store);
  list.splice(list.indexOf(set), 1);
  if (kept.users === 0) void dropTable(store, set);
}

/** Ends every set kept for `store` (bench:insights --cold: each read finds its query's matches itself). */
export function endKeptSets(store: AnalyticsStore) {
  for (const set of [...keptOf(store)]) endKept(store, set);
}

/** Ends the sets of a store written before `generation` (the store's contents have changed since). */
export function endStale(store: AnalyticsStore, generation: number) {
  for (const set of [...keptOf(store)]) if (set.kept!.generation < generation) endKept(store, set);
}

/** Keeps a set for the next reads of its query at `generation` (ending the least recently used beyond KEPT_SETS). */
export function keepSet(
  store: AnalyticsStore,
  set: MatchSet,
  of: { key: string; query: QueryNode; match: StoreMatch },
  generation: number,
) {
  set.kept = { ...of, generation, users: 1, usedAt: performance.now() };
  let list = keptSets.get(store.ended);
  if (!list) keptSets.set(store.ended, (list = []));
  list.push(set);
  set.written!.catch(() => endKept(store, set));
  while (list.length > KEPT_SETS)
    endKept(
      store,
      list.reduce((oldest, other) => (other.kept!.usedAt < oldest.kept!.usedAt ? other : oldest)),
    );
}

/**
 * Whether a profile change of `round` may change a post's match of `node`: the query reads a column it changed, or it
 * moved an author's followers across the bounds of a `followers:` range.
 */
function profileChangeMatters(node: QueryNode, round: FollowedRound): boolean {
  switch (node.type) {
    case 'field': {
      const column = PROFILE_FIELDS.get(node.field);
      if (column === undefined) return false;
      if (round.profileColumns.has(column)) return true;
      if (column !== 'followers') return false;
      const { min, max } = fieldRange(node.value);
      const within = (n: number) => (min === null || n >= min) && (max === null || n <= max);
      return round.followerCounts.some(([before, after]) => within(before) !== within(after));
    }
    case 'not':
      return profileChangeMatters(node.operand, round);
    case 'and':
    case 'or':
      return node.operands.some((operand) => profileChangeMatters(operand, round));
    default:
      return false;
  }
}

/** What a round of the change feed wrote (applier.ts). */
export interface FollowedRound {
  /** The store was emptied first. */
  reset: boolean;
  /** The posts it wrote (new, changed or deleted). */
  postIds: readonly number[];
  /**
   * The profile columns a query reads whose values it changed for profiles the store held (applier.ts); `followers`
   * only for a profile deleted or held twice, the others' follower counts being `followerCounts` (before, after).
   */
  profileColumns: ReadonlySet<ProfileColumn>;
  followerCounts: ReadonlyArray<readonly [number, number]>;
}

/**
 * Follows a round's posts in `set`: adds those within its range that match its query, and says whether every one
 * of them the set holds still matches (false: a changed post, or a span too long to match at a round's cost). The
 * round's ids are a set (a subquery): `IN` an array of more than about 100,000 ids (one batch can name a month of
 * posts: the retention's) tests each row against the whole array.
 */
async function followRound(store: AnalyticsStore, set: MatchSet, ids: readonly number[]): Promise<boolean> {
  const { query, match } = set.kept!;
  // The round's posts leave the set's rows, and those that still match within its range come back with their values
  // below: a post changed or deleted is read as it is now (the ids' set may keep it: a statement reading the posts
  // table by id reads only the posts it holds, as they are).
  const named = new StoreParams();
  await store.exec(
    `ALTER TABLE ${rowsOf(set)} DELETE WHERE id IN (SELECT arrayJoin(${named.add(ids, 'Array(UInt64)')}))`,
    named.values,
  );
  const bounds = new StoreParams();
  const [span] = await store.query<{ n: string; first: string; last: string }>(
    `SELECT count() AS n, min(ts) AS first, max(ts) AS last FROM ${STORE_DATABASE}.posts
      WHERE id IN (SELECT arrayJoin(${bounds.add(ids, 'Array(UInt64)')}))
        AND ts >= ${bounds.add(set.range.from.getTime(), 'Int64')}
        AND ts < ${bounds.add(set.range.to.getTime(), 'Int64')}`,
    bounds.values,
  );
  if (!span || Number(span.n) === 0) return true;
  const [first, last] = [Number(span.first), Number(span.last)];
  if (last - first > FOLLOW_SPAN_MS) return false;
  const range = { from: new Date(first), to: new Date(last + 1) };
  // The round's posts whose match differs from their membership: new matches, or members that no longer match.
  const params = new StoreParams();
  const differing = await store.query<{ id: string; m: number }>(
    `SELECT p.id AS id, (${match(query, params, range)}) AS m FROM ${STORE_DATABASE}.posts p
      WHERE p.id IN (SELECT arrayJoin(${params.add(ids, 'Array(UInt64)')})) AND p.ts >= ${params.add(first, 'Int64')}
        AND p.ts <= ${params.add(last, 'Int64')} AND m != (p.id IN ${set.table})`,
    params.values,
  );
  if (differing.some((row) => !row.m)) return false;
  if (differing.length > 0)
    await store.exec(`INSERT INTO ${set.table} SELECT arrayJoin({ids:Array(UInt64)})`, {
      ids: `[${differing.map((row) => row.id).join(',')}]`,
    });
  // The set now holds exactly the round's posts within its range that match: their rows, without matching again.
  const rows = new StoreParams();
  const where = `p.id IN (SELECT arrayJoin(${rows.add(ids, 'Array(UInt64)')})) AND p.ts >= ${rows.add(first, 'Int64')}
    AND p.ts <= ${rows.add(last, 'Int64')} AND p.id IN ${set.table}`;
  await addRows(store, set, where, rows.values);
  return true;
}

/**
 * Carries the sets kept for `store` through a round of the change feed, once the round has written its rows and
 * before its position is recorded (`generation`: the store's, odd while the round writes). A set of the generation
 * before the round gets the round's matching posts within its range and is kept at the generation after it. It ends
 * instead when the round emptied the store, changed a profile's value its query reads, changed a post it holds so
 * that the post no longer matches (a set cannot lose a member), spread its posts within the set's range over more
 * than FOLLOW_SPAN_MS, or failed. A post deleted, or moved out of the range, may stay in a set's ids (a statement
 * testing the posts against them reads only the store's posts, within its own range), not in its rows.
 */
export async function followKeptSets(
  store: AnalyticsStore,
  round: FollowedRound,
  generation: number,
): Promise<void> {
  await Promise.all(
    [...keptOf(store)].map((set) => {
      const kept = set.kept!;
      if (kept.generation !== generation - 1 || round.reset || profileChangeMatters(kept.query, round))
        return endKept(store, set);
      if (round.postIds.length === 0) return void (kept.generation = generation + 1);
      // A read of the set that started before the round waits for it; its figures are read again anyway.
      const followed = set.written!.then(() => followRound(store, set, round.postIds));
      set.written = followed.then(
        (held) => {
          if (held) kept.generation = generation + 1;
          else endKept(store, set);
        },
        () => endKept(store, set),
      );
      return set.written;
    }),
  );
}
