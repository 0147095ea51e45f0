// The query language's meaning (server/query/README.md) evaluated on one post, in plain TypeScript: the reference
// the store's compiled queries are held to. The tree comes from the real parser (server/query); only its evaluation
// is written again here, for clarity rather than speed.
import type { ProximityLeaf, ProximityOperand, QueryNode } from '@server/query/index';
import { parseQuery } from '@server/query/index';
import { leafText, matchMode } from '@server/query/terms';
import { unexpandedList } from '@server/query/lists';
import { lower, tokens, words, type Token } from './tokens';

/** A post as the reference sees it: the record's columns and its author's. */
export interface RefPost {
  id: number;
  /** posted_at in ms. */
  at: number;
  platform: string;
  language: string | null;
  kind: string;
  media: string;
  text: string;
  likes: number;
  comments: number;
  shares: number;
  views: number | null;
  /** Lower case, without '#'. */
  hashtags: string[];
  /** Lower case, without '@'. */
  mentions: string[];
  domains: string[];
  /** The post's address at its source (posts.url); null when none. */
  url: string | null;
  sentiment: number;
  label: 'positive' | 'neutral' | 'negative';
  /** False: too little text to rate (posts.sentiment_rated); its label is neutral. Counted apart by the figures. */
  rated: boolean;
  authorId: number;
  handle: string;
  followers: number;
  country: string | null;
  /** The ids of the workspace's tags the post carries (server/tags/carried.ts); none when absent. */
  tags?: string[];
}

/** The query's tree, from the real parser; throws with the errors for a query that does not parse. */
export function parsed(query: string): QueryNode {
  const result = parseQuery(query);
  if (!result.ok) throw new Error(`${query}: ${JSON.stringify(result.errors)}`);
  return result.ast;
}

/** Where a leaf occurs among the post's words: each occurrence's first and last position. */
type Span = { first: number; last: number };

/** The spans of a run of words (a term's or a phrase's words, next to each other in this order). */
function phraseSpans(post: Token[], phrase: string[]): Span[] {
  if (phrase.length === 0) return [];
  const spans: Span[] = [];
  for (let i = 0; i + phrase.length <= post.length; i += 1) {
    if (phrase.every((word, k) => post[i + k]!.word === word))
      spans.push({ first: post[i]!.pos, last: post[i + phrase.length - 1]!.pos });
  }
  return spans;
}

/** The spans of a word, phrase or wildcard matched by words (not as a substring). */
function leafSpans(post: Token[], leaf: ProximityLeaf): Span[] {
  if (leaf.type === 'mask') {
    // Each ? one character, a final * any rest, the others themselves (lower-cased): written out plainly here.
    const lowered = [...lower(leaf.value)];
    const rest = lowered.at(-1) === '*';
    const chars = rest ? lowered.slice(0, -1) : lowered;
    const fits = (word: string) => {
      const wordChars = [...word];
      if (rest ? wordChars.length < chars.length : wordChars.length !== chars.length) return false;
      return chars.every((char, i) => char === '?' || char === wordChars[i]);
    };
    return post.filter((t) => fits(t.word)).map((t) => ({ first: t.pos, last: t.pos }));
  }
  if (leaf.type === 'wildcard') {
    const prefix = lower(leaf.prefix);
    return post.filter((t) => t.word.startsWith(prefix)).map((t) => ({ first: t.pos, last: t.pos }));
  }
  return phraseSpans(post, words(leaf.value));
}

const operandSpans = (post: Token[], operand: ProximityOperand): Span[] =>
  operand.type === 'or'
    ? operand.operands.flatMap((leaf) => leafSpans(post, leaf))
    : leafSpans(post, operand);

/** `a NEAR/n b`: b begins 1 to n positions after a ends, or (not for NEAR/nf) a begins 1 to n positions after b ends. */
function near(
  post: Token[],
  { left, right, distance, ordered }: Extract<QueryNode, { type: 'near' }>,
): boolean {
  const [ls, rs] = [operandSpans(post, left), operandSpans(post, right)];
  const within = (gap: number) => gap >= 1 && gap <= distance;
  return ls.some((l) => rs.some((r) => within(r.first - l.last) || (!ordered && within(l.first - r.last))));
}

/**
 * `"w1 … wk"~n`: some run of k + n positions of the post holds every word of the phrase, as many times as the phrase
 * has it, in any order.
 */
function looseMatches(post: Token[], phrase: string[], slop: number): boolean {
  const size = phrase.length + slop;
  return post.some((start) => {
    const run = post.filter((t) => t.pos >= start.pos && t.pos < start.pos + size).map((t) => t.word);
    return phrase.every(
      (word) => run.filter((w) => w === word).length >= phrase.filter((w) => w === word).length,
    );
  });
}

/** A word, phrase or wildcard: whole words by position, or a case-insensitive substring for CJK, Thai and emoji. */
function textMatches(post: RefPost, postTokens: Token[], leaf: ProximityLeaf): boolean {
  const text = leafText(leaf);
  if (matchMode(text) === 'substring') return lower(post.text).includes(lower(text));
  if (leaf.type === 'phrase' && leaf.slop !== undefined)
    return looseMatches(postTokens, words(leaf.value), leaf.slop);
  return leafSpans(postTokens, leaf).length > 0;
}

/** Reddit's hosts of a permalink: reddit.com and its www., old., new., np. and m. forms. */
const REDDIT_HOSTS = [
  'reddit.com',
  'www.reddit.com',
  'old.reddit.com',
  'new.reddit.com',
  'np.reddit.com',
  'm.reddit.com',
];

/**
 * A Reddit post's subreddit, lower case: its permalink's path begins /r/<name>/ (or is /r/<name>) on one of Reddit's
 * hosts, the name 2 to 21 letters, digits and _; none for another platform's post, even one that links to Reddit.
 */
function subredditOfReference(post: RefPost): string | null {
  if (post.platform !== 'reddit' || post.url === null) return null;
  const url = URL.parse(post.url);
  if (!url || !['http:', 'https:'].includes(url.protocol) || !REDDIT_HOSTS.includes(url.host)) return null;
  const [, r, name] = url.pathname.split('/');
  return r?.toLowerCase() === 'r' && name !== undefined && /^[A-Za-z0-9_]{2,21}$/.test(name)
    ? lower(name)
    : null;
}

/** Whether `node` matches `post` (an unknown language or country never equals a value, so NOT of it holds). */
function matches(node: QueryNode, post: RefPost, postTokens = tokens(post.text)): boolean {
  switch (node.type) {
    case 'term':
    case 'phrase':
    case 'wildcard':
    case 'mask':
      return textMatches(post, postTokens, node);
    case 'cased':
      // A word of the text as written, in its own case.
      return Array.from(post.text.matchAll(/[\p{L}\p{M}\p{N}]+/gu), (m) => m[0]).includes(node.value);
    case 'hashtag':
      return post.hashtags.includes(node.value);
    case 'mention':
      return post.mentions.includes(node.value);
    case 'field':
      switch (node.field) {
        case 'author':
          return lower(post.handle) === node.value;
        case 'site':
          return post.domains.includes(node.value);
        case 'instance':
          // The fediverse server: the part of the handle after its last '@'.
          return lower(post.handle).includes('@') && lower(post.handle).split('@').at(-1) === node.value;
        case 'subreddit':
          return subredditOfReference(post) === node.value;
        case 'platform':
          return post.platform === node.value;
        case 'lang':
          return post.language === node.value;
        case 'country':
          return post.country === node.value;
        case 'is':
          return post.kind === node.value;
        case 'engagement':
        case 'followers': {
          // [min TO max], both ends included, * open: read here from the canonical text on its own.
          const [min, max] = node.value.slice(1, -1).split(' TO ');
          const n = node.field === 'followers' ? post.followers : post.likes + post.comments + post.shares;
          return (min === '*' || n >= Number(min)) && (max === '*' || n <= Number(max));
        }
      }
      return false;
    case 'list':
      throw unexpandedList(node);
    case 'not':
      return !matches(node.operand, post, postTokens);
    case 'and':
      return node.operands.every((operand) => matches(operand, post, postTokens));
    case 'or':
      return node.operands.some((operand) => matches(operand, post, postTokens));
    case 'near':
      return near(postTokens, node);
  }
}

/** The posts `node` matches (every post for no query), in the list's order. */
export function matching(node: QueryNode | null, posts: RefPost[]): RefPost[] {
  return node === null ? posts : posts.filter((post) => matches(node, post));
}
