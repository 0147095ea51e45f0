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
  const grams = words.grams.get(text) ?? missing('grams', text);
  const found = `position(ifNull(ltext, lower(text)), ${params.add(lower, 'String')}) > 0`;
  const inRange = rangeCondition('ts', params, range);
  if (grams.length === 0) return `SELECT id FROM ${db}.posts WHERE ${inRange} AND ${found}`;
  const tokens = grams.map((gram) => `sipHash64('g', ${params.add(gram, 'String')})`).join(', ');
  const candidates = `SELECT post FROM ${db}.tok WHERE tok IN (${tokens}) AND ${inRange}
    GROUP BY post HAVING uniqExact(tok) = ${grams.length}`;
  return `SELECT id FROM ${db}.posts PREWHERE id IN (${candidates}) AND ${inRange} WHERE ${found}`;
}

function tsquery(
  node: Parameters<typeof tsqueryInput>[0],
  words: QueryWords,
  params: StoreParams,
  range?: StoreRange,
): string {
  const input = tsqueryInput(node);
  const key = tsqueryKey(input);
  if (!words.tsqueries.has(key)) missing('tsquery', input.text);
  const tree = words.tsqueries.get(key);
  // No lexeme (e.g. "½", which the parser drops): PostgreSQL's empty tsquery matches nothing.
  if (!tree) return 'false';
  return `p.id IN (${tsquerySet(tree, params, db, rangeCondition('ts', params, range))})`;
}

const tokenSet = (token: string, params: StoreParams, range?: StoreRange) =>
  `p.id IN (SELECT post FROM ${db}.tok WHERE tok = ${token} AND ${rangeCondition('ts', params, range)})`;

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
): string {
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
      return tokenSet(`sipHash64('#', ${params.add(node.value, 'String')})`, params, range);
    case 'mention':
      return tokenSet(`sipHash64('@', ${params.add(node.value, 'String')})`, params, range);
    case 'field':
      return fieldCondition(node, params, words);
    case 'not':
      return `NOT (${compileStoreQuery(node.operand, params, words, range)})`;
    case 'and':
    case 'or':
      return `(${node.operands
        .map((operand) => compileStoreQuery(operand, params, words, range))
        .join(node.type === 'and' ? ' AND ' : ' OR ')})`;
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
