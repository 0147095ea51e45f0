// Mastodon's streaming API for the tracked queries (SCRAPING_MASTODON_STREAM=true): for each instance a tracked query
// is tracked on, its public timeline as server-sent events (GET /api/v1/streaming/public: `event: update` with a Status
// as JSON; `:` comments are the instance's heartbeat, about every 15 s). Every status passes one matcher over the
// queries tracked on that instance (as the Bluesky stream does: jetstream.ts) and only those that match one are
// stored, through the collection runner's import path, in batches committed with their coverage in one transaction
// (stream-store.ts; the stream's row in stream_cursors says when it last committed, a heartbeat included).
//
// A server-sent events stream cannot resume: what an instance posts while its stream is down is not collected. So a
// dropped (or silent for `idleMs`, or refused) connection is a gap in coverage: `onDrop` records it (reason
// unreachable, since the drop) for every query tracked on the instance, and `onOpen` closes it when the stream is
// back, so the gap's span is the time nothing was collected. The connection is opened again after an exponential
// backoff with jitter. A status read twice is stored once (the corpus is keyed by its URI); an unreadable event is
// refused with its reason — counted, logged — and the stream goes on. `status.update` (an edit) is read as an update.
// `delete` carries the instance's own id, not the URI the corpus keys by: each stored status's id is kept beside it
// (mastodon_status_ids, in the batch's transaction), so a delete takes the post out of the corpus if a stream stored it
// and is a no-op otherwise.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import * as z from 'zod/mini';
import { parseWithLists } from '@server/query/index';
import { compileMatcher, type QueryMatcher, type TrackedQuery } from '@server/query/match/index';
import { matchPostOf } from '@server/social/corpus/import/match-post';
import { agentsFor } from '../connectors/http';
import { mapStatus } from '../connectors/mastodon';
import { prepareItems } from '../prepare';
import type { StreamQuery } from './jetstream';
import { commitBatch, type StreamBatch, type StreamRecord } from './stream-store';

interface MastodonStreamOptions {
  pool: pg.Pool;
  /** The instance's origin: https://mastodon.social. */
  instance: string;
  /** The queries tracked on the instance. */
  queries(): Promise<StreamQuery[]>;
  record?: StreamRecord;
  /** The stream dropped at `at`: what the instance posts until it is open again is not collected. */
  onDrop?(at: Date, why: string): Promise<void>;
  /**
   * The stream is open (again): the gap ends. At the first opening, `unheardSince` is when the stream last committed
   * before this process started when that was over `downAfterMs` ago (no process streamed it meanwhile).
   */
  onOpen?(at: Date, unheardSince?: Date): Promise<void>;
  /** How long unheard before a start counts as a gap (a heartbeat commits at most every `heardEveryMs`). */
  downAfterMs?: number;
  /** Loopback and private addresses reachable (local development, the tests' stand-ins). */
  allowPrivateHosts?: boolean;
  flushEvents?: number;
  flushMs?: number;
  refreshMs?: number;
  /** Backoff after a drop: `baseMs` × 2^attempt up to `maxMs`, each wait between half and all of it. */
  backoff?: { baseMs: number; maxMs: number };
  /** A connection silent this long (not even a heartbeat) is taken for dead. */
  idleMs?: number;
  /** A heartbeat commits the stream's row (that it is heard) at most this often when no status came. */
  heardEveryMs?: number;
  random?: () => number;
  log?: (line: string) => void;
}

export interface MastodonConsumer {
  status(): { connected: boolean; connections: number; events: number; matched: number; refused: number };
  refresh(): Promise<void>;
  stop(): Promise<void>;
}

/** The stream's row in stream_cursors. */
export const mastodonStreamName = (instance: string) => `mastodon-stream:${instance}`;

interface SseEvent {
  name: string;
  data: string;
}

/** Server-sent events (the WHATWG format): fields up to a blank line make an event; `:` lines are comments. */
function sseReader(on: (event: SseEvent) => void, onComment: () => void) {
  let buffer = '';
  let name = '';
  let data: string[] = [];
  return (chunk: string) => {
    buffer += chunk;
    const lines = buffer.split(/\r\n|\r|\n/);
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '') {
        if (data.length > 0) on({ name: name || 'message', data: data.join('\n') });
        name = '';
        data = [];
      } else if (line.startsWith(':')) onComment();
      else {
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') name = value;
        else if (field === 'data') data.push(value);
      }
    }
  };
}

const emptyBatch = (instance: string): StreamBatch => ({
  platform: 'mastodon',
  rows: [],
  refs: [],
  gone: [],
  local: { instance, ids: [] },
  refused: [],
  events: 0,
  cursorUs: 0,
  hits: [],
});

/** A status's id on its instance, as a `delete` event's payload names it (Mastodon's are digits; others' flakes). */
const statusId = z
  .string()
  .check(z.regex(/^[A-Za-z0-9_-]{1,128}$/, { error: 'must be a status id (letters, digits, - or _)' }));

/** The instance's own id of a status (its `id`), when it is one. */
const localId = (status: unknown): string | undefined => {
  const id = (status as { id?: unknown } | null)?.id;
  return z.safeParse(statusId, id).success ? (id as string) : undefined;
};

function startMastodonStream(options: MastodonStreamOptions): MastodonConsumer {
  const {
    pool,
    instance,
    flushEvents = 200,
    flushMs = 1_000,
    refreshMs = 60_000,
    backoff = { baseMs: 1_000, maxMs: 60_000 },
    idleMs = 60_000,
    heardEveryMs = 60_000,
    downAfterMs = 2 * 60_000,
    random = Math.random,
    log = console.log,
  } = options;
  const name = mastodonStreamName(instance);
  const host = URL.parse(instance)?.host ?? instance;
  const stats = { connected: false, connections: 0, events: 0, matched: 0, refused: 0 };
  let matcher: QueryMatcher = compileMatcher([]);
  let pending = emptyBatch(instance);
  let flushing: Promise<void> = Promise.resolve();
  let flushTimer: NodeJS.Timeout | undefined;
  let lastCommit = 0;
  let stopped = false;
  let closeConnection: (() => void) | undefined;
  /** When the stream last committed before this start, while it has not opened yet. */
  let unheardSince: Date | undefined;
  const stopping = new AbortController();

  const refresh = async () => {
    try {
      const tracked: TrackedQuery[] = [];
      for (const query of await options.queries()) {
        const parsed = parseWithLists(query.text, query.lists ?? new Map());
        if (parsed.ok) tracked.push({ id: query.id, ast: parsed.ast });
        else log(`Mastodon stream (${host}): query ${query.id} is not valid and is left out.`);
      }
      matcher = compileMatcher(tracked);
    } catch (error) {
      log(`Mastodon stream (${host}): the tracked queries could not be read (${(error as Error).message}).`);
    }
  };

  const flush = () => {
    clearTimeout(flushTimer);
    flushTimer = undefined;
    const batch = pending;
    pending = emptyBatch(instance);
    // The batch's position is when it was read: a Mastodon stream has no cursor to resume from.
    batch.cursorUs = Date.now() * 1_000;
    lastCommit = Date.now();
    flushing = flushing.then(async () => {
      try {
        const result = await commitBatch(pool, name, batch, options.record);
        stats.refused += result.refused.length - batch.refused.length;
      } catch (error) {
        // Not read again (nothing to read it from): the posts of this batch are a gap like a drop's.
        log(`Mastodon stream (${host}): a batch could not be committed (${(error as Error).message}).`);
        closeConnection?.();
      }
    });
    return flushing;
  };

  const refuse = (ref: string, reason: string, raw: string) => {
    stats.refused += 1;
    pending.refused.push({ ref, reason, raw: raw.slice(0, 10_000) });
    log(`Mastodon stream (${host}): refused an event (${ref}): ${reason.slice(0, 300)}`);
  };

  const handle = ({ name: kind, data }: SseEvent) => {
    if (kind !== 'update' && kind !== 'status.update' && kind !== 'delete') return;
    stats.events += 1;
    pending.events += 1;
    if (kind === 'delete') {
      // Taken out of the corpus if a stream stored it (mastodon_status_ids); a status never stored: nothing to do.
      const id = z.safeParse(statusId, data.trim());
      if (id.success) pending.gone.push(id.data);
      else refuse('delete event', `the payload ${id.error.issues[0]?.message ?? 'is not a status id'}`, data);
      return;
    }
    let status: unknown;
    try {
      status = JSON.parse(data);
    } catch {
      return refuse(`${kind} event`, 'the event is not JSON', data);
    }
    const { rows, refused } = prepareItems([mapStatus(status, new URL(instance))]);
    for (const refusal of refused) refuse(refusal.ref, refusal.reason, data);
    const row = rows[0];
    const queries = row ? matcher.match(matchPostOf(row)) : [];
    if (row && queries.length > 0) {
      stats.matched += 1;
      pending.rows.push(row);
      pending.refs.push(row.externalId);
      pending.local!.ids.push(localId(status));
      pending.hits.push({ queries, postedAt: row.postedAt });
    }
  };

  const onEvent = (event: SseEvent) => {
    if (stopped) return;
    handle(event);
    if (pending.events >= flushEvents) void flush();
    else if (pending.events > 0) flushTimer ??= setTimeout(() => void flush(), flushMs);
  };
  /** A heartbeat: the stream is heard, said in its row now and then when nothing else commits. */
  const onHeartbeat = () => {
    if (!stopped && pending.events === 0 && Date.now() - lastCommit >= heardEveryMs) void flush();
  };

  /** One connection, until it ends: whether it opened, and why it ended. */
  const connectOnce = () =>
    new Promise<{ opened: boolean; why: string }>((done) => {
      const url = new URL('/api/v1/streaming/public', instance);
      const agents = agentsFor({ allowPrivateHosts: options.allowPrivateHosts ?? false });
      const secure = url.protocol === 'https:';
      let opened = false;
      let ended = false;
      const end = (why: string) => {
        if (ended) return;
        ended = true;
        closeConnection = undefined;
        stats.connected = false;
        req.destroy();
        done({ opened, why });
      };
      const req = (secure ? httpsRequest : httpRequest)(url, {
        agent: secure ? agents.https : agents.http,
        headers: { accept: 'text/event-stream', 'user-agent': 'MurmurCollector/1.0' },
      });
      closeConnection = () => end('closed here');
      req.setTimeout(idleMs, () => end(`silent for ${Math.round(idleMs / 1_000)} s`));
      req.on('error', (error) => end(error.message));
      req.on('response', (response: IncomingMessage) => {
        if (response.statusCode !== 200) {
          response.resume();
          return end(`HTTP ${response.statusCode}`);
        }
        opened = true;
        stats.connected = true;
        stats.connections += 1;
        const at = new Date();
        const down =
          unheardSince && at.getTime() - unheardSince.getTime() > downAfterMs ? unheardSince : undefined;
        unheardSince = undefined;
        void options.onOpen?.(at, down).catch((error: unknown) => {
          log(`Mastodon stream (${host}): its gap could not be closed (${(error as Error).message}).`);
        });
        const read = sseReader(onEvent, onHeartbeat);
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => read(chunk));
        response.on('end', () => end('the instance ended the stream'));
        response.on('error', (error) => end(error.message));
      });
      req.end();
    });

  const loop = async () => {
    let attempt = 0;
    while (!stopped) {
      const { opened, why } = await connectOnce();
      // What was read is committed; an empty batch would mark the stream heard at the moment it dropped.
      if (pending.events > 0) await flush();
      else await flushing;
      if (stopped) return;
      if (opened) attempt = 0;
      // What the instance posts from now until the stream is open again is not collected: a gap.
      await options.onDrop?.(new Date(), why).catch((error: unknown) => {
        log(`Mastodon stream (${host}): its gap could not be recorded (${(error as Error).message}).`);
      });
      const ceiling = Math.min(backoff.maxMs, backoff.baseMs * 2 ** attempt);
      const wait = Math.round(ceiling / 2 + (random() * ceiling) / 2);
      attempt = Math.min(attempt + 1, 30);
      log(`Mastodon stream: ${host} closed (${why}); connecting again in ${wait} ms.`);
      await sleep(wait, undefined, { signal: stopping.signal }).catch(() => {});
    }
  };

  let refreshTimer: NodeJS.Timeout | undefined;
  const lastHeard = pool
    .query<{ at: Date }>('SELECT updated_at AS at FROM stream_cursors WHERE name = $1', [name])
    .then(({ rows }) => (unheardSince = rows[0]?.at))
    .catch(() => undefined);
  const running = Promise.all([refresh(), lastHeard]).then(() => {
    if (stopped) return;
    refreshTimer = setInterval(() => void refresh(), refreshMs);
    refreshTimer.unref();
    log(`Mastodon stream: ${host}'s public timeline, from now.`);
    return loop();
  });

  return {
    status: () => ({ ...stats }),
    refresh,
    async stop() {
      stopped = true;
      stopping.abort();
      clearInterval(refreshTimer);
      closeConnection?.();
      await running;
      if (pending.events > 0) await flush();
      await flushing;
    },
  };
}

export interface MastodonStreamsOptions extends Omit<
  MastodonStreamOptions,
  'instance' | 'queries' | 'record' | 'onDrop' | 'onOpen'
> {
  /** The instances the tracked queries are tracked on now (their origins). */
  instances(): Promise<string[]>;
  /** What each instance's stream is given (server/tracking/streams.ts). */
  forInstance(instance: string): Pick<MastodonStreamOptions, 'queries' | 'record' | 'onDrop' | 'onOpen'>;
}

/**
 * A stream for each instance a query is tracked on, started and stopped as tracking changes (read again at `refresh`,
 * and every `refreshMs`).
 */
export function startMastodonStreams(options: MastodonStreamsOptions): MastodonConsumer {
  const { instances, forInstance, refreshMs = 60_000, log = console.log, ...rest } = options;
  const running = new Map<string, MastodonConsumer>();
  let stopped = false;
  let reading: Promise<void> = Promise.resolve();
  const refresh = () =>
    (reading = reading.then(async () => {
      if (stopped) return;
      let wanted: string[];
      try {
        wanted = await instances();
      } catch (error) {
        return log(
          `Mastodon streams: the tracked instances could not be read (${(error as Error).message}).`,
        );
      }
      for (const [instance, consumer] of running)
        if (!wanted.includes(instance)) {
          running.delete(instance);
          await consumer.stop();
        }
      for (const instance of wanted) {
        const consumer = running.get(instance);
        if (consumer) await consumer.refresh();
        else
          running.set(
            instance,
            startMastodonStream({ ...rest, refreshMs, log, instance, ...forInstance(instance) }),
          );
      }
    }));
  const timer = setInterval(() => void refresh(), refreshMs);
  timer.unref();
  void refresh();
  return {
    status: () => {
      const all = [...running.values()].map((consumer) => consumer.status());
      return {
        connected: all.length > 0 && all.every((s) => s.connected),
        connections: all.reduce((n, s) => n + s.connections, 0),
        events: all.reduce((n, s) => n + s.events, 0),
        matched: all.reduce((n, s) => n + s.matched, 0),
        refused: all.reduce((n, s) => n + s.refused, 0),
      };
    },
    refresh,
    async stop() {
      clearInterval(timer);
      await reading;
      stopped = true;
      await Promise.all([...running.values()].map((consumer) => consumer.stop()));
      running.clear();
    },
  };
}
