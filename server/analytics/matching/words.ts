// A query's own words, by the rule the store computes the posts' words with (layout.ts, POST_WORDS; the rule is
// server/query/README.md's and test/support/reference/tokens.ts's): a word is a maximal run of letters, combining marks
// and digits of the lower-cased text, numbered 1, 2, 3 … in order. A term or phrase is its words in a row, a wildcard
// every word that starts with its lower-cased prefix, NEAR the distance between the ends of its operands. Substring
// terms (CJK, Thai, emoji: server/query/terms.ts) are lower-cased and narrowed by their grams (queryGrams). Nothing
// here asks PostgreSQL: the query and the store's posts are split by the one rule, in TypeScript and in the store.
import type { ProximityLeaf, ProximityOperand, QueryNode } from '@server/query/index';
import { maskPattern } from '@server/query/terms';
import { SCRIPT_CLASSES } from './scripts';

/** Lower-casing as the store's lowerUTF8 does it (ICU's full mapping: the two agree, layout.ts LOWERED_TEXT). */
export const lowerText = (text: string) => text.toLowerCase();

const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/** The words of `text`, lower-cased, in order. */
const textWords = (text: string): string[] => lowerText(text).match(WORD) ?? [];

/**
 * A word; with `prefix`, every word that starts with it (byte-wise, as the lexicon compares); with `pattern` too, only
 * those of them that the regular expression matches whole (a mask: server/query/terms.ts, maskPattern).
 */
export interface WordVal {
  type: 'val';
  word: string;
  prefix: boolean;
  pattern?: string;
}

/** Words in a row: the last one's positions whose predecessors stand right before it. */
interface WordPhrase {
  type: 'phrase';
  words: WordVal[];
}

/** A word or words in a row: what a term, a phrase or a wildcard is, and what NEAR joins. */
export type WordSpan = WordVal | WordPhrase;

/**
 * What a text leaf or a NEAR matches by the posts' word positions:
 * - a span (WordSpan);
 * - `near`: `right` begins 1 to `distance` positions after `left` ends, or (unless `ordered`) `left` after `right`;
 * - `or`: any of its operands (a NEAR of an operand group: one NEAR for each pair of the groups' members);
 * - `loose`: a phrase with slop, each of its words as many times as it has it within a run of `size` positions.
 */
export type WordTree =
  | WordSpan
  | { type: 'loose'; words: WordVal[]; size: number }
  | { type: 'near'; distance: number; ordered: boolean; left: WordSpan; right: WordSpan }
  | { type: 'or'; operands: WordTree[] };

/** A term, phrase or wildcard by words; null when it has none (a phrase of punctuation alone): it matches nothing. */
function leafSpan(leaf: ProximityLeaf): WordSpan | null {
  if (leaf.type === 'wildcard') return { type: 'val', word: lowerText(leaf.prefix), prefix: true };
  if (leaf.type === 'mask') {
    const { prefix, regex } = maskPattern(leaf.value);
    return { type: 'val', word: prefix, prefix: true, pattern: regex };
  }
  const vals = textWords(leaf.value).map((word): WordVal => ({ type: 'val', word, prefix: false }));
  if (vals.length === 0) return null;
  return vals.length === 1 ? vals[0]! : { type: 'phrase', words: vals };
}

const operandSpans = (operand: ProximityOperand): WordSpan[] =>
  (operand.type === 'or' ? operand.operands : [operand])
    .map(leafSpan)
    .filter((span): span is WordSpan => span !== null);

/** The word tree of a term, phrase, wildcard or NEAR matched by words; null when it can match nothing. */
export function wordTree(node: ProximityLeaf | Extract<QueryNode, { type: 'near' }>): WordTree | null {
  if (node.type === 'phrase' && node.slop !== undefined) {
    const words = textWords(node.value).map((word): WordVal => ({ type: 'val', word, prefix: false }));
    return { type: 'loose', words, size: words.length + node.slop };
  }
  if (node.type !== 'near') return leafSpan(node);
  const [lefts, rights] = [operandSpans(node.left), operandSpans(node.right)];
  const pairs: WordTree[] = lefts.flatMap((left) =>
    rights.map((right) => ({
      type: 'near' as const,
      distance: node.distance,
      ordered: node.ordered === true,
      left,
      right,
    })),
  );
  if (pairs.length === 0) return null;
  return pairs.length === 1 ? pairs[0]! : { type: 'or', operands: pairs };
}

/** The gram characters (matching/scripts.ts), and a run of any others: each run is one space in the grams' text. */
const OTHER_RUN = new RegExp(
  `[^${SCRIPT_CLASSES.flat()
    .map(([lo, hi]) => `\\u{${lo.toString(16)}}-\\u{${hi.toString(16)}}`)
    .join('')}]+`,
  'gu',
);

/**
 * The grams of `text`: each gram character of its lower-cased text and each pair of neighbouring characters, once
 * each run of other characters is made one space (a pair may hold one space; a space alone is no gram). As
 * PostgreSQL's post_text_grams (migration 0011) computed them and the store computes a post's (matching/scripts.ts,
 * postGramsSql), as a set.
 */
export function textGrams(text: string): string[] {
  const chars = [...lowerText(text).replace(OTHER_RUN, ' ')];
  const grams = new Set(chars.filter((char) => char !== ' '));
  for (let i = 0; i + 1 < chars.length; i += 1) grams.add(chars[i]! + chars[i + 1]!);
  return [...grams];
}

/**
 * The grams a post containing the substring term `term` has, and that narrow the posts most: the term's pairs, or
 * its one character (a term of one). As PostgreSQL's post_text_query_grams (migration 0011) computed them: a post
 * containing the term has every one.
 */
export function queryGrams(term: string): string[] {
  const length = Math.min([...lowerText(term)].length, 2);
  return textGrams(term).filter((gram) => [...gram].length === length);
}
