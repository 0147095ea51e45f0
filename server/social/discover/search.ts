// Runs a discover search: one page of posts and, on the first page, the top profiles, from the analytics store (the
// page's ids and the profiles' aggregates: insights/store-source.ts), then the posts and profiles looked up by id in
// PostgreSQL's snapshot. The store's statements have DISCOVER_TIMEOUT_MS each; past it the search is 503
// search_timeout.
import { sql } from 'drizzle-orm';
import type { Db } from '@server/db/database';
import { ApiError } from '@server/errors';
import type { DiscoverProfile, DiscoverSort } from '@contract/discover';
import type { SocialPost } from '@contract/social-posts';
import { storeDiscover } from '@server/analytics/figures/discover';
import type { AnalyticsService } from '@server/analytics/service';
import { isStoreTimeout } from '@server/analytics/refusals';
import type { Corrections } from '../corrections';
import { toPost, withTags } from '../post-rows';
import type { InsightScope } from '../insights/request';
import { profilesByIds } from '../insights/rows';
import { fromStore } from '../insights/store-source';
import type { Cursor } from './cursor';
import { after, pageQuery, toProfile, type PageRow } from './queries';

/** A search that runs longer in all is cancelled (503 search_timeout). */
const DISCOVER_TIMEOUT_MS = 5000;
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

const searchTimeout = () =>
  new ApiError(503, 'search_timeout', 'This search took too long: narrow the query or the date range.');

/** One page of a search. */
export interface PageOptions {
  sort: DiscoverSort;
  cursor: Cursor | null;
  limit: number;
}

/**
 * Discover's search of `context` (its scope: range, platforms, languages and query; discover has no refinements): the
 * page's ids (or candidates) and the profiles' aggregates from the store, then in PostgreSQL's snapshot the page's
 * posts in the sort's order after the cursor (as pageQuery orders them) and the profiles by id. A store behind
 * PostgreSQL answers as it is (data_as_of); a post or profile PostgreSQL no longer has is left out.
 */
export async function discoverPosts(
  db: Db,
  context: InsightScope,
  { sort, cursor, limit }: PageOptions,
  service: AnalyticsService | undefined,
): Promise<SearchResult> {
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
      // The ids fetched first, then sorted (pageQuery): given a few hundred ids (a recency page's candidates, every
      // post of a millisecond many share) a walk of each month's partition by time would read every post of the range
      // instead (a language over 90 days at 10M posts: 21 s, against a few ms).
      const rows = found.ids.length
        ? await withTags(
            tx,
            context.tagsOf,
            (
              await tx.execute<PageRow>(
                pageQuery(cursor ? sql`${ids} AND ${after(sort, cursor)}` : ids, sort, limit),
              )
            ).rows,
          )
        : [];
      let profiles: ProfileRow[] | null = null;
      if (found.profiles) {
        const authors = await profilesByIds(
          tx,
          found.profiles.map((p) => Number(p.author_id)),
        );
        profiles = found.profiles.flatMap((p) => {
          const author = authors.get(Number(p.author_id));
          return author ? [{ ...author, ...p }] : [];
        });
      }
      return searchAnswer(rows, profiles, sort, limit, context.corrections);
    },
    { shareMatches: true },
  );
}
