// Runs a discover search: one page of posts and, on the first page, the top profiles, in one read-only transaction
// under one time budget (statement_timeout set to what is left of it before each statement), so an expensive search
// is cancelled rather than left running.
import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '@server/db/database';
import { ApiError } from '@server/errors';
import type { DiscoverProfile, DiscoverSort } from '@contract/discover';
import type { SocialPost } from '@contract/social-posts';
import { toPost } from '../post-rows';
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

export interface SearchOptions {
  where: SQL;
  sort: DiscoverSort;
  cursor: Cursor | null;
  limit: number;
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
  const { where, sort, cursor, limit } = options;
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
        const page = rows.slice(0, limit);
        const last = page.at(-1);
        const next =
          rows.length > limit && last
            ? { k: sort === 'recency' ? last.posted_key : last.engagement, id: Number(last.id) }
            : null;
        // The profiles summarise every match, so only the first page pays for them.
        let profiles: DiscoverProfile[] | null = null;
        if (!cursor) {
          await setTimeoutLocal(tx, remaining());
          profiles = (await tx.execute<Parameters<typeof toProfile>[0]>(profilesQuery(where))).rows.map(
            toProfile,
          );
        }
        return { posts: page.map(toPost), next, profiles };
      },
      { accessMode: 'read only' },
    );
  } catch (error) {
    if (isStatementTimeout(error)) throw searchTimeout();
    throw error;
  }
}
