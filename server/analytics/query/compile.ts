// A query tree as a ClickHouse condition over the store's `posts p`, with the same meaning as server/query/compile.ts
// gives it over PostgreSQL's `posts p JOIN profiles a`. Every value travels as a bound {name:Type} parameter
// (StoreParams); the SQL text is fixed here. Text terms become sets of post ids read from the token table (bounded
// by the range when one is given); fields are conditions on the post's columns or on its author's profile.
import type { FieldNode, QueryNode } from '@server/query/index';
import { leafText, matchMode } from '@server/query/terms';
import { STORE_DATABASE } from '../layout';
import type { StoreParams } from '../params';
import { tsquerySet } from './positions';
import { tsqueryInput, tsqueryKey, type QueryWords } from './words';

/** A half-open time range, as a scope has it: from ≤ posted_at < to. */
export interface StoreRange {
  from: Date;
  to: Date;
}

/** What a count or a dashboard looks at: the query, the filters and (optionally) the range, as server/social/scope.ts. */
export interface StoreScope {
  query: QueryNode | null;
  platforms: string[];
  languages: string[];
  from?: Date;
  to?: Date;
}

const db = STORE_DATABASE;

/** `column` within `range` (whole ms: the store's ts is PostgreSQL's time rounded down to the ms). */
function rangeCondition(column: string, params: StoreParams, range?: StoreRange): string {
  if (!range) return 'true';
  return `${column} >= ${params.add(String(range.from.getTime()), 'Int64')} AND ${column} < ${params.add(String(range.to.getTime()), 'Int64')}`;
}

function missing(what: string, text: string): never {
  throw new Error(`No ${what} for ${JSON.stringify(text)}: queryWords() was not asked about this query`);
}

/**
 * A substring term as ILIKE matches it: PostgreSQL's lower(text) contains lower(term). The posts are narrowed to those
 * with every gram of the term (post_text_query_grams: a post containing the term has them all), and the text is read
 * only for those; a term without grams reads every post's text in the range.
 */
function substringSet(text: string, words: QueryWords, params: StoreParams, range?: StoreRange): string {
  const lower = words.lower.get(text) ?? missing('lower()', text);
  const found = `position(ifNull(ltext, lower(text)), ${params.add(lower, 'String')}) > 0`;
  const inRange = rangeCondition('ts', params, range);
  const candidates = gramCandidates(text, words, params, range);
  if (candidates === null) return `SELECT id FROM ${db}.posts WHERE ${inRange} AND ${found}`;
  return `SELECT id FROM ${db}.posts PREWHERE id IN (${candidates}) AND ${inRange} WHERE ${found}`;
}

/** The posts of the range with every gram of a substring term (a superset of its matches), or null without grams. */
function gramCandidates(
  text: string,
  words: QueryWords,
  params: StoreParams,
  range?: StoreRange,
): string | null {
  const grams = words.grams.get(text) ?? missing('grams', text);
  if (grams.length === 0) return null;
  const tokens = grams.map((gram) => `sipHash64('g', ${params.add(gram, 'String')})`).join(', ');
  return `SELECT post FROM ${db}.tok WHERE tok IN (${tokens}) AND ${rangeCondition('ts', params, range)}
    GROUP BY post HAVING uniqExact(tok) = ${grams.length}`;
}

/**
 * The ids of the posts a tsquery term matches, or null when it has no lexeme (it then matches nothing). `once`: each
 * post once, which only a prefix alone needs said (it reads the slices of every token it stands for, where a post may
 * have several; the grouped sets and an exact token's slice name each post once already).
 */
function tsqueryPosts(
  node: Parameters<typeof tsqueryInput>[0],
  words: QueryWords,
  params: StoreParams,
  range?: StoreRange,
  once = false,
): string | null {
  const input = tsqueryInput(node);
  const key = tsqueryKey(input);
  if (!words.tsqueries.has(key)) missing('tsquery', input.text);
  const tree = words.tsqueries.get(key);
  if (!tree) return null;
  const posts = tsquerySet(tree, params, db, rangeCondition('ts', params, range));
  return once && tree.type === 'val' && tree.prefix ? `SELECT DISTINCT post FROM (${posts})` : posts;
}

function tsquery(
  node: Parameters<typeof tsqueryInput>[0],
  words: QueryWords,
  params: StoreParams,
  range?: StoreRange,
): string {
  const posts = tsqueryPosts(node, words, params, range);
  // No lexeme (e.g. "½", which the parser drops): PostgreSQL's empty tsquery matches nothing.
  return posts === null ? 'false' : `p.id IN (${posts})`;
}

const tokenPosts = (token: string, params: StoreParams, range?: StoreRange) =>
  `SELECT post FROM ${db}.tok WHERE tok = ${token} AND ${rangeCondition('ts', params, range)}`;

const tokenSet = (token: string, params: StoreParams, range?: StoreRange) =>
  `p.id IN (${tokenPosts(token, params, range)})`;

/** The token of a hashtag or mention, as the token table holds it. */
const tagToken = (node: QueryNode & { type: 'hashtag' | 'mention' }, params: StoreParams) =>
  `sipHash64('${node.type === 'hashtag' ? '#' : '@'}', ${params.add(node.value, 'String')})`;

function fieldCondition(node: FieldNode, params: StoreParams, words: QueryWords): string {
  const value = (text: string) => params.add(text, 'String');
  switch (node.field) {
    case 'platform':
      return `p.platform = ${value(node.value)}`;
    case 'lang':
      return `p.lang = ${value(node.value)}`;
    case 'country':
      return `p.author_id IN (SELECT id FROM ${db}.profiles WHERE country = ${value(node.value)})`;
    case 'author': {
      // PostgreSQL compares lower(a.handle) = lower(value): both lowered by PostgreSQL.
      const lower = words.lower.get(node.value) ?? missing('lower()', node.value);
      return `p.author_id IN (SELECT id FROM ${db}.profiles WHERE lhandle = ${value(lower)})`;
    }
  }
}

/**
 * The condition for `node` over `posts p`. `words` is queryWords(node)'s answer; `range` bounds the token slices the
 * sets read (the caller still bounds p itself). A NOT is a plain NOT: an unknown language or country (stored as '')
 * is no match, so `NOT lang:en` includes posts of unknown language, as PostgreSQL's NOT coalesce(…, false) does.
 */
export function compileStoreQuery(
  node: QueryNode,
  params: StoreParams,
  words: QueryWords,
  range?: StoreRange,
  given?: ReadonlySet<QueryNode>,
): string {
  // A node every post read is known to match (a candidate set's own terms: StoreCandidates.given) is not tested again.
  if (given?.has(node)) return 'true';
  switch (node.type) {
    case 'term':
    case 'phrase':
    case 'wildcard': {
      const text = leafText(node);
      if (matchMode(text) === 'substring') return `p.id IN (${substringSet(text, words, params, range)})`;
      return tsquery(node, words, params, range);
    }
    case 'near':
      return tsquery(node, words, params, range);
    case 'hashtag':
    case 'mention':
      return tokenSet(tagToken(node, params), params, range);
    case 'field':
      return fieldCondition(node, params, words);
    case 'not':
      return `NOT (${compileStoreQuery(node.operand, params, words, range, given)})`;
    case 'and':
    case 'or':
      return `(${node.operands
        .map((operand) => compileStoreQuery(operand, params, words, range, given))
        .join(node.type === 'and' ? ' AND ' : ' OR ')})`;
  }
}

/**
 * A candidate set: `posts`, a SELECT of distinct post ids (column `post`) from the token table, bounded by the range,
 * holding every post of the range its node matches; `given`, the nodes of the query every one of those posts matches
 * (the set's own terms when it is exactly their posts), which the condition over the candidates need not test again.
 */
export interface StoreCandidates {
  posts: string;
  given: ReadonlySet<QueryNode>;
}

/**
 * The candidate set for `node`, or null when there is none short of every post. A text term's posts (exactly its
 * matches; a substring term's: the posts with all its grams whose text has it, none without grams); AND: one
 * operand's set (every match has it); OR: the union of every operand's (none when one has none), exact when each
 * is; NOT and fields: none. The caller still evaluates the whole condition over the candidates, but for the `given`
 * nodes.
 */
export function compileStoreCandidates(
  node: QueryNode,
  params: StoreParams,
  words: QueryWords,
  range?: StoreRange,
): StoreCandidates | null {
  const exact = (posts: string | null) => (posts === null ? null : { posts, given: new Set([node]) });
  switch (node.type) {
    case 'term':
    case 'phrase':
    case 'wildcard': {
      const text = leafText(node);
      if (matchMode(text) === 'substring') {
        // The posts with every gram, their text checked: exactly the matches (without grams: every post's text).
        if ((words.grams.get(text) ?? missing('grams', text)).length === 0) return null;
        return exact(`SELECT id AS post FROM (${substringSet(text, words, params, range)})`);
      }
      return exact(tsqueryPosts(node, words, params, range, true));
    }
    case 'near':
      return exact(tsqueryPosts(node, words, params, range, true));
    case 'hashtag':
    case 'mention':
      return exact(tokenPosts(tagToken(node, params), params, range));
    case 'field':
    case 'not':
      return null;
    case 'and': {
      for (const operand of node.operands) {
        const set = compileStoreCandidates(operand, params, words, range);
        if (set !== null) return set;
      }
      return null;
    }
    case 'or': {
      const sets: StoreCandidates[] = [];
      for (const operand of node.operands) {
        const set = compileStoreCandidates(operand, params, words, range);
        if (set === null) return null;
        sets.push(set);
      }
      const posts =
        sets.length === 1
          ? sets[0]!.posts
          : `SELECT DISTINCT post FROM (${sets.map((set) => `SELECT post FROM (${set.posts})`).join(' UNION ALL ')})`;
      const every = node.operands.every((operand, i) => sets[i]!.given.has(operand));
      return { posts, given: every ? new Set([node]) : new Set() };
    }
  }
}

/** The whole scope as a condition over `posts p`: its range, platforms, languages and query. */
export function storeScopeCondition(scope: StoreScope, params: StoreParams, words: QueryWords): string {
  const range = scope.from && scope.to ? { from: scope.from, to: scope.to } : undefined;
  const parts = [rangeCondition('p.ts', params, range)];
  if (scope.platforms.length) parts.push(`p.platform IN ${params.add(scope.platforms, 'Array(String)')}`);
  if (scope.languages.length) parts.push(`p.lang IN ${params.add(scope.languages, 'Array(String)')}`);
  if (scope.query) parts.push(`(${compileStoreQuery(scope.query, params, words, range)})`);
  return parts.join(' AND ');
}
