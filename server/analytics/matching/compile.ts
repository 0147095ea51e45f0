// A query tree as a ClickHouse condition over the store's `posts p`, with the meaning server/query/README.md gives
// it. Every value travels as a bound {name:Type} parameter (StoreParams); the SQL text is fixed here. Text terms
// become sets of post ids read from the token table (bounded by the range when one is given); fields are conditions
// on the post's columns or on its author's profile. The query's words are split by the rule the store splits the
// posts' by (matching/words.ts): no statement asks PostgreSQL about them.
import type { FieldNode, QueryNode } from '@server/query/index';
import { fieldRange, leafText, matchMode } from '@server/query/terms';
import { unexpandedList } from '@server/query/lists';
import {
  CASED_WORDS,
  FIELD_TOKEN_MARKS,
  LOWERED_TEXT,
  sampleHash,
  STORE_DATABASE,
  SUBREDDIT_TOKEN_MARK,
  TAG_MARKS,
  textStretch,
} from '../layout';
import type { StoreParams } from '../params';
import { absorbed } from './absorb';
import { prefixesMatch, wordSet } from './positions';
import { masksHolding, scriptsOf } from './scripts';
import { lowerText, queryGrams, wordTree, type WordVal } from './words';

/**
 * A half-open time range, as a scope has it: from ≤ posted_at < to. `sampleBelow`: only the posts whose sample hash
 * (layout.ts, sampleHash) is below it, for a statement that reads no others (the conversation's sample): a term's
 * slices are cut to them before they are joined or grouped.
 */
export interface StoreRange {
  from: Date;
  to: Date;
  sampleBelow?: number;
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

/**
 * `column` within `range` (whole ms: the store's ts is PostgreSQL's time rounded down to the ms), and the post `id`
 * (a column) of the range's sample when it takes one.
 */
export function rangeCondition(column: string, params: StoreParams, range?: StoreRange, id = 'post'): string {
  if (!range) return 'true';
  const time = `${column} >= ${params.add(String(range.from.getTime()), 'Int64')} AND ${column} < ${params.add(String(range.to.getTime()), 'Int64')}`;
  if (range.sampleBelow === undefined) return time;
  return `${time} AND ${sampleHash(id)} < ${params.add(range.sampleBelow, 'UInt32')}`;
}

/**
 * A substring term: the post's lower-cased text contains the lower-cased term. The posts are narrowed to those with
 * every gram of the term (queryGrams: a post containing the term has them all), and the text is read
 * only for those, from the texts of the posts of the term's scripts (matching/scripts.ts); a term without grams reads
 * every post's text in the range. A term that is its own one gram (one or two characters of the gram scripts) is
 * contained in exactly the posts with that gram: its slice, no text read.
 */
export function substringSet(text: string, params: StoreParams, range?: StoreRange): string {
  const lower = lowerText(text);
  const grams = queryGrams(text);
  const inRange = rangeCondition('ts', params, range);
  if (gramDecides(lower, grams))
    return `SELECT post AS id FROM ${db}.tok WHERE tok = ${gramToken(grams[0]!, params)} AND ${inRange}`;
  const term = params.add(lower, 'String');
  const postsInRange = rangeCondition('ts', params, range, 'id');
  // A sample's texts lie in the stretches below its cut (layout.ts, textStretch); `h` is the texts' sample hash.
  const textsInRange =
    range?.sampleBelow === undefined
      ? postsInRange
      : [
          rangeCondition('ts', params, { from: range.from, to: range.to }),
          `h < ${params.add(range.sampleBelow, 'UInt32')}`,
          `hb <= ${params.add(textStretch(Math.max(range.sampleBelow - 1, 0)), 'UInt8')}`,
        ].join(' AND ');
  if (grams.length === 0)
    return `SELECT id FROM ${db}.posts WHERE ${postsInRange} AND position(${LOWERED_TEXT}, ${term}) > 0`;
  const tokens = grams.map((gram) => gramToken(gram, params)).join(', ');
  const candidates = `SELECT post FROM ${db}.tok WHERE tok IN (${tokens}) AND ${inRange}
    GROUP BY post HAVING uniqExact(tok) = ${grams.length}`;
  // Every gram character is of a class, so a term with grams has a mask, and its posts' masks hold it.
  const scripts = params.add(masksHolding(scriptsOf(grams)), 'Array(UInt8)');
  return `SELECT id FROM ${db}.texts PREWHERE scripts IN ${scripts} AND ${textsInRange} AND id IN (${candidates})
    WHERE position(ltext, ${term}) > 0`;
}

/**
 * Whether a substring term's grams decide its matches: the term (lowered) is its one gram, so it lies within one run
 * of the gram scripts, and a post with that gram (a character, or two neighbouring ones of such a run) contains it.
 */
export const gramDecides = (lower: string, grams: readonly string[]) =>
  grams.length === 1 && grams[0] === lower;

/** The token of a gram (matching/scripts.ts, postGramsSql), as the token table holds it. */
export const gramToken = (gram: string, params: StoreParams) =>
  `sipHash64('g', ${params.add(gram, 'String')})`;

/**
 * A case-sensitive word (`{NASA}`): the posts with the word lower-cased (its token's slice), whose own text, in its
 * own case, has it among its words (the store's word rule over the text as written).
 */
export function casedSet(word: string, params: StoreParams, range?: StoreRange): string {
  const token = `sipHash64(${params.add(lowerText(word), 'String')})`;
  const candidates = `SELECT post FROM ${db}.tok WHERE tok = ${token} AND ${rangeCondition('ts', params, range)}`;
  return `SELECT id FROM ${db}.posts WHERE ${rangeCondition('ts', params, range, 'id')} AND id IN (${candidates})
    AND has(${CASED_WORDS}, ${params.add(word, 'String')})`;
}

function wordCondition(
  node: Parameters<typeof wordTree>[0],
  params: StoreParams,
  range?: StoreRange,
): string {
  const tree = wordTree(node);
  // No word (a phrase of punctuation alone): nothing matches.
  if (!tree) return 'false';
  return `p.id IN (${wordSet(tree, params, db, rangeCondition('ts', params, range))})`;
}

const tokenSet = (token: string, params: StoreParams, range?: StoreRange) =>
  `p.id IN (SELECT post FROM ${db}.tok WHERE tok = ${token} AND ${rangeCondition('ts', params, range)})`;

/** The token of a hashtag or mention, as the token table holds it. */
export const tagToken = (node: QueryNode & { type: 'hashtag' | 'mention' }, params: StoreParams) =>
  `sipHash64('${node.type === 'hashtag' ? '#' : '@'}', ${params.add(node.value, 'String')})`;

/** The token of a subreddit (a Reddit post's, layout.ts SUBREDDIT_TOKEN_MARK), as the token table holds it. */
export const subredditToken = (name: string, params: StoreParams) =>
  `sipHash64('${SUBREDDIT_TOKEN_MARK}', ${params.add(name, 'String')})`;

/**
 * The operand's posts are exactly those with a row of its own tokens (a word, a prefix or mask, a hashtag or mention,
 * a subreddit):
 * what its slice is, to be read together with the other such operands of an OR (sliceUnion). Null for another node.
 */
function sliceOf(
  node: QueryNode,
  params: StoreParams,
): { token: string } | { val: WordVal & { prefix: true } } | null {
  if (node.type === 'hashtag' || node.type === 'mention') return { token: tagToken(node, params) };
  if (node.type === 'field' && node.field === 'subreddit')
    return { token: subredditToken(node.value, params) };
  if (node.type !== 'term' && node.type !== 'phrase' && node.type !== 'wildcard' && node.type !== 'mask')
    return null;
  if (matchMode(leafText(node)) === 'substring') return null;
  const tree = wordTree(node);
  if (tree?.type !== 'val') return null;
  return tree.prefix
    ? { val: { ...tree, prefix: true } }
    : { token: `sipHash64(${params.add(tree.word, 'String')})` };
}

/**
 * The OR's operands whose posts are their slices (sliceOf), as one token condition that selects the slices of all of
 * them: one constant set of the exact tokens and every prefix's and mask's tokens (one read of the lexicon). A
 * 300-term listening query reads its names' slices in one statement rather than one subquery a name. Null when
 * fewer than two operands are slices; else the condition and the operands it stands for.
 */
export function sliceUnion(
  operands: readonly QueryNode[],
  params: StoreParams,
): { tokens: string; nodes: Set<QueryNode> } | null {
  const tokens: string[] = [];
  const vals: WordVal[] = [];
  const nodes = new Set<QueryNode>();
  for (const operand of operands) {
    const slice = sliceOf(operand, params);
    if (slice === null) continue;
    nodes.add(operand);
    if ('token' in slice) tokens.push(slice.token);
    else vals.push(slice.val);
  }
  if (nodes.size < 2) return null;
  return {
    tokens: vals.length ? prefixesMatch(vals, params, db, tokens) : `tok IN (${tokens.join(', ')})`,
    nodes,
  };
}

/** The token of a platform or language, as the token table holds it (FIELD_TOKEN_MARKS); null for another field. */
export function fieldToken(node: FieldNode, params: StoreParams): string | null {
  if (node.field !== 'platform' && node.field !== 'lang') return null;
  return `sipHash64('${FIELD_TOKEN_MARKS[node.field]}', ${params.add(node.value, 'String')})`;
}

/** `column` within a field's range (both ends included; an open end is no condition). */
function boundsCondition(column: string, range: ReturnType<typeof fieldRange>, params: StoreParams): string {
  const parts = [];
  if (range.min !== null) parts.push(`${column} >= ${params.add(range.min, 'UInt64')}`);
  if (range.max !== null) parts.push(`${column} <= ${params.add(range.max, 'UInt64')}`);
  return parts.length ? `(${parts.join(' AND ')})` : 'true';
}

function fieldCondition(node: FieldNode, params: StoreParams, range?: StoreRange): string {
  const value = (text: string) => params.add(text, 'String');
  switch (node.field) {
    case 'platform':
      return `p.platform = ${value(node.value)}`;
    case 'lang':
      return `p.lang = ${value(node.value)}`;
    case 'country':
      return `p.author_id IN (SELECT id FROM ${db}.profiles WHERE country = ${value(node.value)})`;
    case 'is':
      return `p.kind = ${value(node.value)}`;
    case 'engagement':
      return boundsCondition('p.engagement', fieldRange(node.value), params);
    case 'followers':
      return `p.author_id IN (SELECT id FROM ${db}.profiles WHERE ${boundsCondition('followers', fieldRange(node.value), params)})`;
    case 'author': {
      // The handle lower-cased by the store (lhandle), the value here: the same lowering (words.ts, lowerText).
      return `p.author_id IN (SELECT id FROM ${db}.profiles WHERE lhandle = ${value(lowerText(node.value))})`;
    }
    case 'site':
      // In the tags (TAG_MARKS), which the token rows carry too.
      return `has(p.tags, ${value(`${TAG_MARKS.domains}${node.value}`)})`;
    case 'instance':
      return `p.author_id IN (SELECT id FROM ${db}.profiles WHERE endsWith(lhandle, ${value(`@${node.value}`)}))`;
    case 'subreddit':
      // Its token's slice: only a Reddit post whose permalink names the subreddit has one (rows.ts).
      return tokenSet(subredditToken(node.value, params), params, range);
  }
}

/**
 * The condition for `node` over `posts p`. `range` bounds the token slices the sets read (the caller still bounds p itself). A NOT is a plain NOT: an unknown language or country (stored as '')
 * is no match, so `NOT lang:en` includes posts of unknown language, as PostgreSQL's NOT coalesce(…, false) does.
 */
export function compileStoreQuery(
  node: QueryNode,
  params: StoreParams,
  range?: StoreRange,
  given?: ReadonlySet<QueryNode>,
): string {
  // A node every post read is known to match (a candidate set's own terms: StoreCandidates.given) is not tested again.
  if (given?.has(node)) return 'true';
  switch (node.type) {
    case 'term':
    case 'phrase':
    case 'wildcard':
    case 'mask': {
      const text = leafText(node);
      if (matchMode(text) === 'substring') return `p.id IN (${substringSet(text, params, range)})`;
      return wordCondition(node, params, range);
    }
    case 'near':
      return wordCondition(node, params, range);
    case 'cased':
      return `p.id IN (${casedSet(node.value, params, range)})`;
    case 'hashtag':
    case 'mention':
      return tokenSet(tagToken(node, params), params, range);
    case 'field':
      return fieldCondition(node, params, range);
    case 'list':
      throw unexpandedList(node);
    case 'not':
      return `NOT (${compileStoreQuery(node.operand, params, range, given)})`;
    case 'and':
      return `(${node.operands.map((operand) => compileStoreQuery(operand, params, range, given)).join(' AND ')})`;
    case 'or': {
      // The operands that are slices, not given, read as one set; the others each as their own condition.
      const union = sliceUnion(
        node.operands.filter((operand) => !given?.has(operand)),
        params,
      );
      const rest = node.operands
        .filter((operand) => !union?.nodes.has(operand))
        .map((operand) => compileStoreQuery(operand, params, range, given));
      const sliced = union
        ? [
            `p.id IN (SELECT post FROM ${db}.tok WHERE ${union.tokens} AND ${rangeCondition('ts', params, range)})`,
          ]
        : [];
      // An operand every post read matches: so does the OR.
      if (rest.includes('true')) return 'true';
      return `(${[...sliced, ...rest].join(' OR ')})`;
    }
  }
}

/** The whole scope as a condition over `posts p`: its range, platforms, languages and query. */
export function storeScopeCondition(scope: StoreScope, params: StoreParams): string {
  const range = scope.from && scope.to ? { from: scope.from, to: scope.to } : undefined;
  const parts = [rangeCondition('p.ts', params, range, 'p.id')];
  if (scope.platforms.length) parts.push(`p.platform IN ${params.add(scope.platforms, 'Array(String)')}`);
  if (scope.languages.length) parts.push(`p.lang IN ${params.add(scope.languages, 'Array(String)')}`);
  if (scope.query) parts.push(`(${compileStoreQuery(absorbed(scope.query), params, range)})`);
  return parts.join(' AND ');
}
