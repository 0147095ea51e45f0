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
// Today the store is fed PostgreSQL's `to_tsvector('simple', text)` lexemes (database locale C.UTF-8), which agree
// with this rule on the texts the generated corpora write: words of letters and digits (Latin with or without accents,
// Hangul, kana, Han), CJK and emoji runs, hashtags and mentions, plain punctuation. They do not agree on what the
// corpora therefore leave out: URLs, e-mail addresses, host names and paths (PostgreSQL keeps them as whole tokens
// besides their parts), hyphenated words (`covid-19` is three lexemes there), numbers with a point or a sign (`1.5`),
// fractions and other digits that are not \p{Nd} (`½` has no lexeme), characters whose lower case differs between
// the JavaScript and the C.UTF-8 locale (`İ`), and texts past PostgreSQL's 16,383 positions.

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
