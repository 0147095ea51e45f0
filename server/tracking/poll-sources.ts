// The sources the tracking poll (poll.ts) reads, each one small adapter: the connector's context (the stored
// credential of its kind, opened), the connector's params for one search, and the searches a tracked query compiles to
// (searches.ts). Polled: Hacker News, Reddit, YouTube, X by their search APIs, RSS/Atom feeds by reading the feeds the
// installation follows (a feed has no search: every tracked query's searches are the followed feeds, and the one
// matcher keeps what each asks for). Backfilled only (a stream collects what is new: server/scraping/streams): Bluesky
// through app.bsky.feed.searchPosts, and each tracked Mastodon instance through its tag timelines.
import type pg from 'pg';
import type { SourceParams } from '@contract/scraping';
import type { QueryNode } from '@server/query/ast';
import { CredentialProblem } from '@server/scraping/connectors/http';
import type { ConnectorContext } from '@server/scraping/connectors/types';
import { loadCredential, spendQuota } from '@server/scraping/credentials';
import type { CredentialKind } from '@contract/scraping';
import type { Gap } from './coverage';
import { EACH, hashtagsOf, OR_512, searchesFor, YOUTUBE_OR } from './searches';
import { MASTODON } from './sources';
import type { Catalogue } from '@server/billing/plans';
import type { HttpOptions } from '@server/scraping/connectors/http';
import type { SourceUrls } from '@server/scraping/connectors/types';
import type { Executor } from '@server/workspaces/access';

type Params = Exclude<SourceParams, { source: 'upload' }>;

/** What the tracking poll (poll.ts) runs with. */
export interface PollDeps {
  pool: pg.Pool;
  /** The same database through Drizzle, and the plans: a workspace past its month's collection pauses. */
  db: Executor;
  catalogue: Catalogue;
  http: HttpOptions;
  urls: SourceUrls;
  /** Opens the stored credentials (Reddit, YouTube, X); absent, their coverage says the credentials cannot be read. */
  secretsKey?: Buffer;
  /** Pages of each search a round (a backfill goes on at the next round from its cursor). */
  pagesPerSearch?: number;
  now?: () => Date;
}

export interface PollSource {
  /** The tracking source's key: 'youtube', 'feeds', 'mastodon:https://…'. */
  key: string;
  /**
   * Minutes between a query's rounds on the source, inside its rate limits and quotas; 0: every round (the job runs
   * every 5). A search the query has not run yet (newly tracked, edited, a feed newly followed) runs at the next round.
   */
  everyMinutes: number;
  /** Only a backfill (a stream collects what is new): no head pass, and nothing once the source has nothing older. */
  backfillOnly?: true;
  /** A search's failure does not stop the query's other searches (one feed down is not the others). */
  apart?: true;
  /** The connector's context; throws (a CredentialProblem) what every query on the source shows as its gap. */
  context(deps: PollDeps): Promise<ConnectorContext>;
  params(search: string, context: ConnectorContext): Params;
  searches(ast: QueryNode): string[];
  /** What the gap sentences name, from the source's label; the label itself when absent. */
  what?(label: string): string;
  /** The query's gap when it compiles to no search; null when nothing is missed by it (a stream collects). */
  noSearch(label: string): Gap | null;
}

/** No credential of the kind: said as the query's gap. */
class NoCredentials extends CredentialProblem {}

const baseContext = (deps: PollDeps): ConnectorContext => ({
  http: deps.http,
  signal: AbortSignal.timeout(5 * 60_000),
  urls: deps.urls,
  spend: async () => {},
});

/** The installation's credentials of `kind`: those whose last test passed first, then the oldest. */
async function storedCredential(deps: PollDeps, kind: CredentialKind, missing: string) {
  const { rows } = await deps.pool.query<{ id: string }>(
    `SELECT id FROM source_credentials WHERE kind = $1 ORDER BY last_test_ok IS FALSE, created_at LIMIT 1`,
    [kind],
  );
  if (!rows[0]) throw new NoCredentials(missing);
  return loadCredential(deps.pool, deps.secretsKey, rows[0].id);
}

/** The base context with the installation's stored credential of `kind` (storedCredential), and that credential. */
async function credentialContext(deps: PollDeps, kind: CredentialKind, missing: string) {
  const credential = await storedCredential(deps, kind, missing);
  const context = { ...baseContext(deps), credential: { id: credential.id, secret: credential.secret } };
  return { credential, context };
}

const noWords = (label: string): Gap => ({
  reason: 'no_search_words',
  message: `This query has no words ${label} search can look for (only NOT, or only fields such as lang:).`,
  until: null,
});

const hackerNews: PollSource = {
  key: 'hackernews',
  // Every round: Algolia allows 10,000 requests an hour.
  everyMinutes: 0,
  context: async (deps) => baseContext(deps),
  params: (query) => ({ source: 'hackernews_search', query, items: 'all', max_pages: 1 }),
  searches: (ast) => searchesFor(EACH, ast),
  noSearch: noWords,
};

const reddit: PollSource = {
  key: 'reddit',
  // Every round: Reddit allows an OAuth app 100 requests a minute.
  everyMinutes: 0,
  context: async (deps) =>
    (
      await credentialContext(
        deps,
        'reddit',
        'No Reddit credentials are set up: staff add them in the internal area.',
      )
    ).context,
  params: (query, context) => ({
    source: 'reddit_search',
    credential_id: context.credential!.id,
    query,
    comment_depth: 0,
    max_pages: 1,
  }),
  searches: (ast) => searchesFor(OR_512, ast),
  noSearch: noWords,
};

const youtube: PollSource = {
  key: 'youtube',
  // A search page costs 100 of the project's 10,000 daily units: hourly, a few queries' searches and their backfill
  // stay inside it; a spent quota is the gap until midnight Pacific time.
  everyMinutes: 60,
  async context(deps) {
    const { credential, context } = await credentialContext(
      deps,
      'youtube',
      'No YouTube API key is set up: staff add one in the internal area.',
    );
    return {
      ...context,
      // Charged to the key's daily budget (source_quota_usage) before each request, as the staff's jobs are.
      spend: async (units) => {
        await spendQuota(deps.pool, credential, units, deps.now?.() ?? new Date());
      },
    };
  },
  // Videos only (their title and description): reading every found video's comments would spend a unit each.
  params: (query, context) => ({
    source: 'youtube_search',
    credential_id: context.credential!.id,
    query,
    comment_pages: 0,
    max_pages: 1,
  }),
  searches: (ast) => searchesFor(YOUTUBE_OR, ast),
  noSearch: noWords,
};

const x: PollSource = {
  key: 'x',
  // Recent search allows 60 (self-serve) to 450 requests in 15 minutes, and every post read counts against the
  // project's monthly cap.
  everyMinutes: 15,
  context: async (deps) =>
    (await credentialContext(deps, 'x', 'No X bearer token is set up: staff add one in the internal area.'))
      .context,
  params: (query, context) => ({
    source: 'x_search',
    credential_id: context.credential!.id,
    query,
    max_pages: 1,
  }),
  searches: (ast) => searchesFor(OR_512, ast),
  noSearch: noWords,
};

/** The feeds the installation follows (staff's feed jobs not cancelled): every tracked query reads them all. */
function feeds(urls: string[]): PollSource {
  return {
    key: 'feeds',
    // Asked conditionally (ETag, Last-Modified): an unchanged feed costs a 304.
    everyMinutes: 15,
    apart: true,
    context: async (deps) => baseContext(deps),
    params: (url) => ({ source: 'feed', url, max_pages: 1 }),
    searches: () => urls,
    noSearch: () => ({
      reason: 'not_collected',
      message: 'This installation follows no feeds now: staff add them as feed jobs in the internal area.',
      until: null,
    }),
  };
}

/** Bluesky's backfill: searchPosts, one search a word (its boolean syntax is unspecified); Jetstream takes the new. */
const bluesky: PollSource = {
  key: 'bluesky',
  everyMinutes: 0,
  backfillOnly: true,
  what: () => 'Bluesky post search',
  context: async (deps) => baseContext(deps),
  params: (query) => ({ source: 'bluesky_search', query, max_pages: 1 }),
  searches: (ast) => searchesFor(EACH, ast).filter((word) => word.length <= 300),
  noSearch: () => null,
};

/** A Mastodon instance's backfill: the tag timelines of the query's hashtags; the instance's stream takes the new. */
function mastodon(source: string): PollSource {
  const instance = source.slice(MASTODON.length);
  return {
    key: source,
    everyMinutes: 0,
    backfillOnly: true,
    what: (label) => `${label}’s tag timelines`,
    context: async (deps) => baseContext(deps),
    params: (hashtag) => ({ source: 'mastodon_hashtag', instance, hashtag, max_pages: 1 }),
    searches: hashtagsOf,
    noSearch: () => null,
  };
}

/** The sources a round reads, in order: the feeds followed and the Mastodon instances tracked now. */
export async function pollSources(pool: pg.Pool): Promise<PollSource[]> {
  const { rows: followed } = await pool.query<{ url: string }>(
    `SELECT DISTINCT params->>'url' AS url FROM scrape_jobs WHERE source = 'feed' AND state <> 'cancelled' ORDER BY 1`,
  );
  const { rows: instances } = await pool.query<{ source: string }>(
    `SELECT DISTINCT s AS source FROM saved_query_tracking t, unnest(t.sources) s
     WHERE t.enabled AND s LIKE 'mastodon:%' ORDER BY 1`,
  );
  return [
    hackerNews,
    reddit,
    youtube,
    x,
    feeds(followed.map((row) => row.url)),
    bluesky,
    ...instances.map((row) => mastodon(row.source)),
  ];
}
