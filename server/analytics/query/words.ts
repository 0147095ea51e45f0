// What the store needs of a query's own words, asked of PostgreSQL so that it is PostgreSQL's by construction: the
// tsquery each word, phrase, wildcard and NEAR compiles to there (its parser splits "don't" into 'don' <-> 't',
// drops what has no lexeme), the lower() of substring terms and handles (the database's collation decides it, as
// it decides ILIKE and lower(a.handle)), and the grams that narrow a substring term (post_text_query_grams).
import type pg from 'pg';
import { nearTsquery, tsqueryOperand } from '@server/query/compile';
import type { ProximityLeaf, QueryNode } from '@server/query/index';
import { leafText, matchMode } from '@server/query/terms';
import { parseTsquery, type TsNode } from './tsquery';

export interface QueryWords {
  /** By tsqueryKey: the tree PostgreSQL built (null: no lexeme, no match). */
  tsqueries: Map<string, TsNode | null>;
  /** PostgreSQL's lower() of substring terms and author handles. */
  lower: Map<string, string>;
  /** post_text_query_grams of each substring term. */
  grams: Map<string, string[]>;
}

/** How compile.ts turns each node into a tsquery in PostgreSQL: phraseto_tsquery, or to_tsquery of this text. */
export function tsqueryInput(node: ProximityLeaf | Extract<QueryNode, { type: 'near' }>): {
  fn: 'phraseto_tsquery' | 'to_tsquery';
  text: string;
} {
  if (node.type === 'near')
    return { fn: 'to_tsquery', text: nearTsquery(node.left, node.right, node.distance) };
  if (node.type === 'wildcard') return { fn: 'to_tsquery', text: `${tsqueryOperand(node.prefix)}:*` };
  return { fn: 'phraseto_tsquery', text: node.value };
}

export const tsqueryKey = ({ fn, text }: { fn: string; text: string }) => `${fn}\u0000${text}`;

type Ask = { kind: 'phraseto_tsquery' | 'to_tsquery' | 'lower' | 'grams'; text: string };

function collect(node: QueryNode, asks: Ask[]) {
  switch (node.type) {
    case 'term':
    case 'phrase':
    case 'wildcard': {
      const text = leafText(node);
      if (matchMode(text) === 'substring') asks.push({ kind: 'lower', text }, { kind: 'grams', text });
      else {
        const input = tsqueryInput(node);
        asks.push({ kind: input.fn, text: input.text });
      }
      return;
    }
    case 'near': {
      const input = tsqueryInput(node);
      asks.push({ kind: input.fn, text: input.text });
      return;
    }
    case 'field':
      if (node.field === 'author') asks.push({ kind: 'lower', text: node.value });
      return;
    case 'not':
      collect(node.operand, asks);
      return;
    case 'and':
    case 'or':
      for (const operand of node.operands) collect(operand, asks);
      return;
    default:
      return;
  }
}

/** Asks PostgreSQL, in one statement, what the store needs of `node`'s words (nothing for a query without). */
export async function queryWords(db: pg.Pool | pg.ClientBase, node: QueryNode | null): Promise<QueryWords> {
  const words: QueryWords = { tsqueries: new Map(), lower: new Map(), grams: new Map() };
  const asks: Ask[] = [];
  if (node) collect(node, asks);
  if (asks.length === 0) return words;
  const { rows } = await db.query<{
    kind: Ask['kind'];
    text: string;
    value: string | null;
    grams: string[] | null;
  }>(
    `SELECT kind, text,
      CASE kind WHEN 'phraseto_tsquery' THEN phraseto_tsquery('simple', text)::text
        WHEN 'to_tsquery' THEN to_tsquery('simple', text)::text WHEN 'lower' THEN lower(text) END AS value,
      CASE kind WHEN 'grams' THEN post_text_query_grams(text) END AS grams
    FROM unnest($1::text[], $2::text[]) AS q(kind, text)`,
    [asks.map((ask) => ask.kind), asks.map((ask) => ask.text)],
  );
  for (const row of rows) {
    if (row.kind === 'lower') words.lower.set(row.text, row.value!);
    else if (row.kind === 'grams') words.grams.set(row.text, row.grams ?? []);
    else words.tsqueries.set(tsqueryKey({ fn: row.kind, text: row.text }), parseTsquery(row.value ?? ''));
  }
  return words;
}
