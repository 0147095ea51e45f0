// Runs a discover search: one page of posts and, on the first page, the top profiles. From the analytics store when it
// holds exactly the corpus version PostgreSQL's snapshot sees, never while it is behind (the page's ids and the
// profiles' aggregates, then the posts and profiles looked up by id in that snapshot: insights/store-source.ts), else
// from PostgreSQL in one read-only transaction under one time budget (statement_timeout set to what is left of it
// before each statement), so an expensive search is cancelled rather than left running; the store's statements have
// the same budget each.
import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '@server/db/database';
import { ApiError } from '@server/errors';
import type { DiscoverProfile, DiscoverSort } from '@contract/discover';
import type { SocialPost } from '@contract/social-posts';
import { storeDiscover } from '@server/analytics/insights/discover';
import type { AnalyticsService } from '@server/analytics/service';
import { isStoreTimeout } from '@server/analytics/store';
import { NO_CORRECTIONS, type Corrections } from '../corrections';
import { toPost } from '../post-rows';
import type { InsightScope } from '../insights/request';
import { profilesByIds } from '../insights/rows';
import { fromStore } from '../insights/store-source';
import { scopeWhere } from '../scope';
import type { Cursor } from './cursor';
import { after, pageQuery, profilesQuery, toProfile, type PageRow } from './queries';
import { noteSnapshot, snapshotColumns } from '../reads';

/** A search that runs longer in all is cancelled (503 search_timeout). */
const DISCOVER_TIMEOUT_MS = 5000;
/**
 * How long walking the sort's index may take before the page is found the other way (every match, then sorted).
 * Walking is a few milliseconds when matches are common; when they are rare but the planner guessed otherwise (a
 * word and a language that never meet), it would visit most of the index.
 */
const WALK_BUDGET_MS = 300;

interface PageKey {
  k: string | number;
  id: number;
}

export interface SearchResult {
  posts: SocialPost[];
  /** The key of the last post when there are more, else null. */
  next: PageKey | null;
  profiles: DiscoverProfile[] | null;
}

/** A profile's row with its aggregate over every match, from either source. */
type ProfileRow = Parameters<typeof toProfile>[0];

/** The answer from the page's rows (one more than `limit` when there is a next page) and the profiles' rows. */
function searchAnswer(
  rows: PageRow[],
  profiles: ProfileRow[] | null,
  sort: DiscoverSort,
  limit: number,
  corrections: Corrections,
): SearchResult {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const next =
    rows.length > limit && last
      ? { k: sort === 'recency' ? last.posted_key : last.engagement, id: Number(last.id) }
      : null;
  return {
    posts: page.map((row) => toPost(row, corrections)),
    next,
    profiles: profiles?.map(toProfile) ?? null,
  };
}

export interface SearchOptions {
  where: SQL;
  sort: DiscoverSort;
  cursor: Cursor | null;
  limit: number;
  /** The workspace's sentiment corrections, shown on its posts (none by default). */
  corrections?: Corrections;
  timeoutMs?: number;
  walkBudgetMs?: number;
}

/** PostgreSQL's query_canceled, which statement_timeout raises; drizzle wraps driver errors in `cause`. */
function isStatementTimeout(error: unknown): boolean {
  for (let current = error; current instanceof Error; current = current.cause) {
    if ((current as Error & { code?: unknown }).code === '57014') return true;
  }
  return false;
}

const searchTimeout = () =>
  new ApiError(503, 'search_timeout', 'This search took too long: narrow the query or the date range.');

type Executor = Pick<Db, 'execute'>;

/** `also`: more columns to select (the first statement's snapshotColumns, server/social/reads.ts). */
const setTimeoutLocal = (tx: Executor, ms: number, also: SQL = sql`1`) =>
  tx.execute<Record<string, unknown>>(
    sql`SELECT set_config('statement_timeout', ${`${Math.max(1, Math.ceil(ms))}ms`}, true), ${also}`,
  );

export async function searchPosts(db: Db, options: SearchOptions): Promise<SearchResult> {
  const { where, sort, cursor, limit, corrections = NO_CORRECTIONS } = options;
  const { timeoutMs = DISCOVER_TIMEOUT_MS, walkBudgetMs = WALK_BUDGET_MS } = options;
  const deadline = performance.now() + timeoutMs;
  const remaining = () => deadline - performance.now();
  const condition = cursor ? sql`${where} AND ${after(sort, cursor)}` : where;
  try {
    return await db.transaction(
      async (tx) => {
        noteSnapshot(
          (await setTimeoutLocal(tx, Math.min(walkBudgetMs, remaining()), snapshotColumns)).rows[0],
        );
        let rows: PageRow[];
        try {
          // A savepoint: a cancelled walk leaves the transaction usable.
          rows = await tx.transaction(
            async (walk) => (await walk.execute<PageRow>(pageQuery(condition, sort, limit))).rows,
          );
        } catch (error) {
          if (!isStatementTimeout(error)) throw error;
          await setTimeoutLocal(tx, remaining());
          rows = (await tx.execute<PageRow>(pageQuery(condition, sort, limit, false))).rows;
        }
        // The profiles summarise every match, so only the first page pays for them.
        let profiles: ProfileRow[] | null = null;
        if (!cursor) {
          await setTimeoutLocal(tx, remaining());
          profiles = (await tx.execute<ProfileRow>(profilesQuery(where))).rows;
        }
        return searchAnswer(rows, profiles, sort, limit, corrections);
      },
      { accessMode: 'read only' },
    );
  } catch (error) {
    if (isStatementTimeout(error)) throw searchTimeout();
    throw error;
  }
}

/** One page of a search, wherever it is read. */
export type PageOptions = Pick<SearchOptions, 'sort' | 'cursor' | 'limit'>;

/**
 * Discover's search of `context` (its scope: range, platforms, languages and query; discover has no refinements): from
 * the analytics store when it holds PostgreSQL's corpus version, else from PostgreSQL (searchPosts).
 */
export async function discoverPosts(
  db: Db,
  context: InsightScope,
  options: PageOptions,
  service: AnalyticsService | undefined,
): Promise<SearchResult> {
  const answer = await searchFromStore(db, context, options, service);
  return (
    answer ??
    searchPosts(db, { where: scopeWhere(context.scope), corrections: context.corrections, ...options })
  );
}

/**
 * The page's ids (or candidates) and the profiles' aggregates from the store, then in PostgreSQL's snapshot of the same
 * version the page's posts in the sort's order after the cursor (as pageQuery orders them) and the profiles by id.
 */
async function searchFromStore(
  db: Db,
  context: InsightScope,
  { sort, cursor, limit }: PageOptions,
  service: AnalyticsService | undefined,
): Promise<SearchResult | null> {
  const key = { sort, cursor: cursor && { k: cursor.k, id: cursor.id }, limit };
  return fromStore(
    db,
    context,
    service,
    async (store, source) => {
      try {
        return await storeDiscover(store, source, { ...key, timeoutMs: DISCOVER_TIMEOUT_MS });
      } catch (error) {
        if (isStoreTimeout(error)) throw searchTimeout();
        throw error;
      }
    },
    async (tx, found) => {
      const { scope } = context;
      const ids = sql`p.id = ANY(${sql.param(found.ids)}::bigint[])
        AND p.posted_at >= ${scope.from} AND p.posted_at < ${scope.to}`;
      // The ids fetched first, then sorted (pageQuery without the walk): given a few hundred ids (a recency page's
      // candidates, every post of a millisecond many share) the planner would walk each month's partition by time
      // instead, reading every post of the range (a language over 90 days at 10M posts: 21 s, against a few ms).
      const rows = found.ids.length
        ? (
            await tx.execute<PageRow>(
              pageQuery(cursor ? sql`${ids} AND ${after(sort, cursor)}` : ids, sort, limit, false),
            )
          ).rows
        : [];
      let profiles: ProfileRow[] | null = null;
      if (found.profiles) {
        const authors = await profilesByIds(
          tx,
          found.profiles.map((p) => Number(p.author_id)),
        );
        profiles = found.profiles.map((p) => ({ ...authors.get(Number(p.author_id))!, ...p }));
      }
      return searchAnswer(rows, profiles, sort, limit, context.corrections);
    },
    // Only at the snapshot's version: the page is the store's order of the posts, and a post changed or removed
    // since a store behind it was written would leave PostgreSQL's look-up short of the page or of its cursor.
    { atVersion: true },
  );
}
