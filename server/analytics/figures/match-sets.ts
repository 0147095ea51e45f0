// A long query's matches found once a read (issue 55: a 300-term listening query). Its every statement would
// otherwise find them again: at 10M posts the bench's 300-term query matches 3.6 million posts over 90 days, from
// 11.5 million token rows, about 0.5 s a statement, and the overview sends three. Here the first statement that needs
// the query over a range has its matches written once into a `Set` table of the store's scratch database (in memory,
// gone with the process), and every statement of the read tests `p.id IN` that table; the read drops it at its end.
// A short query keeps its token slices, which read its posts directly and cost less than a set. Only the reads whose
// figures send several statements over the query ask for sets (fromStore's `shareMatches`: the overview, the posts
// lists, discover): at 10M the overview went from 3.5 to 2.6 s, while a read of one statement gained nothing and the
// conversation, whose sample reads a share of the slices, lost (docs/analytics-engine.md, "Long queries").
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

/** A set of the query's matches over a range: its table, its writing once started, and whether its range is fixed. */
interface MatchSet {
  table: string;
  range: StoreRange;
  written?: Promise<void>;
  fixed?: true;
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

  constructor(
    private readonly inner: AnalyticsStore,
    private readonly query: QueryNode,
    private readonly base: StoreMatch,
  ) {
    this.match = Object.assign(
      (...[node, params, range, given]: Parameters<StoreMatch>) =>
        node === query && range && !given?.has(node)
          ? `p.id IN ${this.setOver(range).table}`
          : base(node, params, range, given),
      {
        // The query's posts come from its set, tested by id: no token slices are read for it.
        candidates: (...[node, params, range]: Parameters<StoreMatch>) =>
          node === query ? null : base.candidates(node, params, range),
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
   * The set of the query's matches over a range holding `range`: one already named that holds it, or one whose range
   * is not fixed yet widened to hold it (the statements a read sends together name one set: write waits a turn before
   * it reads the range), or a new one.
   */
  private setOver(range: StoreRange): MatchSet {
    const held = this.sets.find((set) => set.range.from <= range.from && range.to <= set.range.to);
    if (held) return held;
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

  /** Drops the read's sets (one that cannot be dropped, its store gone, went with it). */
  async drop(): Promise<void> {
    await Promise.all(
      this.sets
        .filter((set) => set.written)
        .map((set) =>
          set
            .written!.catch(() => {})
            .then(() => this.inner.exec(`DROP TABLE IF EXISTS ${set.table}`).catch(() => {})),
        ),
    );
  }
}

/** The read's match sets when its query is long (LONG_QUERY_TERMS, counted once absorbed), else null. */
export function matchSetsFor(
  store: AnalyticsStore,
  query: QueryNode | null | undefined,
  match: StoreMatch,
  longFrom = LONG_QUERY_TERMS,
): MatchSets | null {
  return query && queryTerms(absorbed(query)) >= longFrom ? new MatchSets(store, query, match) : null;
}
