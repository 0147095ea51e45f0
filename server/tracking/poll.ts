// Collection by polling for tracked saved queries (issue 54): for each source that is polled (Hacker News, Reddit),
// every query tracked on it is compiled loosely to the source's search words (searches.ts), each search is run from
// its cursor for a few pages a round, and of what comes back only the posts the exact query accepts are kept — one
// matcher over all the source's tracked queries (server/query/match), so a post found for one query is counted for
// every tracked query it matches. The posts go into the corpus through the import path (stored once, keyed by platform
// and external id), with the search's cursor and the coverage of each query, in one transaction a page. A rate limit,
// a spent quota, missing credentials or a source that does not answer is recorded as the query's gap with its reason
// and span (coverage.ts), never silently.
import type pg from 'pg';
import type { SourceParams } from '@contract/scraping';
import { compileMatcher } from '@server/query/match';
import type { QueryNode } from '@server/query/ast';
import { parseWithLists } from '@server/query/index';
import type { ImportRow } from '@server/social/corpus/import/normalise';
import { upsertRows } from '@server/social/corpus/import/write';
import { connectorFor } from '@server/scraping/connectors';
import {
  CredentialProblem,
  QuotaSpentError,
  RateLimitedError,
  type HttpOptions,
} from '@server/scraping/connectors/http';
import type { ConnectorContext, Page, SourceUrls } from '@server/scraping/connectors/types';
import { loadCredential } from '@server/scraping/credentials';
import { prepareItems } from '@server/scraping/prepare';
import { inTransaction } from '@server/scraping/run-rows';
import type { PeriodicJob } from '@server/scheduler';
import {
  coverageState,
  recordCoverage,
  recordGap,
  saveCursors,
  collectableQueries,
  type Gap,
  type TrackedQuery,
} from './coverage';
import { searchesFor } from './searches';
import { describeSource } from './sources';
import { matchPostOf } from '@server/social/corpus/import/match-post';
import type { Catalogue } from '@server/billing/plans';
import type { Executor } from '@server/workspaces/access';

/** The sources collected by polling their search, so far. */
const POLLED = ['hackernews', 'reddit'] as const;
type PolledSource = (typeof POLLED)[number];

export interface PollDeps {
  pool: pg.Pool;
  /** The same database through Drizzle, and the plans: a workspace past its month's collection pauses. */
  db: Executor;
  catalogue: Catalogue;
  http: HttpOptions;
  urls: SourceUrls;
  /** Opens Reddit's stored credentials; absent, Reddit's coverage says the credentials cannot be read. */
  secretsKey?: Buffer;
  /** Pages of each search a round (a backfill goes on at the next round from its cursor). */
  pagesPerSearch?: number;
  now?: () => Date;
}

/** No credential of the kind: said as the query's gap. */
class NoCredentials extends CredentialProblem {}

const hhmm = (date: Date) => `${date.toISOString().slice(11, 16)} UTC`;

function gapOf(error: unknown, label: string, now: Date): Gap {
  if (error instanceof QuotaSpentError) {
    const until = new Date(now.getTime() + error.waitMs);
    return { reason: 'quota_spent', message: `${label}’s quota is spent until ${hhmm(until)}.`, until };
  }
  if (error instanceof RateLimitedError) {
    const until = new Date(now.getTime() + error.waitMs);
    return { reason: 'rate_limited', message: `${label} rate limited until ${hhmm(until)}.`, until };
  }
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof CredentialProblem || /credential/i.test(message)) {
    return { reason: 'credentials_missing', message, until: null };
  }
  return { reason: 'unreachable', message: `${label} did not answer: ${message}`, until: null };
}

async function contextFor(deps: PollDeps, source: PolledSource): Promise<ConnectorContext> {
  const base = {
    http: deps.http,
    signal: AbortSignal.timeout(5 * 60_000),
    urls: deps.urls,
    spend: async () => {},
  };
  if (source === 'hackernews') return base;
  // The installation's Reddit credentials: those whose last test passed first, then the oldest.
  const { rows } = await deps.pool.query<{ id: string }>(
    `SELECT id FROM source_credentials WHERE kind = 'reddit' ORDER BY last_test_ok IS FALSE, created_at LIMIT 1`,
  );
  if (!rows[0])
    throw new NoCredentials('No Reddit credentials are set up: staff add them in the internal area.');
  const credential = await loadCredential(deps.pool, deps.secretsKey, rows[0].id);
  return { ...base, credential: { id: credential.id, secret: credential.secret } };
}

function paramsOf(source: PolledSource, search: string, context: ConnectorContext) {
  const params: Exclude<SourceParams, { source: 'upload' }> =
    source === 'hackernews'
      ? { source: 'hackernews_search', query: search, items: 'all', max_pages: 1 }
      : {
          source: 'reddit_search',
          credential_id: context.credential!.id,
          query: search,
          comment_depth: 0,
          max_pages: 1,
        };
  return params;
}

interface Tracked extends TrackedQuery {
  ast: QueryNode;
}

interface Round {
  deps: PollDeps;
  source: PolledSource;
  context: ConnectorContext;
  match: (row: ImportRow) => string[];
}

/** Commits one page of a search: the matching posts, each matched query's coverage and the search's cursor. */
async function commitPage(
  round: Round,
  query: Tracked,
  searches: string[],
  search: string,
  page: PageResult,
) {
  const { source } = round;
  const now = round.deps.now?.() ?? new Date();
  await inTransaction(round.deps.pool, async (client) => {
    const state = await coverageState(client, query.savedQueryId, source);
    if (!state) return; // No longer tracked on this source.
    const matched = new Map<string, ImportRow[]>();
    const kept: ImportRow[] = [];
    for (const row of page.rows) {
      const ids = round.match(row);
      if (ids.length > 0) kept.push(row);
      for (const id of ids) matched.set(id, [...(matched.get(id) ?? []), row]);
    }
    if (kept.length > 0) await upsertRows(client, kept);
    const cursors = Object.fromEntries(
      searches.filter((s) => s in state.cursors).map((s) => [s, state.cursors[s]]),
    );
    await saveCursors(client, query.savedQueryId, source, { ...cursors, [search]: page.cursor });
    if (!matched.has(query.savedQueryId)) matched.set(query.savedQueryId, []);
    for (const [id, rows] of matched) {
      const current = id === query.savedQueryId ? state : await coverageState(client, id, source);
      if (!current) continue;
      // Counted once: a post already inside the span collected for the query (seen by an earlier page) is not new.
      const fresh = rows
        .map((row) => new Date(row.postedAt))
        .filter(
          (at) =>
            current.lastPostAt === null ||
            current.backfilledTo === null ||
            at > current.lastPostAt ||
            at < current.backfilledTo,
        );
      await recordCoverage(
        client,
        id,
        source,
        {
          postedAt: fresh,
          ...(id === query.savedQueryId && page.reachedBack && { reachedBack: page.reachedBack }),
        },
        now,
      );
    }
  });
}

interface PageResult {
  rows: ImportRow[];
  /** The search's state once this page is committed. */
  cursor: SearchState;
  reachedBack?: Date;
}

/**
 * Where a search stands: `head` polls what is newer than the newest seen; `back` goes on back in time (a backfill)
 * until the source has nothing older (`backfilled`). Each is the connector's own cursor, so a pass cut short resumes.
 */
interface SearchState {
  head?: unknown;
  back?: unknown;
  backfilled?: boolean;
}

type Pass = 'first' | 'head' | 'back';

/** The search's state after `page` of `pass`. */
function nextState(
  pass: Pass,
  state: SearchState,
  page: Page,
  finish: (cursor: unknown) => unknown,
): SearchState {
  if (pass === 'head') return { ...state, head: page.cursor };
  if (pass === 'back')
    return page.done ? { head: state.head, backfilled: true } : { ...state, back: page.cursor };
  // The first pass, newest first: what it reached is the head's start, and the backfill goes on from where it stopped.
  return page.done
    ? { head: page.cursor, backfilled: true }
    : { head: finish(page.cursor), back: page.cursor };
}

/** Up to `pages` pages of one pass of a search, each committed; the search's state after them. */
async function runPass(
  round: Round,
  query: Tracked,
  searches: string[],
  search: string,
  pass: Pass,
  start: SearchState,
) {
  const params = paramsOf(round.source, search, round.context);
  const connector = connectorFor(params);
  let state = start;
  let cursor = pass === 'head' ? state.head : pass === 'back' ? state.back : undefined;
  for (let n = 0; n < (round.deps.pagesPerSearch ?? 3); n++) {
    const page = await connector.fetchPage(params as never, cursor, round.context);
    const { rows } = prepareItems(page.items);
    const times = rows.map((row) => Date.parse(row.postedAt));
    state = nextState(pass, state, page, (c) => connector.finish(c));
    await commitPage(round, query, searches, search, {
      rows,
      cursor: state,
      ...(times.length > 0 && { reachedBack: new Date(Math.min(...times)) }),
    });
    cursor = page.cursor;
    if (page.done) break;
  }
  return state;
}

/** Each search of the query: what is new since the last round first, then the backfill's next pages. */
async function pollQuery(round: Round, query: Tracked, searches: string[]) {
  for (const search of searches) {
    const coverage = await coverageState(round.deps.pool, query.savedQueryId, round.source);
    if (!coverage) return;
    const stored = coverage.cursors[search] as SearchState | undefined;
    if (!stored) {
      await runPass(round, query, searches, search, 'first', {});
      continue;
    }
    const state = await runPass(round, query, searches, search, 'head', stored);
    if (!state.backfilled) await runPass(round, query, searches, search, 'back', state);
  }
}

/** One round of one polled source over every query tracked on it. */
async function pollSource(deps: PollDeps, source: PolledSource) {
  const label = describeSource(source)?.label ?? source;
  const now = () => deps.now?.() ?? new Date();
  const collectable = await collectableQueries(deps.db, deps.pool, deps.catalogue, source, now());
  const tracked: Tracked[] = collectable.flatMap((query) => {
    const parsed = parseWithLists(query.text, query.lists);
    return parsed.ok ? [{ ...query, ast: parsed.ast }] : [];
  });
  if (tracked.length === 0) return;
  let context: ConnectorContext;
  try {
    context = await contextFor(deps, source);
  } catch (error) {
    for (const query of tracked)
      await recordGap(deps.pool, query.savedQueryId, source, gapOf(error, label, now()), now());
    return;
  }
  const matcher = compileMatcher(tracked.map((query) => ({ id: query.savedQueryId, ast: query.ast })));
  const round: Round = { deps, source, context, match: (row) => matcher.match(matchPostOf(row)) };
  let stopped: Gap | undefined;
  for (const query of tracked) {
    if (stopped) {
      // The source said to wait: every query after it waits too, and says so.
      await recordGap(deps.pool, query.savedQueryId, source, stopped, now());
      continue;
    }
    const state = await coverageState(deps.pool, query.savedQueryId, source);
    if (!state || (state.gapUntil && state.gapUntil > now())) continue;
    const searches = searchesFor(source, query.ast);
    if (searches.length === 0) {
      await recordGap(
        deps.pool,
        query.savedQueryId,
        source,
        {
          reason: 'no_search_words',
          message: `This query has no words ${label} search can look for (only NOT, or only fields such as lang:).`,
          until: null,
        },
        now(),
      );
      continue;
    }
    try {
      await pollQuery(round, query, searches);
    } catch (error) {
      const gap = gapOf(error, label, now());
      await recordGap(deps.pool, query.savedQueryId, source, gap, now());
      if (
        gap.reason === 'rate_limited' ||
        gap.reason === 'quota_spent' ||
        gap.reason === 'credentials_missing'
      ) {
        stopped = gap;
      }
    }
  }
}

/** One round of every polled source (each source's failure is its queries' gap; the others go on). */
export async function pollTrackedQueries(deps: PollDeps): Promise<void> {
  for (const source of POLLED) await pollSource(deps, source);
}

/** Polls every 5 minutes (Reddit allows 100 requests a minute, Algolia 10,000 an hour). */
export const trackingPollJob = (deps: PollDeps): PeriodicJob => ({
  name: 'tracking-poll',
  cron: '*/5 * * * *',
  run: () => pollTrackedQueries(deps),
  timeoutSeconds: 4 * 60,
});
