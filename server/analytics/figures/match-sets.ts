// A long query's matches found once (issue 55: a 300-term listening query). Its every statement would otherwise find
// them again: at 10M posts the bench's 300-term query matches 3.6 million posts over 90 days, from 11.5 million token
// rows, about 0.5 s a statement, and the overview sends three. Here the first statement that needs the query over a
// range has its matches written once into a `Set` table of the store's scratch database (in memory, gone with the
// process), and every statement tests `p.id IN` that table.
//
// A set is kept after its read while the store's contents are unchanged (its write generation: service.ts), so the
// analyst's next dashboards, drill-downs and pages of the same query read it rather than the query's slices; a round
// of the change feed ends it. At most KEPT_SETS are kept a store, the least recently used dropped first. Only the
// embedded store keeps sets: its scratch database lives exactly as long as its process, which is the store's; a
// remote store's server may restart under a kept set, so there a read drops its sets at its end.
//
// A short query keeps its token slices, which read its posts directly and cost less than a set. Only the reads whose
// figures send several statements over the query write sets (fromStore's `shareMatches`: the overview, the posts
// lists, discover); the others read a kept set when there is one, and their slices otherwise: at 10M a read of one
// statement gained nothing from writing a set, and the conversation, whose sample reads a share of the slices, lost
// (docs/analytics-engine.md, "Long queries").
import { randomUUID } from 'node:crypto';
import type { QueryNode } from '@server/query/index';
import { STORE_DATABASE } from '../layout';
import { StoreParams } from '../params';
import { absorbed } from '../matching/absorb';
import type { StoreRange } from '../matching/compile';
import type { AnalyticsStore } from '../store';
import type { StoreMatch } from './scope';

/** The store's database for a read's own tables (ENGINE = Memory: none outlives the store's process). */
export const SCRATCH_DATABASE = 'murmur_scratch';
/** Terms (leaves) from which a query's matches are found once a read rather than by each statement. */
export const LONG_QUERY_TERMS = 20;

const SET_NAME = new RegExp(`${SCRATCH_DATABASE}\\.m_[0-9a-f]{32}`, 'g');

/** The leaves of a query's tree: its words, phrases, wildcards, hashtags, mentions, fields (a NEAR's operands each). */
export function queryTerms(node: QueryNode): number {
  switch (node.type) {
    case 'not':
      return queryTerms(node.operand);
    case 'and':
    case 'or':
      return node.operands.reduce((sum, operand) => sum + queryTerms(operand), 0);
    case 'near':
      return [node.left, node.right].reduce(
        (sum, side) => sum + (side.type === 'or' ? side.operands.length : 1),
        0,
      );
    default:
      return 1;
  }
}

/** Sets kept a store between reads (the least recently used dropped first). */
export const KEPT_SETS = 3;

/** A set of the query's matches over a range: its table, its writing once started, and whether its range is fixed. */
interface MatchSet {
  table: string;
  range: StoreRange;
  written?: Promise<void>;
  fixed?: true;
  /** Kept between reads: the query it holds, the store's generation it was written at, the reads using it. */
  kept?: { key: string; generation: number; users: number; usedAt: number; ended?: true };
}

/**
 * What a read's sets are for: the store's write generation it reads at (null: none is kept, a remote store's server
 * may restart under a kept set); `write`: whether it may write sets.
 */
export interface SetsOptions {
  generation: number | null;
  write: boolean;
}

/** The sets kept per store: by its `ended`, which every wrapper of one store shares (a test's watched store too). */
const keptSets = new WeakMap<Promise<string>, MatchSet[]>();
const keptOf = (store: AnalyticsStore) => keptSets.get(store.ended) ?? [];

function dropTable(store: AnalyticsStore, set: MatchSet): Promise<void> {
  return set
    .written!.catch(() => {})
    .then(() => store.exec(`DROP TABLE IF EXISTS ${set.table}`))
    .catch(() => {});
}

/** Ends a kept set: no read takes it again, and its table is dropped when the last read using it ends. */
function endKept(store: AnalyticsStore, set: MatchSet) {
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
function endStale(store: AnalyticsStore, generation: number) {
  for (const set of [...keptOf(store)]) if (set.kept!.generation < generation) endKept(store, set);
}

/**
 * The read's statements through `store` and its query compiled by `match`, the query's matches over a range found once
 * (see the head of this file); `drop` ends the read's sets. The matches are the query's alone: a statement's range,
 * filters and refinements stay in its own condition.
 */
export class MatchSets {
  private readonly sets: MatchSet[] = [];
  readonly match: StoreMatch;
  readonly store: AnalyticsStore;

  private readonly key: string;

  constructor(
    private readonly inner: AnalyticsStore,
    private readonly query: QueryNode,
    private readonly base: StoreMatch,
    private readonly options: SetsOptions,
  ) {
    this.key = JSON.stringify(query);
    if (options.generation !== null) endStale(inner, options.generation);
    const setOf = (
      node: QueryNode,
      range: StoreRange | undefined,
      given: ReadonlySet<QueryNode> | undefined,
    ) => (node === query && range && !given?.has(node) ? this.setOver(range) : null);
    this.match = Object.assign(
      (...[node, params, range, given]: Parameters<StoreMatch>) => {
        const set = setOf(node, range, given);
        return set ? `p.id IN ${set.table}` : base(node, params, range, given);
      },
      {
        // The query's posts come from its set, tested by id: no token slices are read for it.
        candidates: (...[node, params, range]: Parameters<StoreMatch>) =>
          setOf(node, range, undefined) ? null : base.candidates(node, params, range),
      },
    );
    const written = (sql: string) => this.written(sql);
    this.store = {
      query: async <T>(sql: string, params?: Record<string, unknown>) => {
        await written(sql);
        return inner.query<T>(sql, params);
      },
      exec: async (sql: string, params?: Record<string, unknown>, timeoutMs?: number) => {
        await written(sql);
        return inner.exec(sql, params, timeoutMs);
      },
      insertLines: (table, columns, file) => inner.insertLines(table, columns, file),
      close: () => inner.close(),
      ended: inner.ended,
      describe: () => inner.describe(),
      pid: inner.pid,
    };
  }

  /**
   * The set of the query's matches over a range holding `range`: one already named that holds it, or a kept one, or
   * one whose range is not fixed yet widened to hold it (the statements a read sends together name one set: write
   * waits a turn before it reads the range), or a new one; null for a read that does not write sets and finds none.
   */
  private setOver(range: StoreRange): MatchSet | null {
    const holds = (set: MatchSet) => set.range.from <= range.from && range.to <= set.range.to;
    const held = this.sets.find(holds);
    if (held) return held;
    const kept = keptOf(this.inner).find(
      (set) => set.kept!.key === this.key && set.kept!.generation === this.options.generation && holds(set),
    );
    if (kept) {
      kept.kept!.users += 1;
      kept.kept!.usedAt = performance.now();
      this.sets.push(kept);
      return kept;
    }
    if (!this.options.write) return null;
    const open = this.sets.find((set) => !set.fixed);
    if (open) {
      const { from, to } = open.range;
      open.range = { from: from < range.from ? from : range.from, to: to > range.to ? to : range.to };
      return open;
    }
    const table = `${SCRATCH_DATABASE}.m_${randomUUID().replace(/-/g, '')}`;
    const set: MatchSet = { table, range: { from: range.from, to: range.to } };
    this.sets.push(set);
    return set;
  }

  /** Writes the sets `sql` names that are not written yet; resolves when every one it names is. */
  private async written(sql: string): Promise<void> {
    const names = new Set(sql.match(SET_NAME) ?? []);
    const sets = this.sets.filter((set) => names.has(set.table));
    await Promise.all(sets.map((set) => (set.written ??= this.write(set))));
  }

  private async write(set: MatchSet): Promise<void> {
    // The other statements sent in this turn name their ranges first.
    await new Promise((resolve) => setImmediate(resolve));
    set.fixed = true;
    if (this.options.generation !== null) this.keep(set, this.options.generation);
    const { table, range } = set;
    const params = new StoreParams();
    const from = params.add(range.from.getTime(), 'Int64');
    const to = params.add(range.to.getTime(), 'Int64');
    const matches = this.base(this.query, params, range);
    await this.inner.exec(`CREATE DATABASE IF NOT EXISTS ${SCRATCH_DATABASE} ENGINE = Memory`);
    await this.inner.exec(`CREATE TABLE ${table} (post UInt64) ENGINE = Set SETTINGS persistent = 0`);
    await this.inner.exec(
      `INSERT INTO ${table} SELECT p.id FROM ${STORE_DATABASE}.posts p
        WHERE p.ts >= ${from} AND p.ts < ${to} AND (${matches})`,
      params.values,
    );
  }

  /** Keeps a set for the next reads of the query at this generation (ending the least recently used beyond KEPT_SETS). */
  private keep(set: MatchSet, generation: number) {
    const now = performance.now();
    set.kept = { key: this.key, generation, users: 1, usedAt: now };
    let list = keptSets.get(this.inner.ended);
    if (!list) keptSets.set(this.inner.ended, (list = []));
    list.push(set);
    set.written!.catch(() => endKept(this.inner, set));
    while (list.length > KEPT_SETS)
      endKept(
        this.inner,
        list.reduce((oldest, other) => (other.kept!.usedAt < oldest.kept!.usedAt ? other : oldest)),
      );
  }

  /** Ends the read: its sets not kept are dropped, and a kept one ended meanwhile is dropped by its last reader. */
  async drop(): Promise<void> {
    await Promise.all(
      this.sets
        .filter((set) => set.written)
        .map((set) => {
          if (!set.kept) return dropTable(this.inner, set);
          set.kept.users -= 1;
          return set.kept.ended && set.kept.users === 0 ? dropTable(this.inner, set) : Promise.resolve();
        }),
    );
  }
}

/** The read's match sets when its query is long (LONG_QUERY_TERMS, counted once absorbed), else null. */
export function matchSetsFor(
  store: AnalyticsStore,
  query: QueryNode | null | undefined,
  match: StoreMatch,
  options: SetsOptions,
  longFrom = LONG_QUERY_TERMS,
): MatchSets | null {
  return query && queryTerms(absorbed(query)) >= longFrom
    ? new MatchSets(store, query, match, options)
    : null;
}
