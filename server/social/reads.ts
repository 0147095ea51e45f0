// Where the heavy requests read the corpus (docs/replicas.md): the primary's analytics pool, or with
// DATABASE_READ_URL the streaming replicas' pools (server/db/database.ts connectReplicas), the least busy first. Only
// reads of the corpus come here (dashboards, discover, query counts, exports' pages); the requests' other statements
// (the saved query's look-up, the monthly volume counters, everything of auth, workspaces and billing) run on the
// primary's light pool, as every write does.
//
// Every read records what its snapshot saw (noteSnapshot, from the first statement of each transaction): the corpus
// version (corpus_state, migration 0013) and, on a replica, when it last replayed a transaction. The answer cache keys
// an answer by that version, never by one read elsewhere (a lagging replica's answer is not the primary's newer
// version's). A replica whose snapshot misses changes the primary has, and whose last replayed transaction is older
// than DATABASE_READ_MAX_LAG_SECONDS, gives the read to another replica or the primary; within the bound the answer
// is served and says how old it is (Read.asOf). A replica that is down or refuses is left alone for a few seconds and
// its reads go elsewhere.
import { AsyncLocalStorage } from 'node:async_hooks';
import { sql } from 'drizzle-orm';
import type { Db, ReadReplica } from '@server/db/database';

/** A read's answer and where it came from. */
export interface Read<T> {
  value: T;
  /**
   * The corpus version its snapshot saw; null when its statements saw different versions (separate transactions with
   * a write between them) or read no corpus.
   */
  version: number | null;
  from: 'primary' | 'replica' | 'cache';
  /**
   * Set when the answer misses changes the primary has: a replica behind it (the time of the last transaction the
   * replica had replayed), or the analytics store a batch or more behind (noteBehind); up to then the answer is
   * complete.
   */
  asOf: Date | null;
}

interface Scope {
  /**
   * The read has answered: what runs later in its async context (an export's further pages, read as the client
   * takes them) is neither recorded nor refused.
   */
  done: boolean;
  versions: number[];
  replayedAt: Date | null;
  /**
   * Set when part of the answer was read from a source behind the snapshot (the analytics store a batch or more
   * behind PostgreSQL: noteBehind): up to when that source's data is complete.
   */
  behindAsOf: Date | null;
  /** On a replica: the primary's version and how far behind it the replica's data may be. */
  replica?: { primaryVersion: number; maxLagMs: number };
}

const scope = new AsyncLocalStorage<Scope>();

/**
 * What every corpus transaction's first statement also selects (beside its settings): the corpus version of its
 * snapshot and, on a replica, when it last replayed a transaction and how long ago. Cheap: a one-row table's read by
 * its key and two function calls, in a statement that runs anyway.
 */
export const snapshotColumns = sql`(SELECT version::text FROM corpus_state WHERE id) AS murmur_corpus_version,
  (EXTRACT(EPOCH FROM pg_last_xact_replay_timestamp()) * 1000)::float8 AS murmur_replayed_at,
  (EXTRACT(EPOCH FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000)::float8 AS murmur_replay_age_ms`;

/** A replica too far behind the primary for this read (see ReadRouter). */
class ReplicaTooFarBehind extends Error {
  constructor(
    readonly version: number,
    readonly primaryVersion: number,
    readonly ageMs: number | null,
  ) {
    super(
      `The replica is at corpus version ${version} of ${primaryVersion}, its last replayed transaction ` +
        (ageMs === null ? 'unknown' : `${Math.round(ageMs / 1000)} s old`),
    );
  }
}

/**
 * Records what a transaction's snapshot saw (a row with snapshotColumns) for the read running here (ReadRouter.read),
 * and refuses a replica too far behind: throwing in the transaction's first statement ends it before any work.
 */
export function noteSnapshot(row: Record<string, unknown> | undefined) {
  const current = scope.getStore();
  if (!current || current.done || !row) return;
  const version = Number(row.murmur_corpus_version);
  const replayedAt = typeof row.murmur_replayed_at === 'number' ? new Date(row.murmur_replayed_at) : null;
  const ageMs = typeof row.murmur_replay_age_ms === 'number' ? row.murmur_replay_age_ms : null;
  const replica = current.replica;
  if (replica && version < replica.primaryVersion && (ageMs === null || ageMs > replica.maxLagMs)) {
    throw new ReplicaTooFarBehind(version, replica.primaryVersion, ageMs);
  }
  current.versions.push(version);
  if (replayedAt && (!current.replayedAt || replayedAt < current.replayedAt)) current.replayedAt = replayedAt;
}

/**
 * Records, for the read running here, that its answer was read from a source behind the snapshot's version: the
 * analytics store at `version`, complete up to `asOf`. The read then reports both versions (so its answer is not
 * kept in the answer cache under the snapshot's) and `asOf` (the answer's data_as_of).
 */
export function noteBehind(version: number, asOf: Date) {
  const current = scope.getStore();
  if (!current || current.done) return;
  current.versions.push(version);
  if (!current.behindAsOf || asOf < current.behindAsOf) current.behindAsOf = asOf;
}

/** The causes of an error: drizzle wraps the driver's error in `cause`. */
function* causes(error: unknown): Generator<Error & { code?: unknown }> {
  for (let current = error; current instanceof Error; current = current.cause) yield current;
}

/**
 * A failure of the replica rather than of the read: it cannot be reached or refused the connection (a failed connect,
 * class 08, a
 * shutdown or start-up 57P0x, too many connections, authentication 28xxx, no such database 3D000, the pool's connect
 * timeout), or it has not replayed the schema the read needs yet (42P01, 42703). The read goes elsewhere, and the
 * replica is left alone for REPLICA_RETRY_MS.
 */
function replicaUnavailable(error: unknown): boolean {
  for (const cause of causes(error)) {
    const code = typeof cause.code === 'string' ? cause.code : '';
    if (/^(08|28|57P0)/.test(code) || ['53300', '3D000', '42P01', '42703'].includes(code)) return true;
    // The socket's: a connect that failed (refused, no such host or Unix socket), or a connection cut.
    if ((cause as { syscall?: unknown }).syscall === 'connect') return true;
    if (/^E(CONNREFUSED|CONNRESET|HOSTUNREACH|NETUNREACH|NOTFOUND|AI_AGAIN|TIMEDOUT|PIPE)$/.test(code))
      return true;
    if (/Connection terminated|timeout exceeded when trying to connect/i.test(cause.message)) return true;
  }
  return false;
}

/**
 * A read the replica cancelled because replaying the primary's changes needed what it held (a recovery conflict,
 * 40001 on a standby; a primary's read-only transactions never see it): the read goes elsewhere; the replica stays in.
 */
function recoveryConflict(error: unknown): boolean {
  for (const cause of causes(error)) if (cause.code === '40001' || cause.code === '40P01') return true;
  return false;
}

/** How long a replica found down or refusing is left alone before a read tries it again. */
const REPLICA_RETRY_MS = 5000;

interface Target extends ReadReplica {
  /** Reads running on it now. */
  active: number;
  /** While Date.now() is before this, it is left alone. */
  downUntil: number;
}

export interface ReadRouterOptions {
  /** The primary's analytics pool. */
  primary: Db;
  replicas: readonly ReadReplica[];
  /** DATABASE_READ_MAX_LAG_SECONDS in ms. */
  maxLagMs: number;
  /** The primary's corpus version now (on its light pool). */
  primaryVersion: () => Promise<number>;
  log?: (message: string) => void;
  /** How long a replica found down is left alone; REPLICA_RETRY_MS unless given (tests). */
  retryMs?: number;
}

export class ReadRouter {
  private readonly targets: Target[];
  private turn = 0;
  /** Counters for the logs and the tests. */
  readonly stats = { replica: 0, primary: 0, behind: 0, unavailable: 0, conflicts: 0 };

  constructor(private readonly options: ReadRouterOptions) {
    this.targets = options.replicas.map((replica) => ({ ...replica, active: 0, downUntil: 0 }));
  }

  /** Whether replicas are configured. */
  get replicated(): boolean {
    return this.targets.length > 0;
  }

  /**
   * `run` on a replica (the least busy of those up, in turns among equals) or, without one that can take it, on the
   * primary; with the versions its snapshots saw. `primaryVersion`, when the caller has it, saves reading it again.
   */
  async read<T>(run: (db: Db) => Promise<T>, primaryVersion?: number): Promise<Read<T>> {
    if (!this.replicated) return this.observe(this.options.primary, run, 'primary');
    const known = primaryVersion ?? (await this.options.primaryVersion());
    for (const target of this.candidates()) {
      target.active += 1;
      try {
        const read = await this.observe(target.db, run, 'replica', {
          primaryVersion: known,
          maxLagMs: this.options.maxLagMs,
        });
        this.stats.replica += 1;
        return read;
      } catch (error) {
        if (error instanceof ReplicaTooFarBehind) {
          this.stats.behind += 1;
        } else if (recoveryConflict(error)) {
          this.stats.conflicts += 1;
        } else if (replicaUnavailable(error)) {
          this.stats.unavailable += 1;
          const retryMs = this.options.retryMs ?? REPLICA_RETRY_MS;
          target.downUntil = Date.now() + retryMs;
          this.options.log?.(
            `[db] replica ${target.describe} unavailable (${error instanceof Error ? error.message : String(error)}); ` +
              `its reads go elsewhere for ${retryMs / 1000} s`,
          );
        } else {
          throw error;
        }
      } finally {
        target.active -= 1;
      }
    }
    this.stats.primary += 1;
    return this.observe(this.options.primary, run, 'primary');
  }

  /** The replicas up now, least busy first; among equals, in turns. */
  private candidates(): Target[] {
    const now = Date.now();
    const start = this.turn++ % this.targets.length;
    const inTurn = [...this.targets.slice(start), ...this.targets.slice(0, start)];
    return inTurn.filter((target) => target.downUntil <= now).sort((a, b) => a.active - b.active);
  }

  private async observe<T>(
    db: Db,
    run: (db: Db) => Promise<T>,
    from: 'primary' | 'replica',
    replica?: Scope['replica'],
  ): Promise<Read<T>> {
    const seen: Scope = { done: false, versions: [], replayedAt: null, behindAsOf: null, replica };
    let value: T;
    try {
      value = await scope.run(seen, () => run(db));
    } finally {
      seen.done = true;
    }
    const versions = new Set(seen.versions);
    const version = versions.size === 1 ? [...versions][0]! : null;
    const lowest = seen.versions.length > 0 ? Math.min(...seen.versions) : null;
    const behind = replica !== undefined && lowest !== null && lowest < replica.primaryVersion;
    const asOf = [behind ? seen.replayedAt : null, seen.behindAsOf]
      .filter((at): at is Date => at !== null)
      .reduce<Date | null>((earliest, at) => (earliest && earliest < at ? earliest : at), null);
    return { value, version, from, asOf };
  }
}

/**
 * What a response says of its read: with replicas configured, where it was read (`Murmur-Read-From`: replica, primary
 * or cache); and when a replica, or the analytics store, answered from behind the primary, up to when its data is
 * complete (`Murmur-Data-As-Of`, an ISO 8601 instant).
 */
export function sayWhereRead(
  router: ReadRouter,
  reply: { header(name: string, value: string): unknown },
  read: Omit<Read<unknown>, 'value'>,
) {
  if (router.replicated) reply.header('murmur-read-from', read.from);
  if (read.asOf) reply.header('murmur-data-as-of', read.asOf.toISOString());
}

/** What the OpenAPI document says of those headers, in each route's description. */
export const READ_HEADERS_DOC =
  'With read replicas (DATABASE_READ_URL), the header Murmur-Read-From says where the answer was read (replica, ' +
  'primary or cache) and, when a replica behind the primary answered (within DATABASE_READ_MAX_LAG_SECONDS), ' +
  'Murmur-Data-As-Of the instant (ISO 8601) up to which its posts are complete. So does Murmur-Data-As-Of when ' +
  'the analytics store answered while behind PostgreSQL (after ANALYTICS_READ_WAIT_MS for it to catch up).';
