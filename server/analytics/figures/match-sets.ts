// A long query's matches found once (issue 55: a 300-term listening query). Its every statement would otherwise find
// them again: at 10M posts the bench's 300-term query matches 3.6 million posts over 90 days, from 11.5 million token
// rows, about 0.5 s a statement, and the overview sends three. Here the first statement that needs the query over a
// range has its matches written once into a `Set` table of the store's scratch database (in memory, gone with the
// process), with their rows beside it (kept-sets.ts, rowsOf): every statement reads the rows when they hold every
// column it reads, and otherwise tests `p.id IN` the set.
//
// A set is kept after its read for the next reads of the query, and follows the change feed (kept-sets.ts).
//
// A short query keeps its token slices, which read its posts directly and cost less than a set. Only the reads whose
// figures send several statements over the query write sets (fromStore's `shareMatches`: the overview, the posts
// lists, discover); the others read a kept set when there is one, and their slices otherwise: at 10M a read of one
// statement gained nothing from writing a set, and the conversation, whose sample reads a share of the slices, lost
// (docs/analytics-engine.md, "Long queries").
import { randomUUID } from 'node:crypto';
import type { QueryNode } from '@server/query/index';
import { absorbed } from '../matching/absorb';
import type { StoreRange } from '../matching/compile';
import type { AnalyticsStore } from '../store';
import { StoreParams } from '../params';
import type { StoreMatch } from './scope';
import {
  addRows,
  createSetTables,
  dropTable,
  endKept,
  endStale,
  EXTEND_MS,
  keepSet,
  keptOf,
  rowsOf,
  SCRATCH_DATABASE,
  type MatchSet,
} from './kept-sets';

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

/**
 * What a read's sets are for: the store's write generation it reads at (null: none is kept, a remote store's server
 * may restart under a kept set); `write`: whether it may write sets.
 */
export interface SetsOptions {
  generation: number | null;
  write: boolean;
}

/** Adds to `set` (its ids, then its rows) the posts within `range` that match `query`. */
async function addMatches(
  store: AnalyticsStore,
  set: MatchSet,
  query: QueryNode,
  match: StoreMatch,
  range: StoreRange,
): Promise<void> {
  const params = new StoreParams();
  const from = params.add(range.from.getTime(), 'Int64');
  const to = params.add(range.to.getTime(), 'Int64');
  await addRows(
    store,
    set,
    `p.ts >= ${from} AND p.ts < ${to} AND (${match(query, params, range)})`,
    params.values,
  );
  // The ids from the rows just added: the range is new to the set.
  await store.exec(
    `INSERT INTO ${set.table} SELECT id FROM ${rowsOf(set)} WHERE ts >= ${from} AND ts < ${to}`,
    params.values,
  );
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
        setRows: (node: QueryNode, range: StoreRange) => {
          const set = setOf(node, range, undefined);
          return set && rowsOf(set);
        },
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
    const ours = keptOf(this.inner).filter(
      (set) => set.kept!.key === this.key && set.kept!.generation === this.options.generation,
    );
    // One that holds the range, or one to carry to its later end and, by as little, its earlier start: a view asked
    // again later whose start stays (a bucket's bound) compares itself with a previous period that starts earlier.
    const carried = (set: MatchSet) =>
      set.range.from.getTime() - range.from.getTime() <= EXTEND_MS &&
      range.to.getTime() - set.range.to.getTime() <= EXTEND_MS &&
      range.from < set.range.to &&
      set.range.from < range.to;
    const kept = ours.find(holds) ?? ours.find(carried);
    if (kept) {
      if (!holds(kept)) this.extend(kept, range);
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
    if (this.options.generation !== null)
      keepSet(
        this.inner,
        set,
        { key: this.key, query: this.query, match: this.base },
        this.options.generation,
      );
    await createSetTables(this.inner, set);
    await addMatches(this.inner, set, this.query, this.base, set.range);
  }

  /**
   * Carries a kept set to hold `range` too: its matches before its start and after its end are added once the set is
   * written. Its range says so at once (a read taking it meanwhile waits for the additions); a failed addition ends
   * the set.
   */
  private extend(set: MatchSet, range: StoreRange) {
    const { from, to } = set.range;
    const added = [
      ...(range.from < from ? [{ from: range.from, to: from }] : []),
      ...(range.to > to ? [{ from: to, to: range.to }] : []),
    ];
    set.range = { from: range.from < from ? range.from : from, to: range.to > to ? range.to : to };
    set.written = set.written!.then(async () => {
      for (const part of added) await addMatches(this.inner, set, this.query, this.base, part);
    });
    set.written.catch(() => endKept(this.inner, set));
  }

  /**
   * Writes the set of the query's matches over `range` for the reads to come (a saved query's: prepared-sets.ts), unless
   * a kept one holds it already, and ends this read.
   */
  async prepare(range: StoreRange): Promise<void> {
    const set = this.setOver(range);
    try {
      if (set) await (set.written ??= this.write(set));
    } finally {
      await this.drop();
    }
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
