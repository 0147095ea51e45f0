// The analytics store inside the server (`npm start`): opens DATA_DIR/analytics, rebuilds it from PostgreSQL in the
// background when it has no layout, an older one, or a position the outbox cannot bring up to date, then applies the
// change feed as batches arrive (a notification from the writers, or the timer). Its process is started again when it
// dies (server/db/supervisor.ts); a directory its engine cannot open is moved aside and the store rebuilt; a store
// whose files a statement finds damaged or gone (isStoreCorrupt), or with a part ClickHouse set aside as broken, or
// whose process stops answering twice within an hour (hangs.ts), is rebuilt beside and swapped in (on a fresh
// directory when its directory was removed). Until it is ready the figures wait (figures-wait.ts); state() says which
// corpus version its answers reflect, and how far a rebuild is.
import type { Supervisor } from '@server/db/supervisor';
import { applyRound, type ApplierDeps } from './applier';
import { ReadGate } from './read-gate';
import { storeCurrency } from './current';
import { followKeptSets } from './figures/kept-sets';
import { missingTables } from './layout';
import { listenForBatches } from './listen';
import { standByForLock, type StoreLock } from './lock';
import { ConsumerTakenOver, hasRowBatchesAfter, newestBatch } from './outbox';
import type { StorePosition } from './position';
import { progressLines, rebuildStore, type RebuildProgress } from './rebuild';
import { removeOrphanScratch } from './scratch';
import { Hangs } from './hangs';
import { openStore, superviseStore, TAG } from './open';
import { isStoreCorrupt, isStoreMissing } from './refusals';
import { type AnalyticsStore, AnalyticsStoreStopped, storeHolder } from './store';
import type { AnalyticsServiceOptions, AnalyticsState, StoreReading } from './state';
import { COALESCE_MS, Waits } from './waits';

export type { AnalyticsServiceOptions, AnalyticsState, StoreReading };

const RETRY_MAX_MS = 30_000;
const PROGRESS_EVERY_MS = 5_000;

export class AnalyticsService {
  private current: AnalyticsStore | null = null;
  private supervisor: Supervisor | null = null;
  /** The first open (boot): stop() waits for it, so that a store opened while stopping is closed before stop returns. */
  private booting: Promise<void> = Promise.resolve();
  private phase: AnalyticsState['phase'] = 'opening';
  private position: StorePosition | null = null;
  private caughtUp = false;
  private progress: RebuildProgress | undefined;
  /** Why the store must be rebuilt whatever its layout and position say (its files damaged or gone), or null. */
  private rebuildFor: string | null = null;
  private readonly hangs = new Hangs();
  /** Even while no round writes to the store, odd while one does (StoreReading); reads and rounds take turns. */
  private generation = 0;
  private readonly reads = new ReadGate();
  /** Told after each round that applied batches is recorded (the alerts job evaluates its rules then). */
  private appliedListeners = new Set<() => void>();
  /** The store's lock while this process holds it (one store per database: server/analytics/lock.ts). */
  private lock: StoreLock | null = null;
  private stopped = false;
  private readonly waits: Waits;
  /** A reader found the store not what its position says (distrust): it is reconciled, or rebuilt, before more rounds. */
  private recheck = false;
  private waiters: Array<(position: StorePosition) => void> = [];
  private readonly log: (line: string) => void;
  private readonly listener: { close(): Promise<void> };

  private constructor(private readonly options: AnalyticsServiceOptions) {
    this.log = options.log ?? ((line) => console.log(line));
    this.waits = new Waits(options.coalesceMs ?? COALESCE_MS);
    this.listener = listenForBatches(options.pool, () => this.wake());
  }

  /** Starts the store in the background (resolves at once): state() follows it. */
  static start(options: AnalyticsServiceOptions): AnalyticsService {
    const service = new AnalyticsService(options);
    service.booting = service.boot().catch((error: unknown) => {
      service.phase = 'down';
      service.log(`${TAG} The analytics store could not be started: ${message(error)}.`);
    });
    return service;
  }

  state(): AnalyticsState {
    const ready = this.phase === 'applying' && this.position !== null;
    return {
      phase: this.phase,
      ready,
      caughtUp: ready && this.caughtUp,
      appliedSeq: this.position?.seq ?? null,
      corpusVersion: this.position?.corpusVersion ?? null,
      ...(this.progress ? { progress: this.progress } : {}),
    };
  }

  /** The store, while it is ready to answer; null otherwise (the figures wait: figures-wait.ts). */
  get store(): AnalyticsStore | null {
    return this.state().ready ? this.current : null;
  }

  /** The store with its position and write generation, while it is ready to answer; null otherwise. */
  reading(): StoreReading | null {
    const store = this.store;
    if (!store || !this.position) return null;
    const { seq, corpusVersion } = this.position;
    return { store, generation: this.generation, appliedSeq: seq, corpusVersion };
  }

  /** Calls `listener` after each round of the change feed the store applied; returns its removal. */
  onApplied(listener: () => void): () => void {
    this.appliedListeners.add(listener);
    return () => this.appliedListeners.delete(listener);
  }

  /** Whether the store's contents are still those of `reading` (no round has written since, none is writing). */
  unchangedSince(reading: StoreReading): boolean {
    const { generation, store } = reading;
    return this.generation === generation && generation % 2 === 0 && this.store === store;
  }

  /** Resolves once the round writing to the store now (or waiting to) has recorded its position, or after `ms`. */
  writesSettled(ms: number): Promise<void> {
    return this.reads.writesSettled(ms);
  }

  /** A read of the store's figures begins (fromStore): returns its end. Rounds wait for it to write (read-gate.ts). */
  readBegun(): () => void {
    return this.reads.begun();
  }

  /**
   * A reader found the store missing its tables or database (a server whose data were dropped or replaced under the
   * running service): until it is reconciled with PostgreSQL's consumer again, or rebuilt, it is not read. Only the
   * store of `reading` is distrusted, once: a store changed since is another's.
   */
  private distrust(reading: StoreReading, why: string, corrupt = false): void {
    if (this.stopped || this.recheck || !this.unchangedSince(reading)) return;
    this.recheck = true;
    if (corrupt) this.rebuildFor = `its files are damaged or gone (${why})`;
    this.position = null;
    this.caughtUp = false;
    this.log(
      `${TAG} The store is not what its position says (${why}); the figures wait until it is reconciled or rebuilt.`,
    );
    this.wake();
  }

  /**
   * A reader's statement on the store of `reading` was refused with `error`; true when the store is distrusted for it
   * (PostgreSQL answers the reader), false when the fault is the statement's (thrown as any refused statement is).
   * - Its files damaged or gone (isStoreCorrupt: a checksum, a part's file cut short or deleted, the whole directory
   *   removed): distrusted, and rebuilt whatever its layout and position say (on a fresh directory when its directory
   *   is gone).
   * - For want of a table or its database (isStoreMissing): when the store lacks a table of its layout (or cannot say
   *   which it has), distrusted; when it has them all, the statement named a table no layout has: false, and the store
   *   is kept.
   * - Anything else: false.
   * A store changed since the reading began (rebuilt) is another's: true, and PostgreSQL answers.
   */
  async distrustFor(reading: StoreReading, error: unknown): Promise<boolean> {
    const why = message(error);
    if (isStoreCorrupt(error)) {
      this.distrust(reading, why, true);
      return true;
    }
    if (!isStoreMissing(error)) return false;
    const missing = await missingTables(reading.store).catch(() => null);
    if (missing?.length === 0 && this.unchangedSince(reading)) return false;
    this.distrust(reading, why);
    return true;
  }

  /** Looks at the outbox now (a writer says it appended). */
  wake(): void {
    this.waits.wake();
  }

  /**
   * Resolves once the store has applied the outbox's newest batch (read on the primary, which feeds the store: a
   * replica's outbox may lag), or after `ms`, or when stopped: a reader gives the applier that long to catch up.
   */
  async catchUp(ms: number): Promise<void> {
    const seq = ms > 0 && !this.stopped ? await newestBatch(this.options.db) : null;
    const holds = () => seq === null || this.stopped || (this.position !== null && this.position.seq >= seq);
    if (holds()) return;
    this.wake();
    const until = performance.now() + ms;
    // A round's end, a reconciliation or a rebuild may each bring the position there: looked at every few ms.
    while (!holds() && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  /** How long a reader behind PostgreSQL waits for the applier (AnalyticsServiceOptions.readWaitMs). */
  get readWaitMs(): number {
    return this.options.readWaitMs ?? 0;
  }

  /** Resolves with the store's position the next time it finds the outbox applied to its end. */
  caughtUpOnce(): Promise<StorePosition> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.phase = 'stopped';
    this.waits.end();
    await this.listener.close();
    await this.booting;
    await (this.supervisor ? this.supervisor.stop() : this.current?.close());
    await this.lock?.release();
  }

  /** The store's lock, taken (or already held), standing by while another process holds it; null once stopped. */
  private async holdLock(): Promise<StoreLock | null> {
    if (this.lock?.held()) return this.lock;
    const lock = await standByForLock(this.options.pool, {
      stopped: () => this.stopped,
      standingBy: () => (this.phase = 'standby'),
      retryMs: this.options.standbyRetryMs ?? 10_000,
      log: this.log,
    });
    lock?.onLost((error) => {
      if (this.stopped) return;
      // Not read, nor fed, until the lock is held again and the store reconciled with the consumer.
      this.position = null;
      this.caughtUp = false;
      this.log(
        `${TAG} Lost the analytics store's lock (${error.message}); the figures wait until it is held again.`,
      );
      this.wake();
    });
    return (this.lock = lock);
  }

  private async boot() {
    const orphans = await removeOrphanScratch();
    if (orphans.length > 0)
      this.log(
        `${TAG} Removed ${orphans.length} scratch director${orphans.length === 1 ? 'y' : 'ies'} of ended processes.`,
      );
    const first = await this.open().catch((error: unknown) => {
      this.phase = 'down';
      this.log(
        `${TAG} The analytics store could not be opened: ${message(error)}; no figure can be computed.`,
      );
      return null;
    });
    if (!first || this.stopped) return void (await first?.close());
    this.supervisor = superviseStore(first, {
      restarts: this.options.restarts ?? 5,
      delayMs: this.options.restartDelayMs ?? 1_000,
      open: () => this.open(),
      onBack: (store) => void this.run(store),
      onGiveUp: (line) => {
        this.phase = 'down';
        this.log(`${line}; no figure can be computed.`);
      },
    });
    void this.run(first);
  }

  private open(): Promise<AnalyticsStore> {
    return openStore(this.options, this.log);
  }

  /** One store process's life: made current, then the change feed applied, until it stops. */
  private async run(store: AnalyticsStore) {
    this.current = store;
    void store.ended.then((how) => {
      this.hangs.ended(how);
      this.wake(); // a loop waiting on a dead process ends now
    });
    this.position = null;
    this.caughtUp = false;
    let retryMs = 1_000;
    const deps: ApplierDeps = {
      owner: undefined,
      db: this.options.db,
      pool: this.options.pool,
      store,
      at: this.options.at,
      readsDrained: () => this.reads.drained(),
      writing: (phase, position) => {
        this.generation += 1;
        this.reads.writing(phase);
        // A round under way: not caught up until it is recorded in PostgreSQL and the outbox has no more.
        if (phase === 'begin') this.caughtUp = false;
        if (phase === 'end') {
          this.position = position;
          for (const listener of this.appliedListeners) listener();
        }
      },
      written: (round) => followKeptSets(store, round, this.generation),
      left: this.waits.left,
    };
    while (!this.stopped && this.current === store) {
      try {
        const lock = await this.holdLock();
        if (!lock || this.current !== store) return;
        deps.owner = lock.owner;
        this.phase = 'opening';
        // A round that failed half-way left the generation odd: the store is reconciled (or rebuilt) before it is
        // read again, and its readers compare generations from here on.
        if (this.generation % 2 === 1) this.generation += 1;
        this.reads.writing('end');
        await this.makeCurrent(deps);
        this.phase = 'applying';
        retryMs = 1_000;
        await this.apply(deps);
      } catch (error) {
        if (this.stopped || error instanceof AnalyticsStoreStopped) {
          if (!this.stopped) this.phase = 'restarting'; // the supervisor starts the process again
          return;
        }
        this.position = null;
        // A round, or the reconciliation, refused for damaged or missing files: rebuilt rather than tried again as is.
        if (isStoreCorrupt(error)) this.rebuildFor = `its files are damaged or gone (${message(error)})`;
        if (error instanceof ConsumerTakenOver) {
          // Fed by another process meanwhile (its lock taken while this one's connection was lost): this store is
          // reconciled, or rebuilt, once the lock is held again.
          this.log(`${TAG} ${error.message}.`);
          continue;
        }
        this.log(`${TAG} ${message(error)}; trying again in ${retryMs / 1000} s.`);
        await this.waits.pause(retryMs);
        retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
      }
    }
  }

  /** Whether the embedded store lost its directory (DATA_DIR/analytics removed or replaced: restarted on a new one). */
  private directoryGone(store: AnalyticsStore): boolean {
    if (this.options.url || store.pid === undefined) return false;
    return storeHolder(this.options.dataDir) !== store.pid;
  }

  /**
   * Rebuilds the store unless its layout is current and its position reconciles with PostgreSQL's, or if found damaged
   * (rebuildFor). A process whose directory is gone is closed (AnalyticsStoreStopped), restarted on a fresh one, rebuilt.
   */
  private async makeCurrent(deps: ApplierDeps) {
    this.recheck = false;
    // Stopping: the store's process may be ending, its `status` file already removed, which is no gone directory.
    if (this.stopped) throw new AnalyticsStoreStopped('The analytics service was stopped');
    if (this.directoryGone(deps.store)) {
      this.rebuildFor = null;
      this.log(
        `${TAG} The store's directory ${this.options.dataDir} is gone from under its process; starting it again on ` +
          'a fresh one, to be rebuilt.',
      );
      await deps.store.close();
      throw new AnalyticsStoreStopped(`The store's directory ${this.options.dataDir} is gone`);
    }
    this.rebuildFor = this.hangs.rebuildFor() ?? this.rebuildFor; // its process stopped answering twice: hangs.ts
    const currency = await storeCurrency(deps, this.rebuildFor, this.log);
    this.rebuildFor = null;
    if ('position' in currency) return void (this.position = currency.position);
    const { why } = currency;
    // Stopped meanwhile (a SIGTERM while the store opened): no rebuild starts, nor is one announced.
    if (this.stopped) throw new AnalyticsStoreStopped('The analytics service was stopped');
    this.phase = 'rebuilding';
    // A reader's figures from before the rebuild are of another store.
    this.generation += 2;
    this.log(`${TAG} Rebuilding the store from PostgreSQL: ${why}.`);
    const lines = progressLines(this.log, PROGRESS_EVERY_MS, (progress) => (this.progress = progress));
    let result;
    try {
      result = await rebuildStore(deps, deps.store, { onProgress: lines.onProgress, onMerge: lines.onMerge });
    } finally {
      this.progress = undefined;
    }
    this.position = result.position;
    lines.rebuilt(result);
  }

  /** Applies rounds while there are any; between them waits for a notification or the timer. */
  private async apply(deps: ApplierDeps) {
    while (!this.stopped && !this.recheck && this.current === deps.store && this.lock?.held()) {
      // Its directory removed under it: not read from here on, and started again on a fresh one (makeCurrent).
      if (this.directoryGone(deps.store)) {
        this.position = null;
        this.caughtUp = false;
        return;
      }
      this.waits.looking();
      const early = this.waits.early();
      // Batches of posts or profiles came within coalesceMs of the last round: they wait for the batches still coming
      // with them. When none has come (or only tags: a rule's past matches reach the figures as they are written), the
      // round below applies what there is, or finds the outbox applied (caught up), at once.
      if (early > 0 && (await hasRowBatchesAfter(deps.db, this.position!.seq))) {
        await this.waits.hold(early, () => this.stopped || this.recheck);
        continue;
      }
      const started = performance.now();
      const next = await applyRound(deps, this.position!);
      if (next) {
        this.position = next;
        this.caughtUp = false;
        this.waits.applied(started);
        continue;
      }
      this.caughtUp = true;
      for (const resolve of this.waiters.splice(0)) resolve(this.position!);
      await this.waits.pause(this.options.pollMs ?? 2_000);
    }
  }
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
