// The streams of the tracked queries as every process that runs collection starts them (server/main.ts,
// server/worker.ts, and the tests' servers): each stream consumer (server/scraping/streams) given the queries tracked on
// its source whose plan may still collect, their coverage recorded in each batch's transaction (coverage.ts), and a
// change to them heard at once.
import type { Catalogue } from '@server/billing/plans';
import type { Database } from '@server/db/database';
import { startBlueskyStream, type BlueskyStreamOptions } from '@server/scraping/streams/bluesky-stream';
import { streamTracking } from './coverage';

type Streaming = Pick<Database, 'db' | 'pool'>;

/** Bluesky's Jetstream (JETSTREAM_URL) for the queries tracked on Bluesky: one process per database streams. */
export function startTrackedBlueskyStream(
  database: Streaming,
  catalogue: Catalogue,
  url: string,
  options: Pick<BlueskyStreamOptions, 'standbyMs' | 'log'> = {},
): { stop(): Promise<void> } {
  const tracking = streamTracking('bluesky', database.db, catalogue);
  return startBlueskyStream({
    pool: database.pool,
    url,
    queries: () => tracking.queries(database.pool),
    record: tracking.record,
    changes: tracking.changes,
    ...options,
  });
}
