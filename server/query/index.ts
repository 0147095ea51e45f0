// The query language shared by saved queries and discover: parse text into a tree, print a tree as canonical text,
// compile a tree into a parameterised SQL condition. The language is described in README.md beside this file;
// counting a query's matches is the social domain's (server/social/query/count.ts).
import type { QueryError } from '@contract/social-query';
import type { QueryNode } from './ast';
import { QuerySyntaxError } from './errors';
import { parse } from './parser';

export type * from './ast';
export { QuerySyntaxError } from './errors';
export { parse } from './parser';
export { printQuery } from './print';
export { compileQuery, QUERY_FROM } from './compile';

export type ParseResult = { ok: true; ast: QueryNode } | { ok: false; errors: QueryError[] };

/** Never throws for bad input: a query that cannot be parsed comes back with its errors. */
export function parseQuery(text: string): ParseResult {
  try {
    return { ok: true, ast: parse(text) };
  } catch (error) {
    if (error instanceof QuerySyntaxError) return { ok: false, errors: [error.toJSON()] };
    throw error;
  }
}
