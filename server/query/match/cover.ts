// Which queries a post may match, without testing them all: for each query a cover, a set of keys (words, word
// prefixes, substrings, hashtags, mentions, field values) such that every post the query matches has at least one of
// them. A post's keys then name its candidate queries through the index (index.ts). Derived from the tree: a leaf is
// its own key (a term or phrase by one of its words, which every occurrence holds); AND, its cheapest operand's
// cover; OR, the union of its operands' (none when one has none); NOT, none. A query without a cover (`NOT x`) is
// tested on every post. An empty cover is a query that matches nothing (a phrase of no words).
import type { ProximityLeaf, ProximityOperand, QueryField, QueryNode } from '../ast';
import { leafText, maskPattern, matchMode } from '../terms';
import { unexpandedList } from '../lists';
import { lowerText, textWords } from './post';

export type CoverKey =
  | { kind: 'word' | 'prefix' | 'substring' | 'hashtag' | 'mention'; value: string }
  | { kind: 'field'; field: QueryField; value: string };

export interface Cover {
  keys: CoverKey[];
  /** A guess at how many posts the keys bring, relative: what AND chooses its operand by. */
  cost: number;
}

/** Fields most posts share a value of (a platform, a language, a country) bring many candidates. */
const FIELD_COST: Record<IndexedField, number> = {
  author: 1,
  subreddit: 5,
  country: 30,
  lang: 50,
  platform: 50,
};
/**
 * The fields whose value a post has one of (or none: a subreddit), which the index looks up; `is:`, `site:`,
 * `instance:` and the ranges are tested on the post.
 */
const INDEXED = new Set<QueryField>(['author', 'country', 'lang', 'platform', 'subreddit']);
type IndexedField = 'author' | 'country' | 'lang' | 'platform' | 'subreddit';

const one = (key: CoverKey, cost: number): Cover => ({ keys: [key], cost });
const nothing: Cover = { keys: [], cost: 0 };

/** A term's or phrase's words in a row: its longest word (the rarest, as a guess), which each occurrence holds. */
function runCover(text: string): Cover {
  const words = textWords(text);
  if (words.length === 0) return nothing;
  const longest = words.reduce((a, b) => (b.length > a.length ? b : a));
  return one({ kind: 'word', value: longest }, longest.length < 3 ? 3 : 1);
}

/** A word, phrase or wildcard matched by words (as in a NEAR). */
function wordsCover(leaf: ProximityLeaf): Cover {
  if (leaf.type === 'mask') {
    const { prefix } = maskPattern(leaf.value);
    return one({ kind: 'prefix', value: prefix }, prefix.length < 4 ? 8 : 2);
  }
  if (leaf.type !== 'wildcard') return runCover(leaf.value);
  const prefix = lowerText(leaf.prefix);
  return one({ kind: 'prefix', value: prefix }, prefix.length < 4 ? 8 : 2);
}

function textCover(leaf: ProximityLeaf): Cover {
  const text = leafText(leaf);
  if (matchMode(text) !== 'substring') return wordsCover(leaf);
  const pattern = lowerText(text);
  return one({ kind: 'substring', value: pattern }, pattern.length < 2 ? 5 : 1);
}

function union(covers: Cover[]): Cover {
  return { keys: covers.flatMap((cover) => cover.keys), cost: covers.reduce((sum, c) => sum + c.cost, 0) };
}

const operandCover = (operand: ProximityOperand): Cover =>
  operand.type === 'or' ? union(operand.operands.map(wordsCover)) : wordsCover(operand);

/** The cover of `node`; null when it has none short of every post. */
export function coverOf(node: QueryNode): Cover | null {
  switch (node.type) {
    case 'term':
    case 'phrase':
    case 'wildcard':
    case 'mask':
      return textCover(node);
    case 'cased':
      return runCover(node.value);
    case 'hashtag':
    case 'mention':
      return one({ kind: node.type, value: node.value }, 1);
    case 'field':
      if (!INDEXED.has(node.field)) return null;
      return one(
        { kind: 'field', field: node.field, value: node.value },
        FIELD_COST[node.field as IndexedField],
      );
    case 'near': {
      const [left, right] = [operandCover(node.left), operandCover(node.right)];
      return left.cost <= right.cost ? left : right;
    }
    case 'list':
      throw unexpandedList(node);
    case 'not':
      return null;
    case 'and': {
      let best: Cover | null = null;
      for (const operand of node.operands) {
        const cover = coverOf(operand);
        if (cover && (best === null || cover.cost < best.cost)) best = cover;
      }
      return best;
    }
    case 'or': {
      const covers: Cover[] = [];
      for (const operand of node.operands) {
        const cover = coverOf(operand);
        if (cover === null) return null;
        covers.push(cover);
      }
      return union(covers);
    }
  }
}
