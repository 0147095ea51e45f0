// The Bluesky stream as a worker runs it (server/worker.ts, SCRAPING_BLUESKY_STREAM=true): one consumer per database
// however many workers run. Each worker asks for a session advisory lock on a connection of its own; the one that
// holds it streams (jetstream.ts), the others ask again every `standbyMs` and take over when its connection ends (its
// process stopped or killed: PostgreSQL lets the lock go with the session). On that connection it also LISTENs on
// `changes`, where a change to the tracked queries is announced: the stream reads them again at once, so a query
// tracked a moment ago collects from then on rather than from the next periodic read. Beside the stream, the holder
// resolves its new authors' handles (bluesky-handles.ts) when given the AppView. The lock's part (startLockedStream)
// serves Mastodon's streams as well (mastodon-streams.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { startHandleResolver, type HandleResolverOptions } from './bluesky-handles';
import { startJetstream, type StreamQuery } from './jetstream';
import type { StreamRecord } from './stream-store';

export interface BlueskyStreamOptions {
  pool: pg.Pool;
  /** JETSTREAM_URL. */
  url: string;
  /** The tracked queries the stream collects for, and what they keep of each batch (server/tracking/coverage.ts). */
  queries(): Promise<StreamQuery[]>;
  record?: StreamRecord;
  /** The NOTIFY channel on which a change to the tracked queries is announced (server/tracking/store.ts). */
  changes?: string;
  /** Where and how the authors' handles are resolved (the AppView, the collectors' HTTP options); none when absent. */
  handles?: Pick<HandleResolverOptions, 'url' | 'http' | 'everyMs' | 'retryMs' | 'maxRetryMs'>;
  standbyMs?: number;
  log?: (line: string) => void;
  /** A resumption Jetstream did not replay from the cursor: the span not read (jetstream.ts). */
  onSkipped?(from: Date, to: Date): Promise<void>;
}

const NAME = 'bluesky-jetstream';

export function startBlueskyStream(options: BlueskyStreamOptions): { stop(): Promise<void> } {
  return startLockedStream({
    pool: options.pool,
    lock: `murmur:stream:${NAME}`,
    label: 'Bluesky stream',
    ...(options.changes && { changes: options.changes }),
    ...(options.standbyMs !== undefined && { standbyMs: options.standbyMs }),
    ...(options.log && { log: options.log }),
    start: async (log) => {
      // The handles resolved beside the stream, never in its way: it hands over the DIDs and goes on.
      const handles = options.handles && startHandleResolver({ ...options.handles, pool: options.pool, log });
      const consumer = await startJetstream({
        pool: options.pool,
        url: options.url,
        queries: options.queries,
        ...(options.record && { record: options.record }),
        ...(handles && { onUnresolved: handles.want }),
        ...(options.onSkipped && { onSkipped: options.onSkipped }),
        name: NAME,
        log,
      }).catch(async (error: unknown) => {
        await handles?.stop();
        throw error;
      });
      return {
        refresh: consumer.refresh,
        async stop() {
          await consumer.stop();
          await handles?.stop();
        },
      };
    },
  });
}

/** A running consumer as the lock holds it: it reads its queries again when told, and stops. */
interface LockedConsumer {
  refresh(): Promise<void>;
  stop(): Promise<void>;
}

export interface LockedStreamOptions {
  pool: pg.Pool;
  /** The advisory lock's name: one process per database holds it. */
  lock: string;
  /** How the log names it: "Bluesky stream". */
  label: string;
  changes?: string;
  standbyMs?: number;
  log?: (line: string) => void;
  start(log: (line: string) => void): Promise<LockedConsumer>;
}

/** Runs `start`'s consumer while this process holds `lock`; the others stand by and take over when it lets go. */
export function startLockedStream(options: LockedStreamOptions): { stop(): Promise<void> } {
  const { pool, label, standbyMs = 30_000, log = console.log } = options;
  const stopping = new AbortController();
  let consumer: LockedConsumer | undefined;
  let said = false;

  /** Streams while this process holds the lock; resolves when it stops or the lock's connection ends. */
  const holdAndStream = async () => {
    const client = await pool.connect();
    let lost: (error: Error) => void = () => {};
    const ended = new Promise<Error>((done) => (lost = done));
    const onError = (error: Error) => lost(error);
    client.on('error', onError);
    const onNotice = (notice: pg.Notification) => {
      if (notice.channel === options.changes) void consumer?.refresh();
    };
    client.on('notification', onNotice);
    let broken: Error | undefined;
    try {
      const { rows } = await client.query<{ held: boolean }>(
        'SELECT pg_try_advisory_lock(hashtext($1)) AS held',
        [options.lock],
      );
      if (!rows[0]?.held) {
        if (!said) log(`${label}: another process streams; this one stands by.`);
        said = true;
        return;
      }
      said = false;
      // Before the queries' first read: a change committed after it is announced.
      if (options.changes) await client.query(`LISTEN ${client.escapeIdentifier(options.changes)}`);
      consumer = await options.start(log);
      const stopped = new Promise<void>((done) => stopping.signal.addEventListener('abort', () => done()));
      const why = await Promise.race([ended, stopped]);
      if (why instanceof Error) {
        broken = why;
        log(`${label}: the lock's connection ended (${why.message}); stopping, then asking again.`);
      }
      await consumer.stop();
      consumer = undefined;
      if (!broken) {
        await client.query('UNLISTEN *');
        await client.query('SELECT pg_advisory_unlock(hashtext($1))', [options.lock]);
      }
    } finally {
      client.off('error', onError);
      client.off('notification', onNotice);
      client.release(broken ?? false);
    }
  };

  const running = (async () => {
    while (!stopping.signal.aborted) {
      await holdAndStream().catch((error: unknown) => {
        log(`${label}: ${(error as Error).message}; trying again.`);
      });
      await sleep(standbyMs, undefined, { signal: stopping.signal }).catch(() => {});
    }
  })();

  return {
    async stop() {
      stopping.abort();
      await running;
    },
  };
}
