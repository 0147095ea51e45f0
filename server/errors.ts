// Errors as values at the API boundary: a status, a stable machine-readable code and a sentence for people.
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    /**
     * retryAfterSeconds: sent as Retry-After (a 503 of a full queue: server/social/admission.ts). body: fields the
     * answer carries beside `error` and `message` (the figures' progress while they are prepared).
     */
    readonly options: { retryAfterSeconds?: number; body?: Record<string, unknown> } = {},
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

/** Fastify's own errors a client can cause, as the API's codes and sentences; the status stays Fastify's. */
const FRAMEWORK_ERRORS: Record<string, { code: string; message: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'invalid_request', message: 'The request body is not valid JSON.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    code: 'invalid_request',
    message: 'The request body is empty, but its Content-Type says JSON.',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: 'invalid_request',
    message: 'The request body is not as long as its Content-Length says.',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'too_large', message: 'The request body is too large.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'unsupported_media_type',
    message: 'This endpoint does not accept a body of this Content-Type.',
  },
  FST_ERR_ROUTE_MISSING_CONTENT_TYPE: {
    code: 'invalid_request',
    message: 'The request body has no Content-Type.',
  },
  FST_ERR_BAD_URL: { code: 'invalid_request', message: 'The address is not valid.' },
  FST_ERR_MAX_PARAM_LENGTH: { code: 'too_large', message: 'A part of the address is too long.' },
};

/**
 * A client's error that Fastify raised (its code starts FST_ERR_, its status is 4xx) as the API's own error, never
 * Fastify's code: the known ones by FRAMEWORK_ERRORS, any other by its status (a Fastify upgrade may add one).
 * Null for anything else.
 */
export function frameworkClientError(error: { code?: unknown; statusCode?: unknown }): ApiError | null {
  const { code, statusCode } = error;
  if (typeof code !== 'string' || !code.startsWith('FST_ERR_')) return null;
  if (typeof statusCode !== 'number' || statusCode < 400 || statusCode >= 500) return null;
  const known = FRAMEWORK_ERRORS[code];
  if (known) return new ApiError(statusCode, known.code, known.message);
  if (statusCode === 413 || statusCode === 414)
    return new ApiError(statusCode, 'too_large', 'The request is too large.');
  if (statusCode === 415)
    return new ApiError(
      statusCode,
      'unsupported_media_type',
      FRAMEWORK_ERRORS.FST_ERR_CTP_INVALID_MEDIA_TYPE!.message,
    );
  return new ApiError(statusCode, 'invalid_request', 'The request is not valid.');
}

/**
 * A request Node's HTTP parser could not read (a malformed request line or header, headers over the size limit, a
 * request that did not arrive in time), as the API's error: Fastify's own answer there is not in the API's shape.
 */
export function unreadableRequestError(error: { code?: unknown }): ApiError {
  if (error.code === 'HPE_HEADER_OVERFLOW')
    return new ApiError(431, 'too_large', "The request's headers are too large.");
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new ApiError(408, 'timeout', 'The request did not arrive in time.');
  return new ApiError(400, 'invalid_request', 'The request could not be read.');
}
