// The dashboards' answer cache (issue 17 item 9): a team opening the same dashboard gets the first answer again
// instead of a computation each. An answer is kept under its workspace, its endpoint, everything of the resolved
// request that can change it (the normalized query, the saved query's name, platforms, languages, the absolute range,
// the refinements, the workspace's time zone, the page's sort, size and cursor) and the corpus version
// (corpus_state, raised by a trigger in the transaction of every write to posts or profiles: migration 0013). A
// write therefore makes every earlier answer unreachable, whoever wrote (importer, generator, collector), and the
// cache is emptied when a new version is seen. Bounded by the bytes of the answers' JSON, least recently used first.
//
// An answer is stored only when the corpus version read before computing it is still the version after: then no
// write committed in between, and the answer's snapshot saw exactly that version's posts. Requests that arrive while
// the same answer is being computed wait for it instead of computing it again.
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/database';
import { ClientGoneError } from '../admission';
import type { InsightScope } from './request';

export interface AnswerCacheOptions {
  /** The most bytes of JSON kept; 0 keeps nothing (every request computes). */
  maxBytes: number;
  /** The corpus version as the database has it now. */
  readVersion: () => Promise<number>;
}

/** The corpus version: one row's read by its primary key. */
export const corpusVersionOf = (db: Db) => async () => {
  const { rows } = await db.execute<{ version: string }>(
    sql`SELECT version::text AS version FROM corpus_state WHERE id`,
  );
  return Number(rows[0]?.version ?? 0);
};

/**
 * What identifies a dashboard's answer: the workspace, the endpoint and the resolved request. `now`-relative ranges
 * are absolute here (resolveInsightScope resolved them), so "the last 30 days" asked an hour later is another key.
 * `extra` is what the endpoint takes beyond the scope (sort, limit, the opened cursor).
 */
export function answerKey(
  workspaceId: string,
  endpoint: string,
  context: InsightScope,
  extra: Record<string, unknown>,
): string {
  const { scope } = context;
  const sorted = (values: string[]) => [...new Set(values)].sort();
  return JSON.stringify([
    workspaceId,
    endpoint,
    context.timeZone,
    context.normalized,
    context.savedQueryName,
    sorted(scope.platforms),
    sorted(scope.languages),
    scope.from.toISOString(),
    scope.to.toISOString(),
    context.refines,
    Object.keys(extra)
      .sort()
      .filter((key) => extra[key] !== undefined)
      .map((key) => [key, extra[key]]),
  ]);
}

export class AnswerCache {
  private readonly entries = new Map<string, string>();
  private readonly computing = new Map<string, Promise<string>>();
  private bytes = 0;
  private version = -1;
  /** Counters for the logs and the tests. */
  readonly stats = { hits: 0, misses: 0, shared: 0, stored: 0, evicted: 0, discarded: 0 };

  constructor(private readonly options: AnswerCacheOptions) {}

  get size() {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  /**
   * The answer under `key` at the current corpus version: from the cache, from a computation of the same answer
   * already under way, or computed now by `compute` (and kept when the version did not move meanwhile). Each caller
   * gets its own copy, which it may change.
   */
  async answer<T>(key: string, compute: () => Promise<T>): Promise<T> {
    if (this.options.maxBytes <= 0) return compute();
    const version = await this.currentVersion();
    const versioned = `${version}\u0000${key}`;
    const kept = this.entries.get(versioned);
    if (kept !== undefined) {
      // Most recently used: to the end of the Map's order.
      this.entries.delete(versioned);
      this.entries.set(versioned, kept);
      this.stats.hits += 1;
      return JSON.parse(kept) as T;
    }
    const under = this.computing.get(versioned);
    if (under) {
      this.stats.shared += 1;
      try {
        return JSON.parse(await under) as T;
      } catch (error) {
        // The request computing it went away while it waited for a slot: this one computes it instead.
        if (error instanceof ClientGoneError) return this.answer(key, compute);
        throw error;
      }
    }
    this.stats.misses += 1;
    let answer!: T;
    const json = (async () => {
      answer = await compute();
      return JSON.stringify(answer);
    })();
    this.computing.set(versioned, json);
    try {
      const text = await json;
      if ((await this.currentVersion()) === version) this.store(versioned, text);
      else this.stats.discarded += 1;
      return answer;
    } finally {
      this.computing.delete(versioned);
    }
  }

  private async currentVersion(): Promise<number> {
    const version = await this.options.readVersion();
    if (version !== this.version) {
      // Answers of another version are never asked for again.
      if (version > this.version) this.clear();
      this.version = Math.max(version, this.version);
    }
    return version;
  }

  private store(key: string, json: string) {
    // JavaScript strings: two bytes a code unit.
    const size = json.length * 2 + key.length * 2;
    if (size > this.options.maxBytes) return;
    const before = this.entries.get(key);
    if (before !== undefined) this.bytes -= before.length * 2 + key.length * 2;
    this.entries.delete(key);
    this.entries.set(key, json);
    this.bytes += size;
    this.stats.stored += 1;
    for (const [oldest, text] of this.entries) {
      if (this.bytes <= this.options.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= text.length * 2 + oldest.length * 2;
      this.stats.evicted += 1;
    }
  }

  private clear() {
    this.entries.clear();
    this.bytes = 0;
  }
}
