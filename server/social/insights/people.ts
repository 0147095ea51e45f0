// The people dashboard (top authors by mentions, followers, engagement) and the filtered-profiles drill-down (every
// author of the matching posts, one keyset page at a time). "Mentions" of an author are their matching posts.
import { sql, type SQL } from 'drizzle-orm';
import type { ProfileSort } from '@contract/insights';
import type { PeopleResponse, ProfilesResponse } from '@contract/insights-responses';
import type { Db } from '@server/db/database';
import { ApiError } from '@server/errors';
import { countedBase } from './counted';
import { decodeCursor, encodeCursor, type Cursor } from './cursor';
import type { InsightScope } from './request';
import { jsonRows, peopleFor, type PersonAggregate } from './rows';
import * as authorTimes from './sources/author-times';
import * as postsScan from './sources/posts-scan';
import { readOnly } from './transactions';

/** Each sort: its key, then the tie-break, then the profile id ascending. */
const ORDER: Record<ProfileSort, [string, string]> = {
  mentions: ['n', 'e'],
  followers: ['f', 'n'],
  engagement: ['e', 'n'],
};
const SORT_WORDS: Record<ProfileSort, string> = {
  mentions: 'most matching posts first, then most engagement',
  followers: 'most followers first, then most matching posts',
  engagement: 'most engagement first, then most matching posts',
};

/**
 * Where people and filtered profiles read each author's matching posts (n), their engagement (e) and followers (f):
 * from author_post_times when it serves (the condition reads only the platform and the language, over at least
 * AUTHOR_TIMES_MIN_DAYS: one pass over one row per author, platform and language, which keeps the followers), else
 * from the posts grouped by author, profiles joined after grouping.
 */
function authors(context: InsightScope) {
  if (authorTimes.authorPostTimes.serves(context)) return authorTimes.authorFigures(context);
  return postsScan.authorFigures(context);
}

function top(sort: ProfileSort, limit: number, cursor: Cursor | null = null): SQL {
  const [first, second] = ORDER[sort].map((column) => sql.raw(column)) as [SQL, SQL];
  // Descending keys, ascending id: the row comparison negates the id.
  const after = cursor
    ? sql`WHERE (${first}, ${second}, -author_id) < (${cursor.key}::bigint, ${cursor.ties[0]!}::bigint, ${-cursor.ties[1]!}::bigint)`
    : sql``;
  // The keys are printed after the limit: converting every author's key to text cost more than the sort.
  return sql`SELECT author_id, n AS mentions, e AS engagement, ${first}::text AS k, ${second} AS k2
    FROM (SELECT * FROM g ${after} ORDER BY ${first} DESC, ${second} DESC, author_id LIMIT ${limit}) s`;
}

const range = ({ scope }: InsightScope) => ({ from: scope.from.toISOString(), to: scope.to.toISOString() });

const COUNTED =
  "an author's mentions are their matching posts, their engagement those posts' likes + comments + shares, and " +
  'their followers as the profile has them now';

const peopleStatement = (context: InsightScope, limit: number) => sql`WITH g AS MATERIALIZED (
    ${authors(context)})
  SELECT (SELECT count(*) FROM g)::int AS authors, (SELECT coalesce(sum(n), 0) FROM g)::int AS posts,
    ${jsonRows(top('mentions', limit))} AS by_mentions, ${jsonRows(top('followers', limit))} AS by_followers,
    ${jsonRows(top('engagement', limit))} AS by_engagement`;

const profilesStatement = (context: InsightScope, sort: ProfileSort, limit: number, cursor: Cursor | null) =>
  sql`WITH g AS MATERIALIZED (${authors(context)})
    SELECT (SELECT count(*) FROM g)::int AS total, ${jsonRows(top(sort, limit + 1, cursor))} AS page`;

export async function people(db: Db, context: InsightScope, limit: number): Promise<PeopleResponse> {
  const statement = peopleStatement(context, limit);
  return readOnly(
    db,
    async (tx) => {
      const [row] = (
        await tx.execute<{
          authors: number;
          posts: number;
          by_mentions: PersonAggregate[];
          by_followers: PersonAggregate[];
          by_engagement: PersonAggregate[];
        }>(statement)
      ).rows;
      const { authors: unique, posts } = row!;
      const everyone = await peopleFor(tx, [
        ...row!.by_mentions,
        ...row!.by_followers,
        ...row!.by_engagement,
      ]);
      const byMentions = everyone.slice(0, row!.by_mentions.length);
      const byFollowers = everyone.slice(byMentions.length, byMentions.length + row!.by_followers.length);
      const byEngagement = everyone.slice(byMentions.length + byFollowers.length);
      return {
        time_zone: context.timeZone,
        range: range(context),
        query: context.normalized,
        counted: `${countedBase(context)}; the ${limit} authors with the most matching posts, followers and engagement; ${COUNTED}.`,
        unique_authors: unique,
        average_mentions_per_author: unique ? posts / unique : null,
        by_mentions: byMentions,
        by_followers: byFollowers,
        by_engagement: byEngagement,
      };
    },
    { timeZone: context.timeZone },
  );
}

export async function profileList(
  db: Db,
  context: InsightScope,
  options: { sort: ProfileSort; limit: number; cursor?: string | undefined },
): Promise<ProfilesResponse> {
  const { sort, limit } = options;
  const cursor = options.cursor ? decodeCursor(options.cursor, context, sort) : null;
  if (cursor && (!/^\d{1,15}$/.test(cursor.key) || cursor.ties.length !== 2)) {
    throw new ApiError(400, 'invalid_cursor', 'This cursor is not valid.');
  }
  const statement = profilesStatement(context, sort, limit, cursor);
  return readOnly(
    db,
    async (tx) => {
      const [row] = (
        await tx.execute<{ total: number; page: Array<PersonAggregate & { k: string; k2: number }> }>(
          statement,
        )
      ).rows;
      const page = row!.page.slice(0, limit);
      const last = page.at(-1);
      return {
        time_zone: context.timeZone,
        range: range(context),
        query: context.normalized,
        counted: `${countedBase(context)}; every author of those posts, ${SORT_WORDS[sort]}, then by profile id; ${COUNTED}.`,
        sort,
        total: row!.total,
        profiles: await peopleFor(tx, page),
        next_cursor:
          row!.page.length > limit && last
            ? encodeCursor(
                { key: last.k, ties: [Number(last.k2), Number(last.author_id)], ...range(context) },
                context,
                sort,
              )
            : null,
      };
    },
    { timeZone: context.timeZone },
  );
}
