// Errors as values at the API boundary: a status, a stable machine-readable code and a sentence for people.
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    /** Sent as Retry-After (a 503 of a full queue: server/social/admission.ts). */
    readonly options: { retryAfterSeconds?: number } = {},
  ) {
    super(message);
  }
}

export const unauthorized = (message = 'Sign in again.') => new ApiError(401, 'unauthorized', message);
export const forbidden = (message = 'You do not have permission to do this.') =>
  new ApiError(403, 'forbidden', message);

/**
 * What a failure may write to the log: its kind, PostgreSQL's SQLSTATE, a fingerprint of the statement (the same
 * statement gives the same fingerprint; its text names tables, not people) and where in the code it happened. Never
 * the message, the statement's text or its parameters: they hold user input and identifiers.
 */
function describeFailure(error: unknown): Record<string, unknown> {
  const query = (error as { query?: unknown }).query;
  const cause = (error as { cause?: unknown }).cause ?? error;
  const sqlstate = (cause as { code?: unknown }).code;
  const stack = error instanceof Error ? (error.stack ?? '') : '';
  return {
    kind: error instanceof Error ? error.constructor.name : typeof error,
    ...(typeof sqlstate === 'string' && /^[0-9A-Z]{5}$/.test(sqlstate) && { sqlstate }),
    ...(typeof query === 'string' && {
      statement: createHash('sha256').update(query).digest('hex').slice(0, 12),
    }),
    // The frames only: the first line of a stack is the message.
    at: stack
      .split('\n')
      .filter((line) => line.trimStart().startsWith('at '))
      .slice(0, 8)
      .map((line) => line.trim()),
  };
}

/**
 * Logs a failure the way every 500 is logged: an id to find the request by (the answer or the client can quote it)
 * and what failed (describeFailure), never user input. Returns the id.
 */
export function logFailure(request: FastifyRequest, error: unknown): string {
  const errorId = randomBytes(6).toString('hex');
  request.log.error(
    { errorId, route: request.routeOptions.url, failure: describeFailure(error) },
    'request failed',
  );
  return errorId;
}
