// Which hashtag streams a Mastodon instance is read through for the queries tracked on it (mastodon-stream.ts): the
// hashtags each query names outside a NOT. A hashtag stream brings the instance's public statuses with that tag, so an
// instance whose public stream is closed (it wants sign-in, or its admins keep the live feeds to members) or too broad
// still gives them. Whether those streams alone bring all a query can match: when its cover (the keys of which every
// matching post has one: server/query/match/cover.ts) is hashtags alone.
import type { QueryNode } from '@server/query/ast';
import { coverOf } from '@server/query/match/cover';

export interface QueryTags {
  /** The hashtags the query names outside a NOT (lower case, without '#'): each is streamed. */
  tags: string[];
  /** When every post the query matches carries one of these hashtags: the streams of them collect all it matches. */
  enough: string[] | null;
}

function named(node: QueryNode, into: Set<string>) {
  if (node.type === 'hashtag') into.add(node.value);
  else if (node.type === 'and' || node.type === 'or')
    for (const operand of node.operands) named(operand, into);
}

export function queryTags(ast: QueryNode): QueryTags {
  const tags = new Set<string>();
  named(ast, tags);
  const cover = coverOf(ast);
  const hashtagsOnly =
    cover !== null && cover.keys.length > 0 && cover.keys.every((key) => key.kind === 'hashtag');
  return {
    tags: [...tags].sort(),
    enough: hashtagsOnly ? [...new Set(cover.keys.map((key) => key.value))].sort() : null,
  };
}
