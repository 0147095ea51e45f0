// How the analytics service (service.ts) waits: between rounds, until something wakes it (a writer's notification, a
// process that died, a distrusted store) or the poll's timer; and before a round while batches keep coming, until the
// rounds' pace allows one, which a notification does not cut short (the batches written meanwhile are then one round).

/**
 * AnalyticsServiceOptions.coalesceMs's default: while batches keep coming, a round starts at most this long after the
 * one before. During an import of 200,000 posts in batches of 5,000 a round then takes about two batches rather than
 * one, and the store's CPU a post falls by about a quarter (docs/analytics-engine.md, "Fewer, larger rounds"); a
 * reader that finds batches not yet applied waits up to ANALYTICS_READ_WAIT_MS for the round that applies them.
 */
export const COALESCE_MS = 2_000;

export class Waits {
  private woken = false;
  private ended = false;
  private onWake: (() => void) | null = null;
  /** When the last round that applied batches started (performance.now()). */
  private lastRoundAt = -Infinity;
  /** The last round left batches it had read (left()). */
  private backlog = false;

  constructor(private readonly coalesceMs: number) {}

  /** There is something to look at now: a pause ends (or the next one returns at once). */
  wake(): void {
    this.woken = true;
    this.onWake?.();
  }

  /** Every wait ends, now and from now on (the service stopped). */
  end(): void {
    this.ended = true;
    this.wake();
  }

  /** A round is about to read the outbox: the wakes so far are seen. */
  looking(): void {
    this.woken = false;
  }

  /** A round that applied batches started at `at` (performance.now()). */
  applied(at: number): void {
    this.lastRoundAt = this.backlog ? -Infinity : at;
  }

  /**
   * Told by the applier whether the round just recorded left batches it had read (it was full). A full round sets no
   * pace: the next one is as full at once, and waiting would only put off what is already written (a rule's past
   * matches, 50,000 posts a batch, were applied one batch every two seconds).
   */
  readonly left = (more: boolean): void => {
    this.backlog = more;
  };

  /** How long the next round must still wait for the pace, in ms (≤ 0: none). */
  early(): number {
    return this.lastRoundAt + this.coalesceMs - performance.now();
  }

  /** Waits `ms`, or until a wake (at once when one came since looking()). */
  pause(ms: number): Promise<void> {
    return this.wait(ms, () => true);
  }

  /** Waits `ms`; a wake ends it only when `cut()` holds then. */
  hold(ms: number, cut: () => boolean): Promise<void> {
    return this.wait(ms, cut);
  }

  private wait(ms: number, cut: () => boolean): Promise<void> {
    if (this.ended || (this.woken && cut())) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.onWake = () => {
        if (this.ended || cut()) done();
      };
    });
  }
}
