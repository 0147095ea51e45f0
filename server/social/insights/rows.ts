// Posts and people as the dashboards return them: posts and profiles looked up by id in PostgreSQL (columns and
// mapping shared with discover in ../post-rows.ts), a post with its overperformance, an author with their aggregate.
import { sql } from 'drizzle-orm';
import type { InsightPerson, InsightPost } from '@contract/insights-responses';
import {
  AUTHOR_COLUMNS,
  POST_COLUMNS,
  toAuthor,
  toPost as toSocialPost,
  withTags,
  type AuthorRow,
  type PostRow,
} from '../post-rows';
import type { Corrections } from '../corrections';
import type { PersonAggregate } from '@server/analytics/figures/people';
import type { InsightScope } from './request';
import type { Tx } from './transactions';

export type { PersonAggregate };

/**
 * A post as the dashboards list it: with its overperformance (sort `overperformance` only, else null) and, unless
 * `explained` is false (exports), its sentiment's explanation.
 */
export function toPost(
  row: PostRow,
  corrections: Corrections,
  overperformance: number | null = null,
  explained = true,
): InsightPost {
  return { ...toSocialPost(row, corrections, explained), overperformance };
}

/**
 * The posts with these ids, by id, within the range of the request's scope, each with the workspace's tags it carries
 * (unless the request shows none: a shared link's). Each post's author is looked up by its key (a lateral subquery
 * that OFFSET 0 keeps from being flattened into a join): for the 1 000 posts of an export's page the planner otherwise
 * hashes every profile (a scan of 66 000 profiles: 60 to 250 ms a page on the 1M-post corpus, against 25 to 30 ms).
 */
export async function postsByIds(
  tx: Tx,
  ids: number[],
  { scope: range, tagsOf }: Pick<InsightScope, 'scope' | 'tagsOf'>,
): Promise<Map<number, PostRow>> {
  if (!ids.length) return new Map();
  // The posts are the range's (a dashboard lists posts of its scope): its months' partitions alone are read.
  const result = await tx.execute<PostRow>(
    sql`SELECT ${POST_COLUMNS} FROM posts p
      CROSS JOIN LATERAL (SELECT * FROM profiles a WHERE a.id = p.author_id OFFSET 0) a
      WHERE p.id = ANY(${sql.param(ids)}::bigint[])
        AND p.posted_at >= ${range.from.toISOString()}::timestamptz AND p.posted_at < ${range.to.toISOString()}::timestamptz`,
  );
  const rows = await withTags(tx, tagsOf, result.rows);
  return new Map(rows.map((row) => [Number(row.id), row]));
}

export async function profilesByIds(tx: Tx, ids: number[]): Promise<Map<number, AuthorRow>> {
  if (!ids.length) return new Map();
  const result = await tx.execute<AuthorRow>(
    sql`SELECT ${AUTHOR_COLUMNS} FROM profiles a WHERE a.id = ANY(${sql.param(ids)}::bigint[])`,
  );
  return new Map(result.rows.map((row) => [Number(row.author_id), row]));
}

function toPerson(profile: AuthorRow, aggregate: PersonAggregate): InsightPerson {
  return {
    ...toAuthor(profile),
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
