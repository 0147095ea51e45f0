// The collection settings of the server's configuration (server/config.ts spreads them into its schema): the workers
// that run collection jobs, the sources' endpoints, and the streams of the tracked queries (server/scraping/streams).
import * as z from 'zod/mini';
import { bool, int, optionalBool } from './config-fields';

export const scrapingSettings = {
  /**
   * Collection jobs (docs/scraping.md). `in-process`: the web server runs the workers; `off`: it only queues
   * runs, and `npm run worker` processes (any number, on the same database) run them.
   */
  SCRAPING_WORKER: z._default(z.enum(['in-process', 'off']), 'in-process'),
  /** Runs one worker process executes at once. */
  SCRAPING_CONCURRENCY: int(2, 1, 50),
  /** Per request to a source, body included. */
  SCRAPING_HTTP_TIMEOUT_SECONDS: int(15, 1, 300),
  /** Attempts after the first when a source fails (timeouts, 5xx), with exponential backoff from the delay. */
  SCRAPING_RETRY_LIMIT: int(5, 0, 50),
  SCRAPING_RETRY_DELAY_SECONDS: int(10, 1, 3600),
  /**
   * How often a worker tells the queue it is alive during a run; a run silent for this long (its process died) is
   * handed to another worker, which resumes it from its cursor.
   */
  SCRAPING_HEARTBEAT_SECONDS: int(30, 10, 600),
  /** A 429's Retry-After up to this long is waited out in the worker; a longer one puts the run back on the queue. */
  SCRAPING_MAX_INLINE_WAIT_SECONDS: int(60, 0, 3600),
  /**
   * Whether staff-entered URLs may reach loopback, private and link-local addresses. Unset: only with APP_ENV local
   * (a source on the developer's machine); elsewhere collection reaches public hosts only (SSRF guard).
   */
  SCRAPING_ALLOW_PRIVATE_HOSTS: optionalBool,
  /** The Bluesky AppView that answers app.bsky.feed.searchPosts without sign-in. */
  SCRAPING_BLUESKY_URL: z._default(z.url({ protocol: /^https?$/ }), 'https://public.api.bsky.app'),
  /**
   * Bluesky's firehose (server/scraping/streams/jetstream.ts): with `true`, the processes that run collection (the
   * server with SCRAPING_WORKER=in-process, `npm run worker`) stream every post from JETSTREAM_URL and keep those a
   * tracked query matches (one process per database streams; the others stand by).
   * Off by default: nothing reaches the internet unless asked.
   */
  SCRAPING_BLUESKY_STREAM: bool(false),
  /** The Jetstream instance's subscribe endpoint (ws:// or wss://). */
  JETSTREAM_URL: z._default(
    z.url({ protocol: /^wss?$/, error: 'Must be a ws:// or wss:// URL' }),
    'wss://jetstream2.us-east.bsky.network/subscribe',
  ),
  /**
   * Mastodon's streaming API (server/scraping/streams/mastodon-stream.ts): with `true`, the processes that run
   * collection stream the public timeline (server-sent events) of every instance a query is tracked on, and keep the
   * statuses a tracked query matches (one process per database streams). A drop is a gap in the queries' coverage:
   * such a stream cannot resume. Off by default: nothing reaches the internet unless asked.
   */
  SCRAPING_MASTODON_STREAM: bool(false),
  /** Reddit's OAuth API and the origin of its token endpoint (/api/v1/access_token). */
  SCRAPING_REDDIT_URL: z._default(z.url({ protocol: /^https?$/ }), 'https://oauth.reddit.com'),
  SCRAPING_REDDIT_AUTH_URL: z._default(z.url({ protocol: /^https?$/ }), 'https://www.reddit.com'),
  /** YouTube Data API v3. */
  SCRAPING_YOUTUBE_URL: z._default(z.url({ protocol: /^https?$/ }), 'https://www.googleapis.com/youtube/v3'),
  /** Hacker News search (Algolia). */
  SCRAPING_HACKERNEWS_URL: z._default(z.url({ protocol: /^https?$/ }), 'https://hn.algolia.com/api/v1'),
  /** X API v2. */
  SCRAPING_X_URL: z._default(z.url({ protocol: /^https?$/ }), 'https://api.x.com/2'),
};
