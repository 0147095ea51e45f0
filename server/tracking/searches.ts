// A tracked query compiled, loosely, to what a source's search can look for: the words of its cover (the keys of which
// every matching post has one: server/query/match/cover.ts), so the search brings every post the query could match
// and more; the exact query then keeps only the posts it matches. Field keys (author:, lang:, platform:, country:)
// are not words a search finds: a query covered by fields alone, or by none (NOT x), has nothing to search for.
import type { QueryNode } from '@server/query/ast';
import { coverOf } from '@server/query/match/cover';

/** At most this many words a query, searched for (the longest first): the rest of the cover is not polled. */
const MAX_WORDS = 10;

/**
 * How a source's search takes several words: one search a word (`each`: Algolia, which requires every word of a
 * search, and Bluesky's searchPosts, whose boolean syntax is unspecified), or one search of the words joined by the
 * source's OR, split where it would pass the source's longest query.
 */
export type SearchSyntax = { kind: 'each' } | { kind: 'or'; join: string; max: number };

/** Reddit search (512 characters) and X recent search (512 for self-serve projects): `a OR b`. */
export const OR_512: SearchSyntax = { kind: 'or', join: ' OR ', max: 512 };
/** YouTube search's q: `a|b` (https://developers.google.com/youtube/v3/docs/search/list); the job form's 500. */
export const YOUTUBE_OR: SearchSyntax = { kind: 'or', join: '|', max: 500 };
export const EACH: SearchSyntax = { kind: 'each' };

/** The cover's search words, longest first, or none. */
function searchWords(ast: QueryNode): string[] {
  const cover = coverOf(ast);
  if (!cover) return [];
  const words = new Set<string>();
  for (const key of cover.keys) if (key.kind !== 'field') words.add(key.value);
  return [...words].sort((a, b) => b.length - a.length || a.localeCompare(b)).slice(0, MAX_WORDS);
}

/** The searches to poll with `syntax` for the query. Empty: nothing to search for. */
export function searchesFor(syntax: SearchSyntax, ast: QueryNode): string[] {
  const words = searchWords(ast);
  if (syntax.kind === 'each') return words;
  const searches: string[] = [];
  let current = '';
  // A word of letters and digits as it is; anything else (a substring of an unspaced script) in quotes.
  for (const word of words.map((w) => (/^[\p{L}\p{N}]+$/u.test(w) ? w : `"${w}"`))) {
    const next = current ? `${current}${syntax.join}${word}` : word;
    if (next.length > syntax.max && current) {
      searches.push(current);
      current = word;
    } else current = next;
  }
  if (current) searches.push(current);
  return searches;
}

/**
 * The hashtags a query asks for (not under NOT), as a Mastodon tag timeline names them: letters, digits and
 * underscores. A post of the query need not carry one (`#coffee OR espresso`): the tag timelines are a backfill, loose.
 */
export function hashtagsOf(ast: QueryNode): string[] {
  const found = new Set<string>();
  const walk = (node: QueryNode) => {
    if (node.type === 'hashtag' && /^[\p{L}\p{N}_]{1,100}$/u.test(node.value)) found.add(node.value);
    if (node.type === 'and' || node.type === 'or') node.operands.forEach(walk);
  };
  walk(ast);
  return [...found].slice(0, MAX_WORDS);
}
