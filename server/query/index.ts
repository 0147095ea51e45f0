// The query language shared by saved queries and discover: parse text into a tree, print a tree as canonical text.
// The language is described in README.md beside this file; the analytics store compiles a tree and finds its matches
// (server/analytics/matching/compile.ts), and counting them is the social domain's (server/social/editor/count.ts).
import type { QueryError } from '@contract/social-query';
import type { QueryNode } from './ast';
import { QuerySyntaxError } from './errors';
import { parse } from './parser';
import { expandLists, type QueryLists } from './lists';

export type * from './ast';
export { QuerySyntaxError } from './errors';
export { parse } from './parser';
export { printQuery } from './print';
export { QUERY_FROM } from './compile';
export { expandLists, listNames, type QueryLists } from './lists';

export type ParseResult = { ok: true; ast: QueryNode } | { ok: false; errors: QueryError[] };

/**
 * Never throws for bad input: a query that cannot be parsed comes back with its errors. With the workspace's `lists`,
 * its list references are checked (parser.ts); the tree keeps them (expandLists before evaluating it).
 */
export function parseQuery(text: string, lists?: QueryLists): ParseResult {
  try {
    return { ok: true, ast: parse(text, lists) };
  } catch (error) {
    if (error instanceof QuerySyntaxError) return { ok: false, errors: [error.toJSON()] };
    throw error;
  }
}

/** The query as it is evaluated: parsed against the workspace's `lists`, its references replaced by their items. */
export function parseWithLists(text: string, lists: QueryLists): ParseResult {
  const parsed = parseQuery(text, lists);
  return parsed.ok ? { ok: true, ast: expandLists(parsed.ast, lists) } : parsed;
}
