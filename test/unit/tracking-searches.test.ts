// A tracked query compiled, loosely, to each source's search syntax (server/tracking/searches.ts): the words of its
// cover, one search a word (Hacker News, Bluesky) or joined by the source's OR within its longest query (Reddit and X
// `a OR b` in 512 characters, YouTube `a|b` in 500), and the hashtags a Mastodon tag timeline can be asked for.
import { describe, expect, it } from 'vitest';
import { parseWithLists } from '@server/query/index';
import type { QueryNode } from '@server/query/ast';
import { EACH, hashtagsOf, OR_512, searchesFor, YOUTUBE_OR } from '@server/tracking/searches';

function ast(text: string): QueryNode {
  const parsed = parseWithLists(text, new Map());
  if (!parsed.ok) throw new Error(`unparsable: ${text}`);
  return parsed.ast;
}

// Ten words of 60 letters: 636 characters joined by " OR ", 627 by "|".
const long = 'abcdefghij'.split('').map((c) => c.repeat(60));

describe('searches of a tracked query', () => {
  it('one search a word, the longest first, for sources that require every word', () => {
    expect(searchesFor(EACH, ast('(espresso OR tea) AND NOT decaf'))).toEqual(['espresso', 'tea']);
  });

  it("joins the words by the source's OR, split where the next would pass its longest query", () => {
    const x = searchesFor(OR_512, ast(long.join(' OR ')));
    expect(x).toEqual([long.slice(0, 8).join(' OR '), long.slice(8).join(' OR ')]);
    expect(x.map((s) => s.length)).toEqual([508, 124]);
    const youtube = searchesFor(YOUTUBE_OR, ast(long.join(' OR ')));
    expect(youtube).toEqual([long.slice(0, 8).join('|'), long.slice(8).join('|')]);
    expect(youtube.every((s) => s.length <= 500)).toBe(true);
    expect(searchesFor(YOUTUBE_OR, ast('ristretto OR espresso'))).toEqual(['ristretto|espresso']);
  });

  it('has nothing to search for in a query of fields or NOT alone', () => {
    for (const syntax of [EACH, OR_512, YOUTUBE_OR]) {
      expect(searchesFor(syntax, ast('lang:en'))).toEqual([]);
      expect(searchesFor(syntax, ast('NOT decaf'))).toEqual([]);
    }
  });

  it('asks the tag timelines for the hashtags a query wants, not those it excludes', () => {
    expect(hashtagsOf(ast('(#espresso OR #tea) AND NOT #decaf'))).toEqual(['espresso', 'tea']);
    expect(hashtagsOf(ast('espresso'))).toEqual([]);
  });
});
