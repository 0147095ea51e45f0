// A query tree as a test of one split post (post.ts), with the meaning server/query/README.md gives it and the
// reference evaluator states (test/support/reference/query.ts): whole words by position, phrases as words in a row,
// wildcards as word prefixes, NEAR by the distance between the operands' nearest ends, CJK, Thai and emoji terms as
// substrings of the lower-cased text, hashtags, mentions and fields as the post's, NOT, AND, OR. The tree is compiled
// once into closures; the matcher runs only those of the queries a post may match.
import type { ProximityLeaf, ProximityOperand, QueryNode } from '../ast';
import { fieldRange, leafText, maskPattern, matchMode } from '../terms';
import { unexpandedList } from '../lists';

/** Whether a number lies within a field's range (both ends included, null: open). */
const inRange =
  ({ min, max }: ReturnType<typeof fieldRange>) =>
  (n: number) =>
    (min === null || n >= min) && (max === null || n <= max);
import { casedWords, lowerText, textWords, type PostView } from './post';

/** A post being matched: its split form, and which substring patterns its lower-cased text holds. */
export interface Scan {
  view: PostView;
  /** `found[id] === stamp` when the text holds substring pattern `id` (SubstringPatterns). */
  found: Int32Array;
  stamp: number;
}

/** The substring patterns of all queries, each numbered once: the matcher finds them all in one pass. */
export class SubstringPatterns {
  readonly patterns: string[] = [];
  private readonly ids = new Map<string, number>();

  id(pattern: string): number {
    let id = this.ids.get(pattern);
    if (id === undefined) {
      id = this.patterns.length;
      this.patterns.push(pattern);
      this.ids.set(pattern, id);
    }
    return id;
  }
}

export type Test = (scan: Scan) => boolean;

/** Where a leaf occurs among the post's words: each occurrence's first and last position. */
interface Span {
  first: number;
  last: number;
}

type Spans = (view: PostView) => Span[];

const never: Test = () => false;

/** The occurrences of words in a row (a term's or a phrase's words; one word: its positions). */
function runSpans(words: string[]): Spans {
  const [head, ...rest] = words;
  if (head === undefined) return () => [];
  return (view) => {
    const spans: Span[] = [];
    for (const first of view.positions.get(head) ?? []) {
      if (rest.every((word, k) => view.words[first + k] === word))
        spans.push({ first, last: first + rest.length });
    }
    return spans;
  };
}

/** The spans of a word, phrase or wildcard matched by words (in a NEAR always, as the reference does). */
function leafSpans(leaf: ProximityLeaf): Spans {
  const fits = wordFit(leaf);
  if (!fits) return runSpans(textWords(leafText(leaf)));
  return (view) => {
    const spans: Span[] = [];
    view.words.forEach((word, i) => {
      if (fits(word)) spans.push({ first: i + 1, last: i + 1 });
    });
    return spans;
  };
}

function operandSpans(operand: ProximityOperand): Spans {
  if (operand.type !== 'or') return leafSpans(operand);
  const each = operand.operands.map(leafSpans);
  return (view) => each.flatMap((spans) => spans(view));
}

/** Whether words in a row occur (cheaper than their spans: stops at the first). */
function hasRun(words: string[]): Test {
  const [head, ...rest] = words;
  if (head === undefined) return never;
  if (rest.length === 0) return ({ view }) => view.positions.has(head);
  return ({ view }) =>
    (view.positions.get(head) ?? []).some((first) => rest.every((word, k) => view.words[first + k] === word));
}

/**
 * A phrase with slop: from a position of one of its words, the next `words + slop` positions hold each of its words as
 * many times as it has it.
 */
function hasLoose(words: string[], slop: number): Test {
  const need = new Map<string, number>();
  for (const word of words) need.set(word, (need.get(word) ?? 0) + 1);
  const size = words.length + slop;
  const wanted = [...need];
  return ({ view }) => {
    if (wanted.some(([word]) => !view.positions.has(word))) return false;
    return wanted.some(([head]) =>
      view.positions
        .get(head)!
        .some((start) =>
          wanted.every(
            ([word, n]) =>
              view.positions.get(word)!.filter((p) => p >= start && p < start + size).length >= n,
          ),
        ),
    );
  };
}

/** A word, phrase or wildcard: by words, or as a substring of the lower-cased text (CJK, Thai, emoji). */
function textTest(leaf: ProximityLeaf, substrings: SubstringPatterns): Test {
  const text = leafText(leaf);
  if (matchMode(text) === 'substring') {
    const id = substrings.id(lowerText(text));
    return ({ found, stamp }) => found[id] === stamp;
  }
  if (leaf.type === 'phrase' && leaf.slop !== undefined) return hasLoose(textWords(text), leaf.slop);
  const fits = wordFit(leaf);
  if (!fits) return hasRun(textWords(leafText(leaf)));
  return ({ view }) => view.words.some(fits);
}

/** Which one word a wildcard or a mask fits (lower-cased); null for a term or phrase (a run of exact words). */
function wordFit(leaf: ProximityLeaf): ((word: string) => boolean) | null {
  if (leaf.type === 'wildcard') {
    const prefix = lowerText(leaf.prefix);
    return (word) => word.startsWith(prefix);
  }
  if (leaf.type !== 'mask') return null;
  const pattern = new RegExp(maskPattern(leaf.value).regex, 'u');
  return (word) => pattern.test(word);
}

/** `node` as a test of a post; its substring terms are numbered in `substrings`. */
export function compileTest(node: QueryNode, substrings: SubstringPatterns): Test {
  switch (node.type) {
    case 'term':
    case 'phrase':
    case 'wildcard':
    case 'mask':
      return textTest(node, substrings);
    case 'cased': {
      const { value } = node;
      return ({ view }) => casedWords(view).has(value);
    }
    case 'hashtag': {
      const { value } = node;
      return ({ view }) => view.hashtags.has(value);
    }
    case 'mention': {
      const { value } = node;
      return ({ view }) => view.mentions.has(value);
    }
    case 'field': {
      const { value } = node;
      switch (node.field) {
        case 'author':
          return ({ view }) => view.handle === value;
        case 'platform':
          return ({ view }) => view.post.platform === value;
        case 'lang':
          return ({ view }) => view.post.language === value;
        case 'country':
          return ({ view }) => view.post.country === value;
        case 'is':
          return ({ view }) => view.post.kind === value;
        case 'engagement': {
          const within = inRange(fieldRange(value));
          return ({ view }) => within(view.post.engagement);
        }
        case 'followers': {
          const within = inRange(fieldRange(value));
          return ({ view }) => within(view.post.followers);
        }
        case 'site':
          return ({ view }) => view.post.domains.includes(value);
        case 'instance': {
          const end = `@${value}`;
          return ({ view }) => view.handle.endsWith(end);
        }
        case 'subreddit':
          return ({ view }) => view.subreddit === value;
      }
      return never;
    }
    case 'list':
      throw unexpandedList(node);
    case 'not': {
      const operand = compileTest(node.operand, substrings);
      return (scan) => !operand(scan);
    }
    case 'and': {
      const operands = node.operands.map((operand) => compileTest(operand, substrings));
      return (scan) => operands.every((test) => test(scan));
    }
    case 'or': {
      const operands = node.operands.map((operand) => compileTest(operand, substrings));
      return (scan) => operands.some((test) => test(scan));
    }
    case 'near': {
      const [left, right, distance] = [operandSpans(node.left), operandSpans(node.right), node.distance];
      const within = (gap: number) => gap >= 1 && gap <= distance;
      const ordered = node.ordered === true;
      return ({ view }) => {
        const rights = right(view);
        if (rights.length === 0) return false;
        return left(view).some((l) =>
          rights.some((r) => within(r.first - l.last) || (!ordered && within(l.first - r.last))),
        );
      };
    }
  }
}
