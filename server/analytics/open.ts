// How the service gets its store and keeps it: the embedded store's process on DATA_DIR/analytics (a directory its
// engine cannot open moved aside first), or the ClickHouse server of ANALYTICS_URL; and the supervision that starts
// the process again when it dies (server/db/supervisor.ts), in the store's words.
import { supervise, type Supervisor } from '@server/db/supervisor';
import { RemoteStore } from './remote';
import { type AnalyticsStore, openOrSetAside } from './store';

export const TAG = '[analytics]';

export interface StoreAt {
  /** DATA_DIR/analytics: the embedded store's directory. */
  dataDir: string;
  /** ANALYTICS_URL: a ClickHouse server that holds the store instead; `dataDir` is then unused. */
  url?: string;
  maxThreads?: number;
  /** The embedded store's time limit for a statement (its `timeoutMs`: 120 s unless given). */
  statementTimeoutMs?: number;
}

/**
 * Opens the store's process; a directory it cannot open (and no other process holds) is moved aside first, which
 * `log` is told. With a server's URL, the store there (reached with the first statement).
 */
export function openStore(
  { dataDir, url, maxThreads, statementTimeoutMs }: StoreAt,
  log: (line: string) => void,
) {
  if (url) return Promise.resolve<AnalyticsStore>(RemoteStore.connect({ url, maxThreads }));
  return openOrSetAside({ dataDir, maxThreads, timeoutMs: statementTimeoutMs }, (reason, aside) =>
    log(`${TAG} ${reason}; moved it to ${aside} and rebuilding the store.`),
  );
}

export interface StoreSupervision {
  restarts: number;
  delayMs: number;
  /** Opens the store again (openStore). */
  open(): Promise<AnalyticsStore>;
  /** A store opened again after the one before stopped. */
  onBack(store: AnalyticsStore): void;
  /** Every try failed: the line saying so. */
  onGiveUp(line: string): void;
}

/** Starts `first`'s store again when it stops (its `ended`), up to `restarts` times, the pauses doubling. */
export function superviseStore(first: AnalyticsStore, supervision: StoreSupervision): Supervisor {
  const watched = (store: AnalyticsStore) => ({ store, exited: store.ended, stop: () => store.close() });
  return supervise(watched(first), {
    restarts: supervision.restarts,
    delayMs: supervision.delayMs,
    tag: TAG,
    words: {
      subject: "The analytics store's process",
      lost: 'stopped',
      retrying: 'starting it again',
      back: 'runs again',
      notBack: 'did not start again',
    },
    start: async () => watched(await supervision.open()),
    detail: ({ store }) => store.describe(),
    onBack: ({ store }) => supervision.onBack(store),
    onGiveUp: (line) =>
      supervision.onGiveUp(line.replace(/; exiting so that the process is restarted\.$/, '')),
  });
}
