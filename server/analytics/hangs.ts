// The store's processes killed for not answering a statement in time (EmbeddedStore's hang, STOPPED_ANSWERING). One
// that stops answering again soon after it was started again has a statement its engine cannot finish (a damaged
// part's checksum search), which the next read would start once more: the service then rebuilds the store beside,
// without the damaged part.
import { STOPPED_ANSWERING } from './store';

/** Two hangs within this long and the store is rebuilt. */
const WINDOW_MS = 3_600_000;

export class Hangs {
  private at: number[] = [];

  /** Notes how a store's process ended (its `ended`). */
  ended(how: string, now = Date.now()): void {
    if (how.startsWith(STOPPED_ANSWERING)) this.at.push(now);
  }

  /** Why the store is to be rebuilt for its hangs (which are then forgotten), or null. */
  rebuildFor(now = Date.now()): string | null {
    this.at = this.at.filter((at) => now - at < WINDOW_MS);
    if (this.at.length < 2) return null;
    const why = `its process stopped answering ${this.at.length} times within an hour`;
    this.at = [];
    return why;
  }
}
