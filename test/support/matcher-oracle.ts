// The many-query matcher (server/query/match) held to the reference evaluator (test/support/reference/query.ts): the
// reference's post as the matcher's, and the ids of the queries the reference says a post matches.
import type { MatchPost, TrackedQuery } from '@server/query/match/index';
import { matching, parsed, type RefPost } from './reference/query';

/** A reference post with only the fields the query language reads given (the others neutral). */
export const refPost = (fields: Partial<RefPost> & { text: string }): RefPost => ({
  id: 1,
  at: 0,
  platform: 'x',
  language: null,
  kind: 'original',
  media: 'text',
  likes: 0,
  comments: 0,
  shares: 0,
  views: null,
  hashtags: [],
  mentions: [],
  domains: [],
  url: null,
  sentiment: 0,
  label: 'neutral',
  rated: true,
  authorId: 1,
  handle: 'someone',
  followers: 0,
  country: null,
  ...fields,
});

/** The reference's post as the matcher reads it. */
export const matchPostOf = (post: RefPost): MatchPost => ({
  text: post.text,
  platform: post.platform,
  language: post.language,
  hashtags: post.hashtags,
  mentions: post.mentions,
  handle: post.handle,
  country: post.country,
  kind: post.kind,
  engagement: post.likes + post.comments + post.shares,
  followers: post.followers,
  domains: post.domains,
  url: post.url,
});

/** Query texts as tracked queries, numbered q0, q1 … in order. */
export const tracked = (texts: readonly string[]): TrackedQuery[] =>
  texts.map((text, i) => ({ id: `q${i}`, ast: parsed(text) }));

/** The ids of the queries the reference evaluator says `post` matches, in the queries' order. */
export const referenceIds = (queries: readonly TrackedQuery[], post: RefPost): string[] =>
  queries.filter((query) => matching(query.ast, [post]).length === 1).map((query) => query.id);
