// Posts and people as the dashboards return them: the columns to select and the mapping of a row to the contract.
import { sql, type SQL } from 'drizzle-orm';
import type { InsightPerson, InsightPost } from '../../../src/contract/insights-responses';
import type { Tx } from './transactions';

/** The columns of a post and its author, over `posts p JOIN profiles a`. */
export const POST_COLUMNS = sql`p.id, p.platform, p.url, p.text, p.language,
  to_char(p.posted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS posted_at, p.kind, p.media, p.likes,
  p.comments, p.shares, p.views, p.engagement, p.hashtags, p.mentions, p.domains, p.sentiment, p.sentiment_label,
  a.id AS author_id, a.platform AS author_platform, a.handle, a.display_name, a.followers, a.verified, a.country,
  a.language AS author_language`;

export type PostRow = {
  id: string | number;
  platform: InsightPost['platform'];
  url: string | null;
  text: string;
  language: string | null;
  /** ISO 8601 in UTC, to the millisecond. */
  posted_at: string;
  kind: InsightPost['kind'];
  media: InsightPost['media'];
  likes: number;
  comments: number;
  shares: number;
  views: string | number | null;
  engagement: number;
  hashtags: string[];
  mentions: string[];
  domains: string[];
  sentiment: number;
  sentiment_label: InsightPost['sentiment_label'];
  author_id: string | number;
  author_platform: InsightPost['platform'];
  handle: string;
  display_name: string;
  followers: number;
  verified: boolean;
  country: string | null;
  author_language: string | null;
};

export function toPost(row: PostRow, overperformance: number | null = null): InsightPost {
  return {
    id: Number(row.id),
    platform: row.platform,
    url: row.url,
    text: row.text,
    language: row.language,
    posted_at: row.posted_at,
    kind: row.kind,
    media: row.media,
    likes: row.likes,
    comments: row.comments,
    shares: row.shares,
    views: row.views === null ? null : Number(row.views),
    engagement: row.engagement,
    hashtags: row.hashtags,
    mentions: row.mentions,
    domains: row.domains,
    sentiment: row.sentiment,
    sentiment_label: row.sentiment_label,
    overperformance,
    author: {
      id: Number(row.author_id),
      platform: row.author_platform,
      handle: row.handle,
      display_name: row.display_name,
      followers: row.followers,
      verified: row.verified,
      country: row.country,
      language: row.author_language,
    },
  };
}

/** The posts with these ids, in the order of `ids`. */
export async function postsByIds(tx: Tx, ids: number[]): Promise<Map<number, PostRow>> {
  if (!ids.length) return new Map();
  const result = await tx.execute<PostRow>(
    sql`SELECT ${POST_COLUMNS} FROM posts p JOIN profiles a ON a.id = p.author_id WHERE p.id = ANY(${sql.param(ids)}::bigint[])`,
  );
  return new Map(result.rows.map((row) => [Number(row.id), row]));
}

/** An author's aggregate over the matching posts, as SQL yields it. */
export type PersonAggregate = {
  author_id: string | number;
  mentions: string | number;
  engagement: string | number;
};

export const PERSON_COLUMNS = sql`a.id, a.platform, a.handle, a.display_name, a.followers, a.verified, a.country,
  a.language`;

type ProfileRow = {
  id: string | number;
  platform: InsightPerson['platform'];
  handle: string;
  display_name: string;
  followers: number;
  verified: boolean;
  country: string | null;
  language: string | null;
};

export async function profilesByIds(tx: Tx, ids: number[]): Promise<Map<number, ProfileRow>> {
  if (!ids.length) return new Map();
  const result = await tx.execute<ProfileRow>(
    sql`SELECT ${PERSON_COLUMNS} FROM profiles a WHERE a.id = ANY(${sql.param(ids)}::bigint[])`,
  );
  return new Map(result.rows.map((row) => [Number(row.id), row]));
}

export function toPerson(profile: ProfileRow, aggregate: PersonAggregate): InsightPerson {
  return {
    id: Number(profile.id),
    platform: profile.platform,
    handle: profile.handle,
    display_name: profile.display_name,
    followers: profile.followers,
    verified: profile.verified,
    country: profile.country,
    language: profile.language,
    mentions: Number(aggregate.mentions),
    engagement: Number(aggregate.engagement),
  };
}

/** People for aggregates in order, their profiles fetched in one statement. */
export async function peopleFor(tx: Tx, aggregates: PersonAggregate[]): Promise<InsightPerson[]> {
  const profiles = await profilesByIds(
    tx,
    aggregates.map((a) => Number(a.author_id)),
  );
  return aggregates.map((aggregate) => toPerson(profiles.get(Number(aggregate.author_id))!, aggregate));
}

/** A json_agg of a subquery, as an array (null when it has no rows). */
export const jsonRows = (subquery: SQL) =>
  sql`(SELECT coalesce(json_agg(t), '[]'::json) FROM (${subquery}) t)`;
