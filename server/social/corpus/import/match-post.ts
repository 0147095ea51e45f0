// A row as the importer stores it, as the query matcher (server/query/match) reads a post: what collection for
// tracked queries (server/tracking/poll.ts, server/scraping/streams) tests before it stores a post.
import type { MatchPost } from '@server/query/match/index';
import type { ImportRow } from './normalise';

export const matchPostOf = (row: ImportRow): MatchPost => ({
  text: row.text,
  platform: row.platform,
  language: row.language,
  hashtags: row.hashtags,
  mentions: row.mentions,
  handle: row.author.handle,
  country: row.author.country ?? null,
  kind: row.kind ?? 'original',
  engagement: (row.likes ?? 0) + (row.comments ?? 0) + (row.shares ?? 0),
  followers: row.author.followers ?? 0,
  domains: row.domains,
  url: row.url ?? null,
});
