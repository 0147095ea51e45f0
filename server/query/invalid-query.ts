// A query that does not parse, as a 400 `invalid_query` whose body lists the parser's errors (1-based columns) beside
// the usual error and message: one error for discover, the dashboards and saved queries, whose plugins install
// `invalidQueryErrorHandler`. The body is `invalidQueryErrorSchema` (contract/social-query.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { QueryError } from '@contract/social-query';
import { ApiError } from '@server/errors';
import { parseQuery, type QueryLists, type QueryNode } from './index';

class InvalidQueryError extends ApiError {
  constructor(readonly errors: QueryError[]) {
    super(400, 'invalid_query', `The query is not valid: ${errors.map((e) => e.message).join('; ')}`);
  }
}

/**
 * The parsed query, or an InvalidQueryError to throw (blank text too: the parser calls it empty). With the
 * workspace's `lists`, its list references are checked (the tree keeps them: expandLists before evaluating).
 */
export function parseOrThrow(text: string, lists?: QueryLists): QueryNode {
  const parsed = parseQuery(text, lists);
  if (!parsed.ok) throw new InvalidQueryError(parsed.errors);
  return parsed.ast;
}

/** Answers InvalidQueryError itself; anything else goes on to the app's error handler. */
export function invalidQueryErrorHandler(error: Error, _request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof InvalidQueryError) {
    return reply.status(400).send({ error: error.code, message: error.message, errors: error.errors });
  }
  throw error;
}
