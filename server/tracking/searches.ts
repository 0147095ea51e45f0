// A tracked query compiled, loosely, to what a source's search can look for: the words of its cover (the keys of which
// every matching post has one: server/query/match/cover.ts), so the search brings every post the query could match
// and more; the exact query then keeps only the posts it matches. Field keys (author:, lang:, platform:, country:)
// are not words a search finds: a query covered by fields alone, or by none (NOT x), has nothing to search for.
import type { QueryNode } from '@server/query/ast';
import { coverOf } from '@server/query/match/cover';

/** At most this many words a query, searched for (the longest first): the rest of the cover is not polled. */
const MAX_WORDS = 10;
/** Reddit's search box takes at most 512 characters. */
const REDDIT_QUERY_MAX = 512;

/** The cover's search words, longest first, or none. */
function searchWords(ast: QueryNode): string[] {
  const cover = coverOf(ast);
  if (!cover) return [];
  const words = new Set<string>();
  for (const key of cover.keys) if (key.kind !== 'field') words.add(key.value);
  return [...words].sort((a, b) => b.length - a.length || a.localeCompare(b)).slice(0, MAX_WORDS);
}

/**
 * The searches to poll on `source` for the query: Hacker News (Algolia requires every word of a search) one search a
 * word; Reddit one search of the words joined by OR, split where it would pass 512 characters. Empty: nothing to
 * search for.
 */
export function searchesFor(source: 'hackernews' | 'reddit', ast: QueryNode): string[] {
  const words = searchWords(ast);
  if (source === 'hackernews') return words;
  const searches: string[] = [];
  let current = '';
  // A word of letters and digits as it is; anything else (a substring of an unspaced script) in quotes.
  for (const word of words.map((w) => (/^[\p{L}\p{N}]+$/u.test(w) ? w : `"${w}"`))) {
    const next = current ? `${current} OR ${word}` : word;
    if (next.length > REDDIT_QUERY_MAX && current) {
      searches.push(current);
      current = word;
    } else current = next;
  }
  if (current) searches.push(current);
  return searches;
}
