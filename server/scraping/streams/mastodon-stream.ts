// Mastodon's streaming API for the tracked queries (SCRAPING_MASTODON_STREAM=true): for each instance a tracked query
// is tracked on, its public timeline as server-sent events (GET /api/v1/streaming/public: `event: update` with a Status
// as JSON; `:` comments are the instance's heartbeat, about every 15 s), and beside it the hashtag timeline
// (GET /api/v1/streaming/hashtag?tag=x) of each hashtag the queries tracked there name (mastodon-tags.ts, at most
// `maxTags`), so that an instance whose public stream is closed (it wants sign-in, or its admins keep the live feeds
// to members) or too broad still gives the tracked hashtags. Server-sent events take one stream a connection; the
// multiplexed WebSocket (/api/v1/streaming, subscribe messages) needs a user's token since Mastodon 4.2, which the
// installation does not hold: so one connection for the public timeline and one a hashtag. The hashtags are derived
// again whenever the queries are read again (a tracking change, every `refreshMs`). A status both streams bring (the
// public timeline holds every public status the instance knows) is read once: events are de-duplicated by status id.
//
// Every status passes one matcher over the queries tracked on that instance (as the Bluesky stream does: jetstream.ts)
// and only those that match one are stored, through the collection runner's import path, in batches committed with
// their coverage in one transaction (stream-store.ts; the stream's row in stream_cursors says when it last committed,
// a heartbeat included).
//
// A server-sent events stream cannot resume: what an instance posts while its public stream is down is not collected.
// So while it is down (dropped, silent for `idleMs`, refused), each query tracked on the instance is in a gap from the
// drop (`onGap`) unless the hashtag streams open bring all it can match (its cover is hashtags, each streamed); the gap
// ends (`onCovered`) when the public stream, or those hashtag streams, are open again. Each stream reconnects after an
// exponential backoff with jitter. A status read twice is stored once (the corpus is keyed by its URI); an unreadable
// event is refused with its reason — counted, logged — and the stream goes on. `status.update` (an edit) is read as an
// update. `delete` carries the instance's own id, not the URI the corpus keys by: each stored status's id is kept
// beside it (mastodon_status_ids, in the batch's transaction), so a delete takes the post out of the corpus if a stream
// stored it and is a no-op otherwise.
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import * as z from 'zod/mini';
import { parseWithLists } from '@server/query/index';
import { compileMatcher, type QueryMatcher, type TrackedQuery } from '@server/query/match/index';
import { matchPostOf } from '@server/social/corpus/import/match-post';
import { mapStatus } from '../connectors/mastodon';
import { prepareItems } from '../prepare';
import type { StreamQuery } from './jetstream';
import { eventKey, localId, readLately, statusId } from './mastodon-events';
import { queryTags, type QueryTags } from './mastodon-tags';
import { connectSse, type SseConnection, type SseEvent } from './sse';
import { commitBatch, type StreamBatch, type StreamRecord } from './stream-store';

export interface MastodonStreamOptions {
  pool: pg.Pool;
  /** The instance's origin: https://mastodon.social. */
  instance: string;
  /** The queries tracked on the instance. */
  queries(): Promise<StreamQuery[]>;
  record?: StreamRecord;
  /**
   * These queries are not (all) collected from `since`, when the public stream dropped (`why`): the hashtag streams
   * open (`still`) do not bring all they match. Called again for every query in a gap when `still` changes.
   */
  onGap?(queryIds: string[], since: Date, why: string, still: string[]): Promise<void>;
  /** These queries (every one on the instance when null: the public stream is open) are collected again from `at`. */
  onCovered?(queryIds: string[] | null, at: Date): Promise<void>;
  /**
   * At the first opening of one of its streams, when the instance's row was last committed over `downAfterMs` before
   * (no process streamed it meanwhile): what it posted from `since` to `until` is not collected.
   */
  onUnheard?(since: Date, until: Date): Promise<void>;
  /** How long unheard before a start counts as a gap (a heartbeat commits at most every `heardEveryMs`). */
  downAfterMs?: number;
  /** Hashtag streams at most, an instance (the first hashtags in order; the others are said in the log). */
  maxTags?: number;
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

/** One of the instance's streams: the public timeline (no tag) or a hashtag's. */
interface Channel {
  tag?: string;
  open: boolean;
  stopped: boolean;
  connection?: SseConnection;
  running: Promise<void>;
  wake: AbortController;
}

interface Tracked {
  id: string;
  tags: QueryTags;
}

export function startMastodonStream(options: MastodonStreamOptions): MastodonConsumer {
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
    maxTags = 20,
    random = Math.random,
    log = console.log,
  } = options;
  const name = mastodonStreamName(instance);
  const host = URL.parse(instance)?.host ?? instance;
  const stats = { connections: 0, events: 0, matched: 0, refused: 0 };
  let matcher: QueryMatcher = compileMatcher([]);
  let tracked: Tracked[] = [];
  let pending = emptyBatch(instance);
  let flushing: Promise<void> = Promise.resolve();
  let flushTimer: NodeJS.Timeout | undefined;
  let lastCommit = 0;
  let stopped = false;
  /** When the stream last committed before this start, until one of its streams opens. */
  let unheardSince: Date | undefined;
  let firstOpen = true;
  /** Whether an event was read lately, from another of the instance's streams. */
  const readBefore = readLately();
  const channels = new Map<string, Channel>();
  /** Since when, and why, the public stream is down; undefined while it is open or has not ended yet. */
  let publicDown: { since: Date; why: string } | undefined;
  let gapped = new Set<string>();
  let still = '';
  let assessing: Promise<void> = Promise.resolve();
  let saidLeftOut = '';

  /** Compares what is collected with what was: queries that lose it go in a gap, those that get it back leave it. */
  const reassess = (at: Date, publicOpened = false) =>
    (assessing = assessing.then(async () => {
      const open = [...channels.values()].filter((c) => c.tag !== undefined && c.open).map((c) => c.tag!);
      const down = publicDown;
      const missing = new Set(
        down
          ? tracked
              .filter((query) => !query.tags.enough?.every((tag) => open.includes(tag)))
              .map((query) => query.id)
          : [],
      );
      const now = open.join(' ');
      const again = [...missing].filter((id) => now !== still || !gapped.has(id));
      const back = [...gapped].filter((id) => !missing.has(id));
      gapped = missing;
      still = now;
      const said = (what: string) => (error: unknown) =>
        log(`Mastodon stream (${host}): ${what} (${(error as Error).message}).`);
      if (down && again.length > 0)
        await options.onGap?.(again, down.since, down.why, open).catch(said('its gap could not be recorded'));
      if (publicOpened || back.length > 0)
        await options.onCovered?.(publicOpened ? null : back, at).catch(said('its gap could not be closed'));
    }));

  const refresh = async () => {
    await lastHeard;
    try {
      const given: TrackedQuery[] = [];
      const next: Tracked[] = [];
      for (const query of await options.queries()) {
        const parsed = parseWithLists(query.text, query.lists ?? new Map());
        if (parsed.ok) {
          given.push({ id: query.id, ast: parsed.ast });
          next.push({ id: query.id, tags: queryTags(parsed.ast) });
        } else log(`Mastodon stream (${host}): query ${query.id} is not valid and is left out.`);
      }
      matcher = compileMatcher(given);
      tracked = next;
      const tags = [...new Set(next.flatMap((query) => query.tags.tags))].sort();
      const leftOut = tags.slice(maxTags).map((tag) => `#${tag}`);
      if (leftOut.join() !== saidLeftOut && leftOut.length > 0)
        log(
          `Mastodon stream (${host}): at most ${maxTags} hashtag streams; not streamed: ${leftOut.join(' ')}.`,
        );
      saidLeftOut = leftOut.join();
      if (!stopped) setChannels(tags.slice(0, maxTags));
      await reassess(new Date());
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
        for (const channel of channels.values()) channel.connection?.close();
      }
    });
    return flushing;
  };

  const refuse = (ref: string, reason: string, raw: string) => {
    stats.refused += 1;
    pending.refused.push({ ref, reason, raw: raw.slice(0, 10_000) });
    log(`Mastodon stream (${host}): refused an event (${ref}): ${reason.slice(0, 300)}`);
  };

  /** Whether the event was taken (read once: not another stream's copy). */
  const handle = ({ name: kind, data }: SseEvent): boolean => {
    if (kind !== 'update' && kind !== 'status.update' && kind !== 'delete') return false;
    if (kind === 'delete') {
      // Taken out of the corpus if a stream stored it (mastodon_status_ids); a status never stored: nothing to do.
      const id = z.safeParse(statusId, data.trim());
      if (id.success && readBefore(eventKey(kind, id.data))) return false;
      stats.events += 1;
      pending.events += 1;
      if (id.success) pending.gone.push(id.data);
      else refuse('delete event', `the payload ${id.error.issues[0]?.message ?? 'is not a status id'}`, data);
      return true;
    }
    let status: unknown;
    try {
      status = JSON.parse(data);
    } catch {
      stats.events += 1;
      pending.events += 1;
      refuse(`${kind} event`, 'the event is not JSON', data);
      return true;
    }
    const id = localId(status);
    if (id && readBefore(eventKey(kind, id, status))) return false;
    stats.events += 1;
    pending.events += 1;
    const { rows, refused } = prepareItems([mapStatus(status, new URL(instance))]);
    for (const refusal of refused) refuse(refusal.ref, refusal.reason, data);
    const row = rows[0];
    const queries = row ? matcher.match(matchPostOf(row)) : [];
    if (row && queries.length > 0) {
      stats.matched += 1;
      pending.rows.push(row);
      pending.refs.push(row.externalId);
      pending.local!.ids.push(id);
      pending.hits.push({ queries, postedAt: row.postedAt });
    }
    return true;
  };

  const onEvent = (event: SseEvent) => {
    if (stopped || !handle(event)) return;
    if (pending.events >= flushEvents) void flush();
    else if (pending.events > 0) flushTimer ??= setTimeout(() => void flush(), flushMs);
  };
  /** A heartbeat: the stream is heard, said in its row now and then when nothing else commits. */
  const onHeartbeat = () => {
    if (!stopped && pending.events === 0 && Date.now() - lastCommit >= heardEveryMs) void flush();
  };

  const opened = (channel: Channel) => {
    channel.open = true;
    stats.connections += 1;
    const at = new Date();
    if (firstOpen) {
      firstOpen = false;
      const since = unheardSince;
      if (since && at.getTime() - since.getTime() > downAfterMs)
        void options.onUnheard?.(since, at).catch((error: unknown) => {
          log(`Mastodon stream (${host}): its downtime could not be kept (${(error as Error).message}).`);
        });
    }
    if (channel.tag === undefined) publicDown = undefined;
    void reassess(at, channel.tag === undefined);
  };

  /** Keeps one of the instance's streams open until it is stopped, backing off after each drop. */
  const startChannel = (tag?: string): Channel => {
    const url = new URL(
      tag === undefined ? '/api/v1/streaming/public' : '/api/v1/streaming/hashtag',
      instance,
    );
    if (tag !== undefined) url.searchParams.set('tag', tag);
    const label = tag === undefined ? host : `${host} #${tag}`;
    const channel: Channel = {
      tag,
      open: false,
      stopped: false,
      running: Promise.resolve(),
      wake: new AbortController(),
    };
    channel.running = (async () => {
      let attempt = 0;
      while (!channel.stopped && !stopped) {
        const connection = connectSse(url, {
          allowPrivateHosts: options.allowPrivateHosts ?? false,
          idleMs,
          onOpen: () => opened(channel),
          onEvent,
          onComment: onHeartbeat,
        });
        channel.connection = connection;
        const { opened: wasOpen, why } = await connection.ended;
        channel.connection = undefined;
        channel.open = false;
        // What was read is committed; an empty batch would mark the stream heard at the moment it dropped.
        if (pending.events > 0) await flush();
        else await flushing;
        if (channel.stopped || stopped) return;
        if (wasOpen) attempt = 0;
        // What the instance posts from now until the stream is open again is not collected: a gap.
        if (tag === undefined) publicDown ??= { since: new Date(), why };
        await reassess(new Date());
        const ceiling = Math.min(backoff.maxMs, backoff.baseMs * 2 ** attempt);
        const wait = Math.round(ceiling / 2 + (random() * ceiling) / 2);
        attempt = Math.min(attempt + 1, 30);
        log(`Mastodon stream: ${label} closed (${why}); connecting again in ${wait} ms.`);
        await sleep(wait, undefined, { signal: channel.wake.signal }).catch(() => {});
      }
    })();
    return channel;
  };

  const stopChannel = async (channel: Channel) => {
    channel.stopped = true;
    channel.wake.abort();
    channel.connection?.close();
    await channel.running;
  };

  /** The public stream and a stream for each of `tags`, no more. */
  const setChannels = (tags: string[]) => {
    if (!channels.has('')) channels.set('', startChannel());
    const gone = [...channels.keys()].filter((key) => key !== '' && !tags.includes(key));
    const added = tags.filter((tag) => !channels.has(tag));
    // Said once running (the start says them all).
    if (refreshTimer && gone.length + added.length > 0)
      log(
        `Mastodon stream: ${host}'s hashtag streams now ${tags.map((tag) => `#${tag}`).join(' ') || 'none'}.`,
      );
    for (const [key, channel] of channels)
      if (key !== '' && !tags.includes(key)) {
        channels.delete(key);
        void stopChannel(channel);
      }
    for (const tag of tags) if (!channels.has(tag)) channels.set(tag, startChannel(tag));
  };

  let refreshTimer: NodeJS.Timeout | undefined;
  const lastHeard = pool
    .query<{ at: Date }>('SELECT updated_at AS at FROM stream_cursors WHERE name = $1', [name])
    .then(({ rows }) => (unheardSince = rows[0]?.at))
    .catch(() => undefined);
  const started = lastHeard.then(async () => {
    if (stopped) return;
    await refresh();
    refreshTimer = setInterval(() => void refresh(), refreshMs);
    refreshTimer.unref();
    const tags = [...channels.keys()].filter((key) => key !== '').map((tag) => `#${tag}`);
    log(
      `Mastodon stream: ${host}'s public timeline${tags.length > 0 ? ` and ${tags.join(' ')}` : ''}, from now.`,
    );
  });

  return {
    status: () => ({ ...stats, connected: channels.get('')?.open ?? false }),
    refresh,
    async stop() {
      stopped = true;
      clearInterval(refreshTimer);
      await started;
      await Promise.all([...channels.values()].map(stopChannel));
      await assessing;
      if (pending.events > 0) await flush();
      await flushing;
    },
  };
}
