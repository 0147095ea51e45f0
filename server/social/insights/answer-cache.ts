// The dashboards' answer cache: a team opening the same dashboard gets the first answer again instead of a computation
// each. An answer is kept under its workspace, its endpoint, everything of the resolved request that can change it (the
// normalized query and the query as evaluated, with its lists' items, the saved query's name, platforms, languages, the
// absolute range, the refinements, the workspace's time zone, its sentiment corrections, its tags' names, the page's
// sort, size and cursor) and the corpus version (corpus_state, raised by a trigger in the transaction of every write to
// posts or profiles: migration 0013). A write therefore makes every earlier answer unreachable, whoever wrote
// (importer, generator, collector), and the cache is emptied when a new version is seen. An answer is kept as the bytes
// sent (answer-bytes.ts: its JSON and its brotli and gzip forms), bounded by their total, least recently used first.
//
// An answer is looked up by the version the primary has now (read on the light pool, so a cached answer is served
// while every analytics slot is taken), and stored only under the version its own snapshot saw (read in the same
// transaction: server/social/reads.ts), when that is the version looked up: an answer computed on a replica that lags,
// or before a write that committed during the computation, is returned but never kept under a
// version whose posts it did not see. Requests that arrive while the same answer is being computed wait for it instead
// of computing it again.
import { sql } from 'drizzle-orm';
import type { Db } from '@server/db/database';
import { corpusState } from '@server/db/social-schema';
import { ClientGoneError } from '../admission';
import type { Read } from '../reads';
import { PreparedAnswer } from './answer-bytes';
import type { InsightScope } from './request';
import { printQuery } from '@server/query/index';

export interface AnswerCacheOptions {
  /** The most bytes kept (each answer's JSON and its compressed forms); 0 keeps nothing (every request computes). */
  maxBytes: number;
  /** The corpus version as the primary has it now. */
  readVersion: () => Promise<number>;
}

/**
 * The corpus version: one row's read by its primary key. Every dashboard request reads it, so it is a prepared
 * statement (PostgreSQL plans it once per connection).
 */
export const corpusVersionOf = (db: Db) => {
  const statement = db
    .select({ version: sql<string>`${corpusState.version}::text` })
    .from(corpusState)
    .where(sql`${corpusState.id}`)
    .prepare('corpus_version');
  return async () => Number((await statement.execute())[0]?.version ?? 0);
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
    // The query as evaluated: its lists' items as they are now (an edited list is another answer).
    scope.query && printQuery(scope.query),
    context.savedQueryName,
    sorted(scope.platforms),
    sorted(scope.languages),
    scope.from.toISOString(),
    scope.to.toISOString(),
    context.refines,
    // A rename of a tag or category changes no post (no new corpus version), yet an answer names its tags.
    context.tagNamesDigest ?? '',
    // Corrections change figures without a new corpus version.
    context.corrections.digest,
    // The plan's clip is in the answer (history_clip names the start asked for), so it is part of what is kept.
    context.historyClip ?? null,
    Object.keys(extra)
      .sort()
      .filter((key) => extra[key] !== undefined)
      .map((key) => [key, extra[key]]),
  ]);
}

/** A computation under way: its answer's bytes and where it was read. */
type Computing = Promise<{ answer: PreparedAnswer; read: Omit<Read<unknown>, 'value'> }>;

export class AnswerCache {
  private readonly entries = new Map<string, { answer: PreparedAnswer; bytes: number }>();
  private readonly computing = new Map<string, Computing>();
  private bytes = 0;
  private version = -1;
  /** Counters for the logs and the tests. */
  readonly stats = { hits: 0, misses: 0, shared: 0, stored: 0, evicted: 0, discarded: 0 };

  constructor(private readonly options: AnswerCacheOptions) {}

  get size() {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  /**
   * The answer under `key` at the primary's current corpus version, as the bytes to send: from the cache, from a
   * computation of the same answer already under way, or computed now by `compute`, which is given that version,
   * returns the answer's JSON as the route sends it and reports the version its snapshot saw (kept only when they are
   * the same). A kept answer has every compressed form made before it is kept, so a hit only writes bytes.
   * `waits` is called first when the answer is not in the cache (the request will wait for a computation).
   */
  async answer(
    key: string,
    compute: (version?: number) => Promise<Read<Buffer>>,
    waits?: () => void,
  ): Promise<Read<PreparedAnswer>> {
    if (this.options.maxBytes <= 0) {
      waits?.();
      const read = await compute();
      return { ...read, value: new PreparedAnswer(read.value) };
    }
    const version = await this.currentVersion();
    const versioned = `${version}\u0000${key}`;
    const kept = this.entries.get(versioned);
    if (kept !== undefined) {
      // Most recently used: to the end of the Map's order.
      this.entries.delete(versioned);
      this.entries.set(versioned, kept);
      this.stats.hits += 1;
      return { value: kept.answer, version, from: 'cache', asOf: null };
    }
    waits?.();
    const under = this.computing.get(versioned);
    if (under) {
      this.stats.shared += 1;
      try {
        const { answer, read } = await under;
        return { ...read, value: answer };
      } catch (error) {
        // The request computing it went away while it waited for a slot: this one computes it instead.
        if (error instanceof ClientGoneError) return this.answer(key, compute, waits);
        throw error;
      }
    }
    this.stats.misses += 1;
    const computing: Computing = (async () => {
      const { value, ...read } = await compute(version);
      const answer = new PreparedAnswer(value);
      // Its snapshot saw the version it is kept under, and no newer version has been seen meanwhile.
      if (read.version === version && version === this.version) {
        const bytes = await answer.complete();
        if (version === this.version) this.store(versioned, answer, bytes);
        else this.stats.discarded += 1;
      } else this.stats.discarded += 1;
      return { answer, read };
    })();
    this.computing.set(versioned, computing);
    try {
      const { answer, read } = await computing;
      return { ...read, value: answer };
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

  private store(key: string, answer: PreparedAnswer, answerBytes: number) {
    // The key is a JavaScript string: two bytes a code unit.
    const bytes = answerBytes + key.length * 2;
    if (bytes > this.options.maxBytes) return;
    const before = this.entries.get(key);
    if (before !== undefined) this.bytes -= before.bytes;
    this.entries.delete(key);
    this.entries.set(key, { answer, bytes });
    this.bytes += bytes;
    this.stats.stored += 1;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.options.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
      this.stats.evicted += 1;
    }
  }

  private clear() {
    this.entries.clear();
    this.bytes = 0;
  }
}
