// How a post's text becomes words, written as the rule the query language's README states, for the reference
// evaluator (test/support/reference). The rule:
//
// - A word is a maximal run of letters, combining marks and digits (\p{L}\p{M}\p{N}); every other character (space,
//   punctuation, `_`, `'`, `#`, `@`, emoji and other symbols) only separates words and takes no position. So
//   `don't` is `don` then `t`, `#LatteArt` holds the word `latteart`, `x🔥y` is `x` then `y`, and a run of CJK
//   (`東京タワーに行った`) is one word.
// - Words are numbered 1, 2, 3 … in order; a phrase is consecutive numbers, NEAR counts the difference.
// - Case does not count: words and substrings are compared lower-cased (String.prototype.toLowerCase).
//
// The store computes the same rule where it is fed (server/analytics/layout.ts, POST_WORDS: ClickHouse's lowerUTF8 and
// re2's classes) and its query side in TypeScript (server/analytics/matching/words.ts); server/query/README.md says what
// this changed from PostgreSQL's 'simple' parser.

/** A word of a text and its position (1-based). */
export interface Token {
  word: string;
  pos: number;
}

const WORD = /[\p{L}\p{M}\p{N}]+/gu;

export const lower = (text: string) => text.toLowerCase();

/** The words of `text`, lower-cased, with their positions. */
export function tokens(text: string): Token[] {
  return [...lower(text).matchAll(WORD)].map((match, i) => ({ word: match[0], pos: i + 1 }));
}

/** The words of `text`, lower-cased, in order (a query term's or phrase's words). */
export const words = (text: string): string[] => tokens(text).map((token) => token.word);
