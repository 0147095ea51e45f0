// Bluesky's firehose through Jetstream (JETSTREAM_URL, wss://…/subscribe?wantedCollections=app.bsky.feed.post): every
// post of the network passes one matcher (server/query/match) over the tracked queries the injected provider gives
// (asked again every `refreshMs`, and at once by refresh() when a change to them is announced), and only posts that
// match one are imported, through the collection runner's import path. Events are committed in batches (`flushEvents`
// events or `flushMs`), each with the stream's cursor (the last event's `time_us`) in stream_cursors, in one
// transaction (stream-store.ts): a kill -9 loses only the batch in flight, read again at the next start.
//
// A (re)connection resumes from the committed cursor minus `overlapMs` (Jetstream's advice when switching instances,
// whose clocks differ); the overlap's posts already committed are skipped by their key (remembered for the overlap),
// and a post read twice anyway (after a restart) is stored once: the corpus is keyed by its AT URI. A dropped or
// silent (`idleMs`) connection is opened again after an exponential backoff with jitter. An unreadable event is
// refused with its reason — logged (never the URL's credentials), counted — and the stream goes on. A resumption that
// Jetstream does not replay from the cursor (it keeps a few days at most: its first event is over `skipAfterMs` after
// the cursor) is said through `onSkipped`, the span whose posts were not read.
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { parseWithLists, type QueryLists } from '@server/query/index';
import { compileMatcher, type QueryMatcher, type TrackedQuery } from '@server/query/match/index';
import { prepareItems } from '../prepare';
import { POST_COLLECTION, readEvent, type StreamEvent } from './jetstream-event';
import { commitBatch, readCursor, type StreamBatch, type StreamRecord } from './stream-store';
import { matchPostOf } from '@server/social/corpus/import/match-post';

export interface StreamQuery {
  id: string;
  /** The query in the query language (server/query/README.md). */
  text: string;
  /** The lists of its workspace it may read (server/query/lists.ts). */
  lists?: QueryLists;
}

export interface JetstreamOptions {
  pool: pg.Pool;
  /** The subscribe endpoint, ws:// or wss:// (…/subscribe). */
  url: string;
  /** The tracked queries every post is matched against. */
  queries(): Promise<StreamQuery[]>;
  /** Keeps, in each batch's transaction, which tracked queries its posts matched (their coverage). */
  record?: StreamRecord;
  /** After each commit, the DIDs of the authors it stored still without a handle (bluesky-handles.ts resolves them). */
  onUnresolved?(dids: string[]): void;
  /** The row of stream_cursors; `bluesky-jetstream` by default. */
  name?: string;
  overlapMs?: number;
  flushEvents?: number;
  flushMs?: number;
  refreshMs?: number;
  /** Backoff after a drop: `baseMs` × 2^attempt up to `maxMs`, each wait between half and all of it. */
  backoff?: { baseMs: number; maxMs: number };
  /** A connection silent this long is taken for dead. */
  idleMs?: number;
  /**
   * A resumed connection whose first event comes this long after the cursor was not replayed from it (the firehose is
   * never that quiet): `onSkipped` gets the span. 5 minutes by default.
   */
  skipAfterMs?: number;
  /** What was posted from `from` to `to` was not read: the stream resumed later than its cursor. */
  onSkipped?(from: Date, to: Date): Promise<void>;
  /** Events read but not yet committed past which the connection is dropped and read again (a slow database). */
  maxPending?: number;
  random?: () => number;
  log?: (line: string) => void;
}

interface JetstreamStatus {
  connected: boolean;
  /** Connections opened. */
  connections: number;
  /** The committed cursor (µs). */
  cursorUs: number | undefined;
  events: number;
  matched: number;
  refused: number;
  queries: number;
}

export interface JetstreamConsumer {
  status(): JetstreamStatus;
  /**
   * Reads the tracked queries again now (a change to them was announced), after any read under way; calls while one
   * waits share it.
   */
  refresh(): Promise<void>;
  /** Commits what was read, then closes. */
  stop(): Promise<void>;
}

/** The stream's address without its credentials or query (for the log). */
const shown = (url: string) => {
  const parsed = URL.parse(url);
  return parsed ? `${parsed.protocol}//${parsed.host}${parsed.pathname}` : '(an unreadable URL)';
};

const emptyBatch = (): StreamBatch => ({
  platform: 'bluesky',
  rows: [],
  refs: [],
  gone: [],
  refused: [],
  events: 0,
  cursorUs: 0,
  hits: [],
});

export async function startJetstream(options: JetstreamOptions): Promise<JetstreamConsumer> {
  const {
    pool,
    name = 'bluesky-jetstream',
    overlapMs = 5_000,
    flushEvents = 500,
    flushMs = 1_000,
    refreshMs = 60_000,
    backoff = { baseMs: 1_000, maxMs: 60_000 },
    idleMs = 60_000,
    skipAfterMs = 5 * 60_000,
    maxPending = 20_000,
    random = Math.random,
    log = console.log,
  } = options;
  const where = shown(options.url);
  const stats = { connected: false, connections: 0, events: 0, matched: 0, refused: 0, queries: 0 };
  let committedUs = await readCursor(pool, name);
  /** Post keys committed lately (stored or deleted), with their batch's time: the overlap's are not read again. */
  const recent = new Map<string, { at: number; deleted: boolean }>();
  let matcher: QueryMatcher = compileMatcher([]);
  let pending = emptyBatch();
  let flushing: Promise<void> = Promise.resolve();
  let flushTimer: NodeJS.Timeout | undefined;
  let socket: WebSocket | undefined;
  /** Set when what was read since the last commit cannot be committed: dropped, and read again from the cursor. */
  let discarding = false;
  let stopped = false;
  const stopping = new AbortController();

  /** Refusals logged at most once a second, with how many were not. */
  let lastRefusalLog = 0;
  let unlogged = 0;
  const logRefusal = (ref: string, reason: string) => {
    const now = Date.now();
    if (now - lastRefusalLog < 1_000) {
      unlogged += 1;
      return;
    }
    lastRefusalLog = now;
    const more = unlogged > 0 ? ` (and ${unlogged} more refused since the last said)` : '';
    unlogged = 0;
    log(`Bluesky stream: refused an event (${ref}): ${reason.slice(0, 500)}${more}`);
  };

  const refresh = async () => {
    try {
      const given = await options.queries();
      const tracked: TrackedQuery[] = [];
      for (const query of given) {
        const parsed = parseWithLists(query.text, query.lists ?? new Map());
        if (parsed.ok) tracked.push({ id: query.id, ast: parsed.ast });
        else
          log(`Bluesky stream: query ${query.id} is not valid and is left out: ${parsed.errors[0]!.message}`);
      }
      matcher = compileMatcher(tracked);
      stats.queries = tracked.length;
    } catch (error) {
      log(
        `Bluesky stream: the tracked queries could not be read (${(error as Error).message}); the last kept.`,
      );
    }
  };
  let reading = refresh();
  let waiting: Promise<void> | undefined;
  const refreshAgain = () =>
    (waiting ??= reading.then(() => {
      waiting = undefined;
      return (reading = refresh());
    }));
  await reading;
  const refreshTimer = setInterval(() => void refreshAgain(), refreshMs);
  refreshTimer.unref();

  const flush = () => {
    clearTimeout(flushTimer);
    flushTimer = undefined;
    // Events that said no position (unreadable ones) go with the next that does, or keep the committed one; a cursor
    // of 0 would ask Jetstream for everything it keeps.
    if (pending.cursorUs === 0) {
      if (committedUs === undefined || pending.events === 0) return flushing;
      pending.cursorUs = committedUs;
    }
    const batch = pending;
    pending = emptyBatch();
    flushing = flushing.then(async () => {
      if (discarding) return;
      try {
        const result = await commitBatch(pool, name, batch, options.record);
        committedUs = Math.max(committedUs ?? 0, batch.cursorUs);
        if (result.unresolved.length > 0) options.onUnresolved?.(result.unresolved);
        for (const ref of batch.refs) recent.set(ref, { at: batch.cursorUs, deleted: false });
        for (const key of batch.gone) recent.set(key, { at: batch.cursorUs, deleted: true });
        const oldest = committedUs - 2 * overlapMs * 1_000;
        for (const [key, { at }] of recent) if (at < oldest) recent.delete(key);
        // The database's refusals (the stream's own were said when read).
        for (const refusal of result.refused.slice(batch.refused.length)) {
          stats.refused += 1;
          logRefusal(refusal.ref, refusal.reason);
        }
      } catch (error) {
        log(
          `Bluesky stream: a batch could not be committed (${(error as Error).message}); reading it again.`,
        );
        discarding = true;
        socket?.close();
      }
    });
    return flushing;
  };

  const handle = (event: StreamEvent) => {
    if (event.timeUs !== undefined) pending.cursorUs = Math.max(pending.cursorUs, event.timeUs);
    const replayed = event.timeUs !== undefined && committedUs !== undefined && event.timeUs <= committedUs;
    if (event.type === 'refused') {
      if (!replayed) {
        stats.refused += 1;
        pending.refused.push({ ref: event.ref, reason: event.reason, raw: event.raw });
        logRefusal(event.ref, event.reason);
      }
    } else if (event.type === 'delete') {
      if (!(replayed && recent.get(event.key)?.deleted)) pending.gone.push(event.key);
    } else if (event.type === 'post' && !(replayed && recent.has(event.key))) {
      const { rows, refused } = prepareItems([event.item]);
      // A post of the overlap refused when first read was counted then.
      for (const refusal of replayed ? [] : refused) {
        stats.refused += 1;
        pending.refused.push(refusal);
        logRefusal(refusal.ref, refusal.reason);
      }
      const row = rows[0];
      const queries = row ? matcher.match(matchPostOf(row)) : [];
      if (row && queries.length > 0) {
        stats.matched += 1;
        pending.rows.push(row);
        pending.refs.push(event.key);
        pending.hits.push({ queries, postedAt: row.postedAt });
      }
    }
    if (!replayed) {
      stats.events += 1;
      pending.events += 1;
    }
  };

  /** The cursor the open connection resumed from, until its first event with a time says whether it was replayed. */
  let resumedFrom: number | undefined;
  const checkResumption = (timeUs: number | undefined) => {
    if (resumedFrom === undefined || timeUs === undefined) return;
    const from = resumedFrom;
    resumedFrom = undefined;
    if (timeUs - from <= skipAfterMs * 1_000) return;
    const [since, until] = [new Date(from / 1_000), new Date(timeUs / 1_000)];
    log(
      `Bluesky stream: ${where} resumed at ${until.toISOString()}, not from the cursor ` +
        `${since.toISOString()}: what was posted between is not collected.`,
    );
    void options.onSkipped?.(since, until).catch((error: unknown) => {
      log(`Bluesky stream: the skipped span could not be recorded (${(error as Error).message}).`);
    });
  };

  const onMessage = (text: string) => {
    if (discarding || stopped) return;
    const event = readEvent(text);
    checkResumption(event.timeUs);
    handle(event);
    if (pending.events >= flushEvents) void flush();
    else flushTimer ??= setTimeout(() => void flush(), flushMs);
    if (pending.events >= maxPending) {
      log(`Bluesky stream: ${pending.events} events wait for the database; reading them again later.`);
      discarding = true;
      socket?.close();
    }
  };

  /** One connection, until it closes; whether it brought any message, and why it ended. */
  const connectOnce = () =>
    new Promise<{ received: boolean; why: string }>((done) => {
      const url = new URL(options.url);
      url.searchParams.set('wantedCollections', POST_COLLECTION);
      if (committedUs !== undefined) {
        url.searchParams.set('cursor', String(Math.max(0, committedUs - overlapMs * 1_000)));
      }
      resumedFrom = committedUs;
      let received = false;
      let idle: NodeJS.Timeout | undefined;
      const quiet = () => {
        clearTimeout(idle);
        idle = setTimeout(() => ws.close(), idleMs);
      };
      const ws = new WebSocket(url);
      socket = ws;
      ws.binaryType = 'arraybuffer';
      // A connection that does not open within idleMs is given up as well.
      quiet();
      ws.addEventListener('open', () => {
        stats.connected = true;
        stats.connections += 1;
        quiet();
      });
      ws.addEventListener('message', (message: MessageEvent) => {
        received = true;
        quiet();
        const data: unknown = message.data;
        onMessage(typeof data === 'string' ? data : new TextDecoder().decode(data as ArrayBuffer));
      });
      ws.addEventListener('close', (event: CloseEvent) => {
        clearTimeout(idle);
        stats.connected = false;
        socket = undefined;
        done({ received, why: event.reason || `code ${event.code}` });
      });
    });

  const loop = async () => {
    let attempt = 0;
    while (!stopped) {
      const { received, why } = await connectOnce();
      // What was read is committed (or, after a failure, dropped) before the next connection asks from the cursor.
      await flush();
      if (discarding) pending = emptyBatch();
      discarding = false;
      if (stopped) return;
      if (received) attempt = 0;
      const ceiling = Math.min(backoff.maxMs, backoff.baseMs * 2 ** attempt);
      const wait = Math.round(ceiling / 2 + (random() * ceiling) / 2);
      attempt = Math.min(attempt + 1, 30);
      log(`Bluesky stream: ${where} closed (${why}); connecting again in ${wait} ms.`);
      await sleep(wait, undefined, { signal: stopping.signal }).catch(() => {});
    }
  };
  log(
    `Bluesky stream: ${where}, ${stats.queries} tracked queries, ` +
      (committedUs === undefined ? 'from now.' : `from ${new Date(committedUs / 1_000).toISOString()}.`),
  );
  const running = loop();

  return {
    status: () => ({ ...stats, cursorUs: committedUs }),
    refresh: refreshAgain,
    async stop() {
      stopped = true;
      stopping.abort();
      clearInterval(refreshTimer);
      socket?.close();
      await running;
      await flush();
    },
  };
}
