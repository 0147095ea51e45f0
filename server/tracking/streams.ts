// The streams of the tracked queries as every process that runs collection starts them (server/main.ts,
// server/worker.ts, and the tests' servers): each stream consumer (server/scraping/streams) given the queries tracked on
// its source whose plan may still collect, their coverage recorded in each batch's transaction (coverage.ts), and a
// change to them heard at once.
import type { Catalogue } from '@server/billing/plans';
import type { Database } from '@server/db/database';
import { TRACKING_CHANGED } from '@server/saved-queries/store';
import {
  startBlueskyStream,
  startLockedStream,
  type BlueskyStreamOptions,
} from '@server/scraping/streams/bluesky-stream';
import { startMastodonStreams, type MastodonStreamsOptions } from '@server/scraping/streams/mastodon-streams';
import { closeGaps, recordGap, streamTracking, trackedQueriesFor } from './coverage';
import { describeSource, MASTODON } from './sources';

type Streaming = Pick<Database, 'db' | 'pool'>;

const hhmm = (at: Date) => at.toISOString().slice(11, 16);

/**
 * Bluesky's Jetstream (JETSTREAM_URL) for the queries tracked on Bluesky: one process per database streams. A stop
 * longer than Jetstream keeps (it did not replay from the cursor) is kept as an ended gap of each query tracked then.
 */
export function startTrackedBlueskyStream(
  database: Streaming,
  catalogue: Catalogue,
  url: string,
  options: Pick<BlueskyStreamOptions, 'standbyMs' | 'log' | 'handles'> = {},
): { stop(): Promise<void> } {
  const tracking = streamTracking('bluesky', database.db, catalogue);
  return startBlueskyStream({
    pool: database.pool,
    url,
    queries: () => tracking.queries(database.pool),
    record: tracking.record,
    changes: tracking.changes,
    onSkipped: (since, until) =>
      keepEndedGap(
        database,
        'bluesky',
        `Jetstream resumed at ${hhmm(until)} UTC, not from ${hhmm(since)} UTC where the Bluesky stream had stopped: ` +
          'what Bluesky posted between is not collected (Jetstream no longer kept it).',
        since,
        until,
      ),
    ...options,
  });
}

/** The Mastodon instances queries are tracked on now (their origins), from the tracking that is on. */
async function trackedInstances(database: Streaming): Promise<string[]> {
  const { rows } = await database.pool.query<{ source: string }>(
    `SELECT DISTINCT s AS source FROM saved_query_tracking t, unnest(t.sources) s
     WHERE t.enabled AND s LIKE 'mastodon:%' ORDER BY 1`,
  );
  return rows.map((row) => row.source.slice(MASTODON.length));
}

/**
 * A span a stream did not read (no process ran it, or it resumed later than its cursor): a gap that has already
 * ended, kept for each query tracked on the source (from when it was tracked, if later), once.
 */
async function keepEndedGap(database: Streaming, source: string, message: string, since: Date, until: Date) {
  await database.pool.query(
    `INSERT INTO tracking_gaps (saved_query_id, source, reason, message, since, ended_at)
     SELECT c.saved_query_id, c.source, 'unreachable', $3, greatest(c.tracking_since, $4), $5
     FROM tracking_coverage c JOIN saved_query_tracking t ON t.saved_query_id = c.saved_query_id AND t.enabled
     WHERE c.source = $1 AND c.saved_query_id = ANY($2::uuid[]) AND greatest(c.tracking_since, $4) < $5
       AND NOT EXISTS (SELECT 1 FROM tracking_gaps g WHERE g.saved_query_id = c.saved_query_id AND g.source = c.source
         AND g.since = greatest(c.tracking_since, $4) AND g.ended_at = $5)`,
    [
      source,
      (await trackedQueriesFor(database.pool, source)).map((query) => query.savedQueryId),
      message,
      since,
      until,
    ],
  );
}

/**
 * Mastodon's streaming API (SCRAPING_MASTODON_STREAM) for the queries tracked on each instance: one process per
 * database streams (an advisory lock), one consumer per instance (its public timeline and the tracked hashtags'). While
 * the public stream is down, each query the hashtag streams do not wholly bring is in a gap (reason unreachable, from
 * the drop), closed when the public stream (or those hashtag streams) are open again: a Mastodon stream cannot resume,
 * so that span is what was not collected. A post does not end it (keepGap): the gap follows the streams' state.
 */
export function startTrackedMastodonStreams(
  database: Streaming,
  catalogue: Catalogue,
  options: Omit<MastodonStreamsOptions, 'pool' | 'instances' | 'forInstance'> & { standbyMs?: number } = {},
): { stop(): Promise<void> } {
  const { standbyMs, log, ...rest } = options;
  const forInstance: MastodonStreamsOptions['forInstance'] = (instance) => {
    const source = `${MASTODON}${instance}`;
    const label = describeSource(source)?.label ?? source;
    const tracking = streamTracking(source, database.db, catalogue, { keepGap: true });
    return {
      queries: () => tracking.queries(database.pool),
      record: tracking.record,
      onGap: async (queryIds, since, _why, still) => {
        const gap = {
          reason: 'unreachable' as const,
          message:
            still.length === 0
              ? `The ${label} stream dropped at ${hhmm(since)} UTC; what it posts until the stream ` +
                'is back is not collected (a Mastodon stream cannot resume).'
              : `The ${label} public stream dropped at ${hhmm(since)} UTC; until it is back only posts tagged ` +
                `${still.map((tag) => `#${tag}`).join(', ')} are collected (a Mastodon stream cannot resume).`,
          until: null,
        };
        for (const id of queryIds) await recordGap(database.pool, id, source, gap, since);
      },
      onCovered: (queryIds, at) => closeGaps(database.pool, source, 'unreachable', at, queryIds),
      onUnheard: (since, until) =>
        keepEndedGap(
          database,
          source,
          `The ${label} stream was not running from ${hhmm(since)} to ${hhmm(until)} UTC; what it posted then is ` +
            'not collected (a Mastodon stream cannot resume).',
          since,
          until,
        ),
    };
  };
  return startLockedStream({
    pool: database.pool,
    lock: 'murmur:stream:mastodon',
    label: 'Mastodon streams',
    changes: TRACKING_CHANGED,
    ...(standbyMs !== undefined && { standbyMs }),
    ...(log && { log }),
    start: async (said) =>
      startMastodonStreams({
        ...rest,
        log: said,
        pool: database.pool,
        instances: () => trackedInstances(database),
        forInstance,
      }),
  });
}
