// Reads of the store's figures and the rounds of the change feed that write to it take turns (service.ts). A read's
// figures count only when no round wrote while they were read (StoreReading's generation): a round about to write
// waits for the reads under way (up to a bound), and a read beginning while a round waits or writes waits for it
// (writesSettled). Before, a feed of rounds back to back (a rule's 1.33 million past matches at 10M posts, 30 s of
// rounds) wrote in the middle of a dashboard's read three times in a row, and the dashboard answered 503.

/** Resolves once the callback pushed onto `waiters` is called, or after `ms`. */
function calledOrAfter(waiters: Array<() => void>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      resolve();
    }
    waiters.push(done);
  });
}

/** How long a round about to write waits for the reads of the store under way, at most. */
const READS_DRAIN_MS = 5_000;

export class ReadGate {
  private inFlight = 0;
  private ended: Array<() => void> = [];
  /** A round is waiting for the reads under way, then writes: reads beginning now wait for it. */
  private pending = false;
  private inWrite = false;
  private writesDone: Array<() => void> = [];

  /** A read begins: returns its end (once; later calls do nothing). */
  begun(): () => void {
    this.inFlight += 1;
    let over = false;
    return () => {
      if (over) return;
      over = true;
      this.inFlight -= 1;
      if (this.inFlight === 0) for (const done of this.ended.splice(0)) done();
    };
  }

  /**
   * A round is about to write: resolves once no read begun is under way, or after `ms`. Pending from now until its
   * write begins (writing).
   */
  drained(ms = READS_DRAIN_MS): Promise<void> {
    this.pending = true;
    if (this.inFlight === 0) return Promise.resolve();
    return calledOrAfter(this.ended, ms);
  }

  /** A round's write begins, or it has recorded its position (or failed: the store is reconciled before it is read). */
  writing(phase: 'begin' | 'end'): void {
    this.pending = false;
    this.inWrite = phase === 'begin';
    if (phase === 'end') for (const done of this.writesDone.splice(0)) done();
  }

  /** Resolves once the round writing, or waiting to, has recorded its position (at once when none), or after `ms`. */
  writesSettled(ms: number): Promise<void> {
    if (!this.inWrite && !this.pending) return Promise.resolve();
    return calledOrAfter(this.writesDone, ms);
  }
}
