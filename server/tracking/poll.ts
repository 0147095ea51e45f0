// Collection by polling for tracked saved queries (issue 54): for each polled source (poll-sources.ts: Hacker News,
// Reddit, YouTube and X by their search APIs, RSS/Atom feeds by the feeds followed; Bluesky and Mastodon instances
// backfilled only, their streams taking what is new), every query tracked on it is compiled loosely to the source's
// searches (searches.ts), each search is run from its cursor for a few pages a round, and of what comes back only the
// posts the exact query accepts are kept — one matcher over all the source's tracked queries (server/query/match), so a
// post found for one query is counted for every tracked query it matches. The posts go into the corpus through the
// import path (stored once, keyed by platform and external id), with the search's cursor and the coverage of each
// query, in one transaction a page. A rate limit, a spent quota, missing credentials or a source that does not answer
// is recorded as the query's gap with its reason and span (coverage.ts), never silently.
import type pg from 'pg';
import { compileMatcher } from '@server/query/match';
import type { QueryNode } from '@server/query/ast';
import { parseWithLists } from '@server/query/index';
import type { ImportRow } from '@server/social/corpus/import/normalise';
import { upsertRows } from '@server/social/corpus/import/write';
import { connectorFor } from '@server/scraping/connectors';
import {
  CredentialProblem,
  PermanentError,
  QuotaSpentError,
  RateLimitedError,
} from '@server/scraping/connectors/http';
import type { ConnectorContext, Page } from '@server/scraping/connectors/types';
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
import { pollSources, type PollDeps, type PollSource } from './poll-sources';
import { describeSource } from './sources';
import { matchPostOf } from '@server/social/corpus/import/match-post';

const hhmm = (date: Date) => `${date.toISOString().slice(11, 16)} UTC`;

/** A backfill beside a stream that the source refused (a 4xx other than 429): it ends there, said once. */
class BackfillRefused extends Error {}

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
  if (error instanceof BackfillRefused) {
    return { reason: 'unreachable', message: `${label} refused the backfill: ${message}`, until: null };
  }
  if (error instanceof CredentialProblem || /credential/i.test(message)) {
    return { reason: 'credentials_missing', message, until: null };
  }
  return { reason: 'unreachable', message: `${label} did not answer: ${message}`, until: null };
}

interface Tracked extends TrackedQuery {
  ast: QueryNode;
}

interface Round {
  deps: PollDeps;
  source: PollSource;
  context: ConnectorContext;
  match: (row: ImportRow) => string[];
  /** The pages fetched this round, by params and cursor: queries at one search's same cursor share a request. */
  pages: Map<string, Promise<Page>>;
}

/**
 * The rows not yet counted for (query, source), now counted (tracking_counted): each post once a query, whichever
 * query's search brought it and however often a page brings it back.
 */
async function newlyCounted(client: pg.PoolClient, id: string, source: string, rows: ImportRow[]) {
  if (rows.length === 0) return [];
  const { rows: counted } = await client.query<{ external_id: string }>(
    `INSERT INTO tracking_counted (saved_query_id, source, external_id)
     SELECT $1, $2, unnest($3::text[]) ON CONFLICT DO NOTHING RETURNING external_id`,
    [id, source, [...new Set(rows.map((row) => row.externalId))]],
  );
  const fresh = new Set(counted.map((row) => row.external_id));
  return rows.filter((row) => fresh.delete(row.externalId));
}

/** Commits one page of a search: the matching posts, each matched query's coverage and the search's cursor. */
async function commitPage(
  round: Round,
  query: Tracked,
  searches: string[],
  search: string,
  page: PageResult,
) {
  const source = round.source.key;
  const backfillOnly = round.source.backfillOnly === true;
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
      // Beside a stream, what was posted since tracking began is the stream's to count; the backfill stores it only.
      const countable = backfillOnly
        ? rows.filter((row) => new Date(row.postedAt) < current.trackingSince)
        : rows;
      const fresh = await newlyCounted(client, id, source, countable);
      const own = id === query.savedQueryId;
      // Another query's posts found by this search: counted for it, its gap (of its own searches) kept.
      if (!own && fresh.length === 0) continue;
      await recordCoverage(
        client,
        id,
        source,
        {
          postedAt: fresh.map((row) => new Date(row.postedAt)),
          ...(own && page.reachedBack && { reachedBack: page.reachedBack }),
          ...((backfillOnly || round.source.apart || !own) && { keepGap: true }),
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
  /** When what is new was last asked for (ISO): the source's cadence counts from it. */
  at?: string;
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
    return page.done
      ? { head: state.head, backfilled: true, ...(state.at && { at: state.at }) }
      : { ...state, back: page.cursor };
  // The first pass, newest first: what it reached is the head's start, and the backfill goes on from where it stopped.
  return page.done
    ? { head: page.cursor, backfilled: true }
    : { head: finish(page.cursor), back: page.cursor };
}

/** A page of the search from `cursor`, fetched once a round whichever query asks. */
function fetchPage(round: Round, params: ReturnType<PollSource['params']>, cursor: unknown): Promise<Page> {
  const key = JSON.stringify([params, cursor ?? null]);
  let page = round.pages.get(key);
  if (!page) {
    page = connectorFor(params).fetchPage(params as never, cursor, round.context);
    round.pages.set(key, page);
  }
  return page;
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
  const params = round.source.params(search, round.context);
  const connector = connectorFor(params);
  let state = start;
  let cursor = pass === 'head' ? state.head : pass === 'back' ? state.back : undefined;
  const at = (round.deps.now?.() ?? new Date()).toISOString();
  for (let n = 0; n < (round.deps.pagesPerSearch ?? 3); n++) {
    const page = await fetchPage(round, params, cursor);
    const { rows } = prepareItems(page.items);
    const times = rows.map((row) => Date.parse(row.postedAt));
    state = nextState(pass, state, page, (c) => connector.finish(c));
    if (pass !== 'back') state = { ...state, at };
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

/** The gaps after which nothing more is asked of the source this round. */
const STOPS: ReadonlySet<Gap['reason']> = new Set(['rate_limited', 'quota_spent', 'credentials_missing']);

/**
 * Each search of the query: one it has not run yet from the newest back; the others, when due at the source's cadence,
 * what is new since they last asked first (not on a backfill-only source), then the backfill's next pages.
 */
async function pollQuery(round: Round, query: Tracked, searches: string[]) {
  const { everyMinutes } = round.source;
  const now = round.deps.now?.() ?? new Date();
  let failed: unknown;
  for (const search of searches) {
    const coverage = await coverageState(round.deps.pool, query.savedQueryId, round.source.key);
    if (!coverage) return;
    const stored = coverage.cursors[search] as SearchState | undefined;
    // A round a minute early still counts (the job's 5 minutes drift by the time a round takes).
    const due =
      everyMinutes === 0 ||
      !stored?.at ||
      now.getTime() - Date.parse(stored.at) >= (everyMinutes - 1) * 60_000;
    try {
      if (!stored) await runPass(round, query, searches, search, 'first', {});
      else if (!due) continue;
      else if (round.source.backfillOnly) {
        if (!stored.backfilled) await runPass(round, query, searches, search, 'back', stored);
      } else {
        const state = await runPass(round, query, searches, search, 'head', stored);
        if (!state.backfilled) await runPass(round, query, searches, search, 'back', state);
      }
    } catch (error) {
      if (round.source.backfillOnly && error instanceof PermanentError) {
        // Refused, not down (a sign-in wanted, a query refused): asking again each round would only repeat the gap.
        await saveCursors(round.deps.pool, query.savedQueryId, round.source.key, {
          ...coverage.cursors,
          [search]: { ...stored, backfilled: true },
        });
        throw new BackfillRefused(error.message);
      }
      // One feed that does not answer is its gap; the others are still read (and the gap said after them).
      if (!round.source.apart || STOPS.has(gapOf(error, '', new Date()).reason)) throw error;
      failed ??= error;
    }
  }
  if (failed !== undefined) throw failed;
  // Every search answered: the query's gap (kept open while any did not, so that its span is the whole outage) ends.
  if (round.source.apart)
    await recordCoverage(round.deps.pool, query.savedQueryId, round.source.key, { postedAt: [] }, now);
}

/** One round of one polled source over every query tracked on it. */
async function pollSource(deps: PollDeps, source: PollSource) {
  const named = describeSource(source.key)?.label ?? source.key;
  const label = source.what?.(named) ?? named;
  const now = () => deps.now?.() ?? new Date();
  const collectable = await collectableQueries(deps.db, deps.pool, deps.catalogue, source.key, now());
  const tracked: Tracked[] = collectable.flatMap((query) => {
    const parsed = parseWithLists(query.text, query.lists);
    return parsed.ok ? [{ ...query, ast: parsed.ast }] : [];
  });
  if (tracked.length === 0) return;
  let context: ConnectorContext;
  try {
    context = await source.context(deps);
  } catch (error) {
    for (const query of tracked)
      await recordGap(deps.pool, query.savedQueryId, source.key, gapOf(error, label, now()), now());
    return;
  }
  const matcher = compileMatcher(tracked.map((query) => ({ id: query.savedQueryId, ast: query.ast })));
  const round: Round = {
    deps,
    source,
    context,
    match: (row) => matcher.match(matchPostOf(row)),
    pages: new Map(),
  };
  let stopped: Gap | undefined;
  for (const query of tracked) {
    if (stopped) {
      // The source said to wait: every query after it waits too, and says so.
      await recordGap(deps.pool, query.savedQueryId, source.key, stopped, now());
      continue;
    }
    const state = await coverageState(deps.pool, query.savedQueryId, source.key);
    if (!state || (state.gapUntil && state.gapUntil > now())) continue;
    const searches = source.searches(query.ast);
    if (searches.length === 0) {
      const gap = source.noSearch(label);
      if (gap) await recordGap(deps.pool, query.savedQueryId, source.key, gap, now());
      continue;
    }
    try {
      await pollQuery(round, query, searches);
    } catch (error) {
      const gap = gapOf(error, label, now());
      await recordGap(deps.pool, query.savedQueryId, source.key, gap, now());
      if (STOPS.has(gap.reason)) stopped = gap;
    }
  }
}

/** One round of every polled source (each source's failure is its queries' gap; the others go on). */
export async function pollTrackedQueries(deps: PollDeps): Promise<void> {
  for (const source of await pollSources(deps.pool)) await pollSource(deps, source);
}

/**
 * Runs every 5 minutes; each source is asked at its own cadence inside its limits (poll-sources.ts: Hacker News and
 * Reddit every round, X and feeds every 15 minutes, YouTube hourly), a query's new searches at once.
 */
export const trackingPollJob = (deps: PollDeps): PeriodicJob => ({
  name: 'tracking-poll',
  cron: '*/5 * * * *',
  run: () => pollTrackedQueries(deps),
  timeoutSeconds: 4 * 60,
});
