// A query that does not parse, as a 400 whose body lists the parser's errors (1-based columns) beside the usual
// error and message: shared by discover and saved queries, whose plugins install `invalidQueryErrorHandler`.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { QueryError } from '../../../src/contract/social-query';
import { ApiError } from '../../errors';
import { parseQuery, type QueryNode } from '../query/index';

export class InvalidQueryError extends ApiError {
  constructor(readonly errors: QueryError[]) {
    super(400, 'invalid_query', errors[0]?.message ?? 'The query is not valid.');
  }
}

/** The parsed query, or an InvalidQueryError to throw. */
export function parseOrThrow(text: string): QueryNode {
  const parsed = parseQuery(text);
  if (!parsed.ok) throw new InvalidQueryError(parsed.errors);
  return parsed.ast;
}

/** Answers InvalidQueryError itself; anything else goes on to the app's error handler. */
export function invalidQueryErrorHandler(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof InvalidQueryError) {
    return reply.status(400).send({ error: error.code, message: error.message, errors: error.errors });
  }
  throw error;
}
