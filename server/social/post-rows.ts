// Posts and their authors as the social API returns them (socialPostSchema and socialAuthorSchema in
// contract/social-posts.ts), for discover and the dashboards alike: the columns to select over
// `posts p JOIN profiles a`, the row they give, and its mapping to the contract.
import { sql } from 'drizzle-orm';
import type { PostTag, SocialAuthor, SocialPost } from '@contract/social-posts';
import { tagsOfPosts } from '@server/tags/store';
import type { Executor } from '@server/workspaces/access';
import { withCorrection, type Corrections } from './corrections';
import { explainSentiment } from './corpus/sentiment-explain';

/** An author's columns, over `profiles a`. */
export const AUTHOR_COLUMNS = sql`a.id AS author_id, a.platform AS author_platform, a.handle, a.display_name,
  a.followers, a.verified, a.avatar_url, a.country, a.language AS author_language`;

/** A post's columns and its author's, over `posts p JOIN profiles a`. */
export const POST_COLUMNS = sql`p.id, p.platform, p.external_id, p.url, p.text, p.language,
  to_char(p.posted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS posted_at, p.kind, p.media, p.likes,
  p.comments, p.shares, p.views, p.engagement, p.hashtags, p.mentions, p.domains, p.sentiment, p.sentiment_label,
  ${AUTHOR_COLUMNS}`;

/** AUTHOR_COLUMNS as node-postgres gives them: bigint ids arrive as strings. */
export type AuthorRow = {
  author_id: string | number;
  author_platform: SocialAuthor['platform'];
  handle: string;
  display_name: string;
  followers: number;
  verified: boolean;
  avatar_url: string | null;
  country: string | null;
  author_language: string | null;
};

/** POST_COLUMNS as node-postgres gives them. */
export type PostRow = AuthorRow & {
  id: string | number;
  platform: SocialPost['platform'];
  external_id: string;
  url: string | null;
  text: string;
  language: string | null;
  /** ISO 8601 in UTC, to the millisecond. */
  posted_at: string;
  kind: SocialPost['kind'];
  media: SocialPost['media'];
  likes: number;
  comments: number;
  shares: number;
  views: string | number | null;
  engagement: number;
  hashtags: string[];
  mentions: string[];
  domains: string[];
  sentiment: number;
  sentiment_label: SocialPost['sentiment_label'];
  /** The workspace's tags the post carries, when read (withTags). */
  tags?: PostTag[];
};

/**
 * Sets each row's `tags` to those the workspace's posts carry (one statement for every row), when `workspaceId` is
 * given: unset for an answer without a workspace's own view (a shared link's).
 */
export async function withTags<R extends PostRow>(
  db: Executor,
  workspaceId: string | undefined,
  rows: R[],
): Promise<R[]> {
  if (workspaceId === undefined || !rows.length) return rows;
  const tags = await tagsOfPosts(
    db,
    workspaceId,
    rows.map((row) => Number(row.id)),
  );
  return rows.map((row) => ({ ...row, tags: tags.get(Number(row.id)) ?? [] }));
}

export function toAuthor(row: AuthorRow): SocialAuthor {
  return {
    id: Number(row.author_id),
    platform: row.author_platform,
    handle: row.handle,
    display_name: row.display_name,
    followers: row.followers,
    verified: row.verified,
    avatar_url: row.avatar_url,
    country: row.country,
    language: row.author_language,
  };
}

/**
 * The post as the workspace sees it: with its sentiment correction there, if any (../corrections.ts), else, when
 * `explained`, why the estimate is what it is (corpus/sentiment-explain.ts: one pass of the linear model, some tens
 * of µs; left out of exports, which list thousands of posts and have no column for it).
 */
export function toPost(row: PostRow, corrections: Corrections, explained = true): SocialPost {
  const post = withCorrection(toEstimatedPost(row), corrections);
  if (!explained || post.sentiment_correction) return post;
  const { rated, confidence, signals } = explainSentiment(row.text, row.language, row.sentiment_label);
  return { ...post, sentiment_explanation: { rated, confidence, signals } };
}

/** The post as stored, with the lexicon's sentiment estimate. */
function toEstimatedPost(row: PostRow): SocialPost {
  return {
    id: Number(row.id),
    platform: row.platform,
    external_id: row.external_id,
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
    ...(row.tags && { tags: row.tags }),
    author: toAuthor(row),
  };
}
