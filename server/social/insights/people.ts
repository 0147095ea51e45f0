// The people dashboard (top authors by mentions, followers, engagement) and the filtered-profiles drill-down (every
// author of the matching posts, one keyset page at a time). "Mentions" of an author are their matching posts. Each
// reads the analytics store when it holds PostgreSQL's corpus version (store-source.ts), else PostgreSQL; one answer
// function formats either source's rows.
import { sql, type SQL } from 'drizzle-orm';
import type { ProfileSort } from '@contract/insights';
import type { InsightPerson, PeopleResponse, ProfilesResponse } from '@contract/insights-responses';
import { storePeople, storeProfilePage } from '@server/analytics/insights/people';
import type { AnalyticsService } from '@server/analytics/service';
import type { Db } from '@server/db/database';
import { ApiError } from '@server/errors';
import { countedBase } from './counted';
import { decodeCursor, encodeCursor, type Cursor } from './cursor';
import type { InsightScope } from './request';
import { jsonRows, peopleFor, type PersonAggregate } from './rows';
import * as authorTimes from './sources/author-times';
import * as postsScan from './sources/posts-scan';
import { fromStore } from './store-source';
import { readOnly, type Tx } from './transactions';

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

/** The people dashboard's figures, from either source: PostgreSQL's statement's row, or the store's (storePeople). */
export type PeopleFigures = {
  /** Distinct authors of the matching posts (with a profile). */
  authors: number;
  /** Their matching posts. */
  posts: number;
  by_mentions: PersonAggregate[];
  by_followers: PersonAggregate[];
  by_engagement: PersonAggregate[];
};

/** What the people dashboard is made of: the figures, their authors looked up. */
interface PeopleRows {
  authors: number;
  posts: number;
  byMentions: InsightPerson[];
  byFollowers: InsightPerson[];
  byEngagement: InsightPerson[];
}

/**
 * The people dashboard: from the analytics store when it holds exactly the corpus version PostgreSQL's snapshot sees
 * (its figures, then the people they name from PostgreSQL: store-source.ts), else from PostgreSQL alone.
 */
export async function people(
  db: Db,
  context: InsightScope,
  limit: number,
  service?: AnalyticsService,
): Promise<PeopleResponse> {
  const rows =
    (await fromStore(
      db,
      context,
      service,
      (store, storeScope) => storePeople(store, storeScope, limit),
      peopleOf,
    )) ??
    (await readOnly(
      db,
      async (tx) => peopleOf(tx, (await tx.execute<PeopleFigures>(peopleStatement(context, limit))).rows[0]!),
      { timeZone: context.timeZone },
    ));
  return peopleAnswer(context, limit, rows);
}

/** The three tops' authors, looked up in one statement. */
async function peopleOf(tx: Tx, figures: PeopleFigures): Promise<PeopleRows> {
  const { by_mentions: mentions, by_followers: followers, by_engagement: engagement } = figures;
  const everyone = await peopleFor(tx, [...mentions, ...followers, ...engagement]);
  return {
    authors: Number(figures.authors),
    posts: Number(figures.posts),
    byMentions: everyone.slice(0, mentions.length),
    byFollowers: everyone.slice(mentions.length, mentions.length + followers.length),
    byEngagement: everyone.slice(mentions.length + followers.length),
  };
}

/** The answer from the rows, the same whichever source read them. */
function peopleAnswer(context: InsightScope, limit: number, rows: PeopleRows): PeopleResponse {
  const { authors: unique, posts } = rows;
  return {
    time_zone: context.timeZone,
    range: range(context),
    query: context.normalized,
    counted: `${countedBase(context)}; the ${limit} authors with the most matching posts, followers and engagement; ${COUNTED}.`,
    unique_authors: unique,
    average_mentions_per_author: unique ? posts / unique : null,
    by_mentions: rows.byMentions,
    by_followers: rows.byFollowers,
    by_engagement: rows.byEngagement,
  };
}

/**
 * One page of the filtered profiles, from either source: the number of authors, and up to `limit + 1` of them after
 * the cursor in the sort's order, each with its sort key as text (`k`, read back exactly) and its tie-break (`k2`).
 */
export type ProfilePage = {
  total: number;
  page: Array<PersonAggregate & { k: string; k2: number | string }>;
};

/**
 * The filtered profiles, one keyset page: from the analytics store when it holds exactly the corpus version
 * PostgreSQL's snapshot sees (store-source.ts), else from PostgreSQL. Both give the same order and keys, so a cursor
 * from one source's page is read by the other alike.
 */
export async function profileList(
  db: Db,
  context: InsightScope,
  options: { sort: ProfileSort; limit: number; cursor?: string | undefined },
  service?: AnalyticsService,
): Promise<ProfilesResponse> {
  const { sort, limit } = options;
  // Decoded first: the cursor's range becomes the scope's, which either source then reads.
  const cursor = options.cursor ? decodeCursor(options.cursor, context, sort) : null;
  if (cursor && (!/^\d{1,15}$/.test(cursor.key) || cursor.ties.length !== 2)) {
    throw new ApiError(400, 'invalid_cursor', 'This cursor is not valid.');
  }
  const lookUp = async (tx: Tx, figures: ProfilePage) => {
    const page = figures.page.slice(0, limit);
    return { ...figures, profiles: await peopleFor(tx, page) };
  };
  const rows =
    (await fromStore(
      db,
      context,
      service,
      (store, storeScope) => storeProfilePage(store, storeScope, sort, limit, cursor),
      lookUp,
    )) ??
    (await readOnly(
      db,
      async (tx) =>
        lookUp(tx, (await tx.execute<ProfilePage>(profilesStatement(context, sort, limit, cursor))).rows[0]!),
      { timeZone: context.timeZone },
    ));
  return profilesAnswer(context, sort, limit, rows);
}

/** What the filtered profiles count, in words (the list's and its export's). */
export const profilesCounted = (context: InsightScope, sort: ProfileSort) =>
  `${countedBase(context)}; every author of those posts, ${SORT_WORDS[sort]}, then by profile id; ${COUNTED}.`;

/** The page's answer, the same whichever source read it: its profiles and the cursor of the next page. */
function profilesAnswer(
  context: InsightScope,
  sort: ProfileSort,
  limit: number,
  rows: ProfilePage & { profiles: InsightPerson[] },
): ProfilesResponse {
  const last = rows.page.slice(0, limit).at(-1);
  return {
    time_zone: context.timeZone,
    range: range(context),
    query: context.normalized,
    counted: profilesCounted(context, sort),
    sort,
    total: Number(rows.total),
    profiles: rows.profiles,
    next_cursor:
      rows.page.length > limit && last
        ? encodeCursor(
            { key: last.k, ties: [Number(last.k2), Number(last.author_id)], ...range(context) },
            context,
            sort,
          )
        : null,
  };
}
