// A query's candidate set over the store's token table (compile.ts gives the condition over the posts): the token
// slices whose rows name every post a query matches, read instead of the range's posts, and those rows read each post
// once (candidateRows) or as ids (candidateIds).
import type { QueryNode } from '@server/query/index';
import { unexpandedList } from '@server/query/lists';
import { leafText, matchMode } from '@server/query/terms';
import { QUARTER_MS, STORE_DATABASE, TOKEN_POST_COLUMNS } from '../layout';
import type { StoreParams } from '../params';
import {
  casedSet,
  fieldToken,
  gramDecides,
  gramToken,
  rangeCondition,
  sliceUnion,
  substringSet,
  subredditToken,
  tagToken,
  type StoreRange,
} from './compile';
import { joinable, tokenMatch, wordRows, wordSet } from './positions';
import { lowerText, queryGrams, wordTree, type WordTree } from './words';

const db = STORE_DATABASE;

/**
 * A candidate set: the rows of the token table (within the range) that name every post of the range `node` matches,
 * each row carrying its post's columns (layout.ts, TOKEN_POST_COLUMNS), so a statement reads them instead of the
 * range's posts. `tokens`: a condition on `tok` whose slices hold a row of every candidate; `posts`: a SELECT of the
 * candidates' ids (column `post`) when the slices hold other posts too, null when they are exactly the candidates;
 * `repeats`: whether a post may have several rows in the slices (several tokens); `given`: the nodes of the query
 * every candidate matches (the set's own terms when it is exactly their posts), which the condition over the
 * candidates need not test again.
 */
export interface StoreCandidates {
  tokens: string;
  posts: string | null;
  /**
   * The candidates' rows read otherwise than as `tokens` and `posts` say, when cheaper: a SELECT of `post` and the
   * token table's `columns`, each post once (a joined word tree's first slice: wordRows).
   */
  rows?: (columns: readonly string[]) => string;
  repeats: boolean;
  given: ReadonlySet<QueryNode>;
  /**
   * The set is a platform's or language's posts (a field's slice): a large share of the range, read only when the
   * query has no narrower set (an AND's other operands are preferred; an OR with one has no set).
   */
  wide?: boolean;
}

/**
 * The token condition of a word tree whose every match has one of its rows: a word's or prefix's own; a phrase, its
 * first word's; a NEAR, one side's (an exact word's rather than a prefix's); an OR, every operand's.
 */
function covering(tree: WordTree, params: StoreParams): { match: string; repeats: boolean } | null {
  switch (tree.type) {
    case 'val':
      return { match: tokenMatch(tree, params, db, true), repeats: tree.prefix };
    case 'phrase':
    case 'loose':
      return covering(tree.words[0]!, params);
    case 'near': {
      const left = covering(tree.left, params);
      if (left && !left.repeats) return left;
      return covering(tree.right, params) ?? left;
    }
    case 'or': {
      const operands = tree.operands.map((operand) => covering(operand, params));
      if (operands.some((operand) => operand === null)) return null;
      return { match: `(${operands.map((operand) => operand!.match).join(' OR ')})`, repeats: true };
    }
  }
}

/**
 * The candidate set for `node`, or null when there is none short of every post. A text term's posts (exactly its
 * matches; a substring term's: the posts with all its grams whose text has it, none without grams); AND: one
 * operand's set (every match has it); OR: the union of every operand's (none when one has none), exact when each
 * is; a platform or a language: its slice (`wide`), exactly its posts; NOT and the other fields: none. The caller
 * still evaluates the whole condition over the candidates, but for the `given` nodes.
 */
export function compileStoreCandidates(
  node: QueryNode,
  params: StoreParams,
  range?: StoreRange,
): StoreCandidates | null {
  const given = new Set([node]);
  switch (node.type) {
    case 'term':
    case 'phrase':
    case 'wildcard':
    case 'mask':
    case 'near': {
      const text = node.type === 'near' ? null : leafText(node);
      if (text !== null && matchMode(text) === 'substring') {
        // The posts with every gram, their text checked: exactly the matches (without grams: every post's text).
        const grams = queryGrams(text);
        if (grams.length === 0) return null;
        const tokens = `tok = ${gramToken(grams[0]!, params)}`;
        if (gramDecides(lowerText(text), grams)) return { tokens, posts: null, repeats: false, given };
        const posts = `SELECT id AS post FROM (${substringSet(text, params, range)})`;
        return { tokens, posts, repeats: false, given };
      }
      const tree = wordTree(node);
      // No word: nothing matches, so there are no candidates.
      if (!tree) return { tokens: 'false', posts: null, repeats: false, given };
      if (tree.type === 'val')
        return { tokens: tokenMatch(tree, params, db, true), posts: null, repeats: tree.prefix, given };
      const cover = covering(tree, params);
      if (cover === null) return null;
      const inRange = rangeCondition('ts', params, range);
      const posts = wordSet(tree, params, db, inRange);
      const rows = (columns: readonly string[]) => wordRows(tree, params, db, inRange, columns);
      return { tokens: cover.match, posts, ...(joinable(tree) && { rows }), repeats: cover.repeats, given };
    }
    case 'cased': {
      const tokens = `tok = sipHash64(${params.add(lowerText(node.value), 'String')})`;
      return {
        tokens,
        posts: `SELECT id AS post FROM (${casedSet(node.value, params, range)})`,
        repeats: false,
        given,
      };
    }
    case 'hashtag':
    case 'mention':
      return { tokens: `tok = ${tagToken(node, params)}`, posts: null, repeats: false, given };
    case 'field': {
      // A subreddit's slice is exactly its posts, and a narrow one (one community's).
      if (node.field === 'subreddit')
        return { tokens: `tok = ${subredditToken(node.value, params)}`, posts: null, repeats: false, given };
      const token = fieldToken(node, params);
      return token === null
        ? null
        : { tokens: `tok = ${token}`, posts: null, repeats: false, given, wide: true };
    }
    case 'list':
      throw unexpandedList(node);
    case 'not':
      return null;
    case 'and': {
      let found: StoreCandidates | null = null;
      let wide: StoreCandidates | null = null;
      for (const operand of node.operands) {
        const set = compileStoreCandidates(operand, params, range);
        if (set?.wide) wide ??= set;
        // An operand whose slices are exactly its posts, read once each, is the cheapest to drive from.
        else if (set !== null && set.posts === null && !set.repeats) return set;
        else found ??= set;
      }
      return found ?? wide;
    }
    case 'or': {
      const sets: StoreCandidates[] = [];
      // The operands that are slices: one set, exactly their posts (each may be named once a token).
      const union = sliceUnion(node.operands, params);
      if (union) sets.push({ tokens: union.tokens, posts: null, repeats: true, given: union.nodes });
      const others = node.operands.filter((operand) => !union?.nodes.has(operand));
      for (const operand of others) {
        const set = compileStoreCandidates(operand, params, range);
        // A wide operand's slice would make the union most of the range, each post read from it and deduplicated:
        // the range's posts are read instead.
        if (set === null || set.wide) return null;
        sets.push(set);
      }
      if (sets.length === 1) return sets[0]!;
      const posts = sets.every((set) => set.posts === null)
        ? null
        : sets.map((set) => `SELECT post FROM (${candidateIds(set, params, range)})`).join(' UNION ALL ');
      const every = node.operands.every((operand) => sets.some((set) => set.given.has(operand)));
      return {
        tokens: `(${sets.map((set) => set.tokens).join(' OR ')})`,
        posts,
        // The slices of a set that is exactly its posts are read without a filter by post: a broad OR with a phrase
        // filters only the phrase's slices by the phrase's posts, not every slice by the union of every set's.
        ...(posts !== null && {
          rows: (columns: readonly string[]) => unionRows(sets, columns, params, range),
        }),
        repeats: true,
        given: every ? new Set([node]) : new Set(),
      };
    }
  }
}

/**
 * The rows of an OR's candidate sets (StoreCandidates.rows), each post once, read in one pass over their slices: a
 * set that is exactly its slices' posts as it is, another's slices only for its posts. One pass, not a union of one
 * read a set: a statement's other conditions are pushed down into every branch of a union, each building its sets
 * again (20 phrases and an exclusion: 5 s against 0.3 at 1M).
 */
function unionRows(
  sets: readonly StoreCandidates[],
  columns: readonly string[],
  params: StoreParams,
  range?: StoreRange,
): string {
  const read = ['post', ...columns].join(', ');
  const slices = sets.map((set) =>
    set.posts === null ? set.tokens : `(${set.tokens} AND post IN (${set.posts}))`,
  );
  return `SELECT ${read} FROM ${db}.tok WHERE (${slices.join(' OR ')}) AND ${rangeCondition('ts', params, range)}
    LIMIT 1 BY post`;
}

/** The candidates' ids within `range` (column `post`; a post may be named more than once). */
export const candidateIds = (candidates: StoreCandidates, params: StoreParams, range?: StoreRange) =>
  candidates.posts ??
  `SELECT post FROM ${db}.tok WHERE ${candidates.tokens} AND ${rangeCondition('ts', params, range)}`;

/**
 * The candidates' rows read from their token slices within `range`, each post once: `id` (the post), `ts`, and of
 * `columns` those the token rows carry (TOKEN_POST_COLUMNS) and `q` (the 15-minute UTC bucket), as the posts table
 * has them.
 */
export function candidateRows(
  candidates: StoreCandidates,
  columns: ReadonlySet<string>,
  params: StoreParams,
  range: StoreRange,
): string {
  const read = ['ts', ...TOKEN_POST_COLUMNS.map(([name]) => name).filter((name) => columns.has(name))];
  const fields = ['post AS id', ...read, ...(columns.has('q') ? [`intDiv(ts, ${QUARTER_MS}) AS q`] : [])];
  if (candidates.rows) return `SELECT ${fields.join(', ')} FROM (${candidates.rows(read)})`;
  const conditions = [
    candidates.tokens,
    rangeCondition('ts', params, range),
    ...(candidates.posts === null ? [] : [`post IN (${candidates.posts})`]),
  ];
  const slices = `SELECT ${fields.join(', ')} FROM ${db}.tok WHERE ${conditions.join(' AND ')}`;
  return candidates.repeats ? `${slices} LIMIT 1 BY id` : slices;
}
