// A tree as a SQL condition over `posts p JOIN profiles a ON a.id = p.author_id` (QUERY_FROM). Every value from the
// query travels as a bind parameter; the only SQL text is fixed here. Text reaches PostgreSQL's parsers only as
// parameters of phraseto_tsquery / to_tsquery (tsquery operands quoted and escaped below) or as an escaped ILIKE
// pattern, so no query can change the statement.
import { sql, type SQL } from 'drizzle-orm';
import type { FieldNode, ProximityLeaf, ProximityOperand, QueryNode } from './ast';
import { leafText, matchMode } from './terms';

/** The FROM clause the condition expects. */
export const QUERY_FROM = sql`posts p JOIN profiles a ON a.id = p.author_id`;

/** A tsquery operand: quoted, with the quote doubled and the backslash escaped (the two characters special in it). */
export const tsqueryOperand = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/** A substring pattern for ILIKE (whose escape character is the backslash): %, _ and \ stand for themselves. */
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;

function proximityText(node: ProximityOperand): string {
  if (node.type === 'or') return `( ${node.operands.map(proximityText).join(' | ')} )`;
  if (node.type === 'wildcard') return `${tsqueryOperand(node.prefix)}:*`;
  return tsqueryOperand(node.value);
}

/**
 * `a NEAR/n b` as tsquery text: b 1…n positions after a, or a 1…n positions after b. PostgreSQL's `<k>` means exactly
 * k positions apart, measured between the nearest ends of phrases, so the distances are spelled out.
 */
export function nearTsquery(left: ProximityOperand, right: ProximityOperand, distance: number): string {
  const [l, r] = [proximityText(left), proximityText(right)];
  const alternatives: string[] = [];
  for (let k = 1; k <= distance; k += 1) alternatives.push(`( ${l} <${k}> ${r} )`, `( ${r} <${k}> ${l} )`);
  return alternatives.join(' | ');
}

function textCondition(node: ProximityLeaf): SQL {
  const text = leafText(node);
  if (matchMode(text) === 'substring') {
    // The grams index finds the posts that have the term's characters and pairs; ILIKE keeps the exact matches.
    return sql`(post_text_grams(p.text) @> post_text_query_grams(${text}) AND p.text ILIKE ${likePattern(text)})`;
  }
  if (node.type === 'wildcard') return sql`p.search @@ to_tsquery('simple', ${`${tsqueryOperand(text)}:*`})`;
  // The same parser as the vector's: "don't" is 'don' <-> 't' on both sides, a phrase its words in order.
  return sql`p.search @@ phraseto_tsquery('simple', ${text})`;
}

function fieldCondition({ field, value }: FieldNode): SQL {
  switch (field) {
    case 'author':
      return sql`lower(a.handle) = lower(${value})`;
    case 'platform':
      return sql`p.platform = ${value}::platform`;
    case 'lang':
      return sql`p.language = ${value}`;
    case 'country':
      return sql`a.country = ${value}`;
  }
}

const joined = (nodes: QueryNode[], separator: SQL) =>
  sql`(${sql.join(
    nodes.map((node) => compileQuery(node)),
    separator,
  )})`;

/**
 * Whether every post the condition matches is found by a full-text condition of it (`p.search @@`), which the
 * planner can then AND with other conditions on the same GIN index inside one index scan: a word, phrase, wildcard
 * or NEAR that is not matched as a substring nor under NOT, any operand of an AND, every operand of an OR. Hashtags,
 * mentions, fields and substrings are found through other indexes, or none.
 */
export function searchIndexed(node: QueryNode | null): boolean {
  if (node === null) return false;
  switch (node.type) {
    case 'term':
    case 'phrase':
    case 'wildcard':
      return matchMode(leafText(node)) !== 'substring';
    case 'near':
      return true;
    case 'and':
      return node.operands.some(searchIndexed);
    case 'or':
      return node.operands.every(searchIndexed);
    default:
      return false;
  }
}

/** The WHERE condition for a parsed query. */
export function compileQuery(node: QueryNode): SQL {
  switch (node.type) {
    case 'term':
    case 'phrase':
    case 'wildcard':
      return textCondition(node);
    case 'hashtag':
      // Containment, so the GIN index on the array serves it.
      return sql`p.hashtags @> ARRAY[${node.value}]::text[]`;
    case 'mention':
      return sql`p.mentions @> ARRAY[${node.value}]::text[]`;
    case 'field':
      return fieldCondition(node);
    case 'not':
      // An unknown language or country is not a match, so NOT lang:en includes posts of unknown language.
      return sql`NOT coalesce(${compileQuery(node.operand)}, false)`;
    case 'and':
      return joined(node.operands, sql` AND `);
    case 'or':
      return joined(node.operands, sql` OR `);
    case 'near':
      return sql`p.search @@ to_tsquery('simple', ${nearTsquery(node.left, node.right, node.distance)})`;
  }
}
