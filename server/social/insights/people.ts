// The people dashboard (top authors by mentions, followers, engagement) and the filtered-profiles drill-down (every
// author of the matching posts, one keyset page at a time). "Mentions" of an author are their matching posts. The
// analytics store gives each author's figures (server/analytics/figures/people.ts); their profiles are then looked up
// by id in PostgreSQL (store-source.ts).
import type { ProfileSort } from '@contract/insights';
import type { InsightPerson, PeopleResponse, ProfilesResponse } from '@contract/insights-responses';
import {
  storePeople,
  storeProfilePage,
  type PeopleFigures,
  type ProfilePage,
} from '@server/analytics/figures/people';
import type { AnalyticsService } from '@server/analytics/service';
import type { Db } from '@server/db/database';
import { ApiError } from '@server/errors';
import { countedBase } from './counted';
import { decodeCursor, encodeCursor } from './cursor';
import type { InsightScope } from './request';
import { peopleFor } from './rows';
import { fromStore } from './store-source';
import type { Tx } from './transactions';

const SORT_WORDS: Record<ProfileSort, string> = {
  mentions: 'most matching posts first, then most engagement',
  followers: 'most followers first, then most matching posts',
  engagement: 'most engagement first, then most matching posts',
};

const range = ({ scope }: InsightScope) => ({ from: scope.from.toISOString(), to: scope.to.toISOString() });

const COUNTED =
  "an author's mentions are their matching posts, their engagement those posts' likes + comments + shares, and " +
  'their followers as the profile has them now';

/** What the people dashboard is made of: the figures, their authors looked up. */
interface PeopleRows {
  authors: number;
  posts: number;
  byMentions: InsightPerson[];
  byFollowers: InsightPerson[];
  byEngagement: InsightPerson[];
}

/** The people dashboard: the store's figures, then the people they name looked up in PostgreSQL. */
export async function people(
  db: Db,
  context: InsightScope,
  limit: number,
  service?: AnalyticsService,
): Promise<PeopleResponse> {
  const rows = await fromStore(
    db,
    context,
    service,
    (store, storeScope) => storePeople(store, storeScope, limit),
    peopleOf,
  );
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

/** The answer from the rows. */
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

/** The filtered profiles, one keyset page: the store's page, its profiles looked up in PostgreSQL. */
export async function profileList(
  db: Db,
  context: InsightScope,
  options: { sort: ProfileSort; limit: number; cursor?: string | undefined },
  service?: AnalyticsService,
): Promise<ProfilesResponse> {
  const { sort, limit } = options;
  // Decoded first: the cursor's range becomes the scope's, which the store then reads.
  const cursor = options.cursor ? decodeCursor(options.cursor, context, sort) : null;
  if (cursor && (!/^\d{1,15}$/.test(cursor.key) || cursor.ties.length !== 2)) {
    throw new ApiError(400, 'invalid_cursor', 'This cursor is not valid.');
  }
  const lookUp = async (tx: Tx, figures: ProfilePage) => {
    const page = figures.page.slice(0, limit);
    return { ...figures, profiles: await peopleFor(tx, page) };
  };
  const rows = await fromStore(
    db,
    context,
    service,
    (store, storeScope) => storeProfilePage(store, storeScope, sort, limit, cursor),
    lookUp,
  );
  return profilesAnswer(context, sort, limit, rows);
}

/** What the filtered profiles count, in words (the list's and its export's). */
export const profilesCounted = (context: InsightScope, sort: ProfileSort) =>
  `${countedBase(context)}; every author of those posts, ${SORT_WORDS[sort]}, then by profile id; ${COUNTED}.`;

/** The page's answer: its profiles and the cursor of the next page. */
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
