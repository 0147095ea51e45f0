// The sources a saved query can be tracked on: those the installation has set up in the internal scraping area.
// Bluesky and Hacker News need nothing (their public APIs); Reddit, YouTube and X need a stored credential of their
// kind; Mastodon instances are those the collection jobs follow; feeds, the feeds they read. Workspaces see each
// source's name, how it collects and how far back it reaches — never a credential, its name or its id.
import { sql } from 'drizzle-orm';
import type { Executor } from '@server/workspaces/access';
import type { TrackingSource } from '@contract/tracking';
import { mastodonStreamName } from '@server/scraping/streams/mastodon-stream';

export const MASTODON = 'mastodon:';

/** How far back each source's search reaches, said on the source list and the coverage panel. */
const FIXED: Record<string, Omit<TrackingSource, 'key'>> = {
  bluesky: {
    label: 'Bluesky',
    mode: 'stream',
    reaches_back:
      'Every new post as it is posted (Jetstream), from when tracking starts; earlier posts as far back as Bluesky ' +
      'post search pages for the words of the query.',
  },
  hackernews: {
    label: 'Hacker News',
    mode: 'poll',
    reaches_back: 'Stories and comments back to 2007 through Algolia search, newest first.',
  },
  reddit: {
    label: 'Reddit',
    mode: 'poll',
    reaches_back: 'About the newest 1,000 results of each search (Reddit search goes no further).',
  },
  youtube: {
    label: 'YouTube',
    mode: 'poll',
    reaches_back:
      'Videos (title and description) as far back as YouTube search pages, while the daily quota lasts (100 units ' +
      'a search page); searched hourly.',
  },
  x: {
    label: 'X',
    mode: 'poll',
    reaches_back: 'The last 7 days only (X recent search); searched every 15 minutes.',
  },
  feeds: {
    label: 'RSS and Atom feeds',
    mode: 'poll',
    reaches_back:
      'The items each followed feed still lists (often its latest 10 to 50), and its older pages where it links ' +
      'them; read every 15 minutes.',
  },
};

/**
 * The sources this build polls for tracked queries (poll.ts, poll-sources.ts; Bluesky and Mastodon are only backfilled
 * there, their streams collecting). A tracked source outside it and streamOf shows the gap not_collected rather than
 * an empty coverage that looks quiet.
 */
export const COLLECTED_SOURCES: ReadonlySet<string> = new Set([
  'hackernews',
  'reddit',
  'youtube',
  'x',
  'feeds',
]);

/**
 * The sources collected by a stream (server/scraping/streams), by the stream's name in stream_cursors: collected while
 * its consumer commits, a gap when it has not committed for SILENT_AFTER_MS (stopped, or the network unreachable).
 */
const STREAMS: Readonly<Record<string, string>> = { bluesky: 'bluesky-jetstream' };

/** The stream that collects `source` (its row in stream_cursors), or undefined when none does. */
export const streamOf = (source: string): string | undefined =>
  STREAMS[source] ??
  (source.startsWith(MASTODON) ? mastodonStreamName(source.slice(MASTODON.length)) : undefined);
export const SILENT_AFTER_MS = 10 * 60_000;

/** The source a key names, or undefined when the key is no source's. */
export function describeSource(key: string): TrackingSource | undefined {
  const fixed = FIXED[key];
  if (fixed) return { key, ...fixed };
  if (!key.startsWith(MASTODON)) return undefined;
  const host = URL.parse(key.slice(MASTODON.length))?.host;
  if (!host) return undefined;
  return {
    key,
    label: `Mastodon (${host})`,
    mode: 'stream',
    reaches_back:
      `New public posts as ${host} streams them (its public timeline, and the timelines of the query's hashtags), ` +
      `from when tracking starts; earlier posts of the query's hashtags as far back as ${host}'s tag timelines go.`,
  };
}

/** The sources set up here, in the order shown. */
export async function availableSources(db: Executor): Promise<TrackingSource[]> {
  const { rows } = await db.execute<{ key: string }>(
    sql`SELECT 'bluesky' AS key
     UNION ALL SELECT 'hackernews'
     UNION ALL SELECT kind::text FROM (SELECT DISTINCT kind FROM source_credentials) c
     UNION ALL SELECT 'feeds' WHERE EXISTS (SELECT 1 FROM scrape_jobs WHERE source = 'feed' AND state <> 'cancelled')
     UNION ALL SELECT DISTINCT ${MASTODON} || rtrim(params->>'instance', '/') FROM scrape_jobs
       WHERE source IN ('mastodon_hashtag', 'mastodon_account') AND state <> 'cancelled'`,
  );
  const order = Object.keys(FIXED);
  const rank = (key: string) => (order.includes(key) ? order.indexOf(key) : order.length);
  return rows
    .map((row) => describeSource(row.key))
    .filter((source): source is TrackingSource => source !== undefined)
    .sort((a, b) => rank(a.key) - rank(b.key) || a.key.localeCompare(b.key));
}
