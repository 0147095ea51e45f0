// Errors as values at the API boundary: each carries a message a person can act on, never a raw stack.
import * as z from 'zod/mini';
import { errorResponseSchema } from '@contract/errors';

export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly method: string,
    readonly url: string,
    readonly status: number,
    /** The first 1000 characters of the response body (spec §8). */
    readonly bodyExcerpt: string,
    /** A 429's or 503's Retry-After in seconds, when the server sent one. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(`${method} ${url} failed with status ${status}`);
  }
}

/** A response whose body does not match the contract: reported and shown as an error, never retried as a redirect. */
export class ResponseShapeError extends Error {
  override name = 'ResponseShapeError';
  constructor(
    readonly url: string,
    readonly problems: string[],
  ) {
    super(`Unexpected response from ${url}: ${problems.join('; ')}`);
  }
}

export const BODY_EXCERPT_LENGTH = 1000;

// What an error body says, for the page that shows it.

export interface ApiProblem {
  status: number | null;
  /** The server's stable code ('last_owner', 'join_code_invalid', …), or null when the body had none. */
  code: string | null;
  /** A sentence for people. */
  message: string;
  /** Field errors of a 400, keyed by the field's path ('name', 'first_name', …). */
  fields: Record<string, string>;
}

const UNREACHABLE = 'Could not reach the server. Check your connection and try again.';
const GENERIC = 'Something went wrong. Please try again.';

/** What a failed call means for the person using the page: the server's code, sentence and field errors. */
export function apiProblem(error: unknown): ApiProblem {
  if (!(error instanceof HttpError)) {
    const offline =
      error instanceof TypeError || (error instanceof Error && /fetch|network/i.test(error.message));
    return { status: null, code: null, message: offline ? UNREACHABLE : GENERIC, fields: {} };
  }
  let body: unknown;
  try {
    body = JSON.parse(error.bodyExcerpt);
  } catch {
    body = undefined;
  }
  const parsed = z.safeParse(errorResponseSchema, body);
  if (!parsed.success) return { status: error.status, code: null, message: GENERIC, fields: {} };
  const fields: Record<string, string> = {};
  for (const field of parsed.data.fields ?? []) fields[field.path] ??= field.message;
  return { status: error.status, code: parsed.data.error, message: parsed.data.message, fields };
}
