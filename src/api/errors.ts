// Errors as values at the API boundary: each carries a message a person can act on, never a raw stack.
import * as z from 'zod/mini';
import { errorResponseSchema } from '@contract/errors';
import { FIGURES_PREPARING, figuresWaitSchema, type FiguresWait } from '@contract/figures';

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

// The waits a call of figures is asked again after (dashboards, Compare, details, discover, the query check, saved
// queries' volume, the corpus totals, shared views).

/**
 * A 503 `busy`: the server's queue of heavy requests was full (server/social/admission.ts). Like a 429, it says when
 * to ask again, and asking again then is what to do; unlike a 503 time-out, a narrower range would not help.
 */
export function isBusy(error: unknown): error is HttpError {
  if (!(error instanceof HttpError) || error.status !== 503) return false;
  try {
    return (JSON.parse(error.bodyExcerpt) as { error?: unknown }).error === 'busy';
  } catch {
    return false;
  }
}

/**
 * What a 503 about the figures says (contract/figures.ts): `figures_preparing` while the analytics store opens,
 * rebuilds, restarts or applies the change feed (with its progress when known), `figures_unavailable` when it is
 * down, off or out of reach; null for any other failure. A progress the SPA does not understand is left out rather
 * than losing the wait.
 */
export function figuresWait(error: unknown): FiguresWait | null {
  if (!(error instanceof HttpError) || error.status !== 503) return null;
  let body: unknown;
  try {
    body = JSON.parse(error.bodyExcerpt);
  } catch {
    return null;
  }
  const parsed = z.safeParse(figuresWaitSchema, body);
  if (parsed.success) return parsed.data;
  if (typeof body !== 'object' || body === null) return null;
  const bare = z.safeParse(figuresWaitSchema, { ...body, progress: undefined });
  return bare.success ? bare.data : null;
}

/** The figures are being prepared: the call is asked again after its Retry-After until they are. */
export const isPreparing = (error: unknown): error is HttpError =>
  figuresWait(error)?.error === FIGURES_PREPARING;

/** The wait of figures being prepared (with their progress), or null for any other failure or none. */
export const preparingWait = (error: unknown): FiguresWait | null => {
  const wait = figuresWait(error);
  return wait?.error === FIGURES_PREPARING ? wait : null;
};

/** A rebuild of the store can take many minutes: asked again this many times (each after its Retry-After). */
const PREPARING_TRIES = 120;

/**
 * A 429 or a 503 busy is retried once its Retry-After has passed (the page says when meanwhile), up to 3 times; a
 * 503 figures_preparing likewise, for as long as a rebuild takes. Anything else but a network error or a 5xx (the
 * HTTP client's own retries) is final, a 503 figures_unavailable included. Every query of figures uses it.
 */
export function retryFigures(failures: number, error: unknown): boolean {
  if (isPreparing(error)) return failures < PREPARING_TRIES;
  return error instanceof HttpError && (error.status === 429 || isBusy(error)) && failures < 3;
}
/** After its Retry-After, or 30 s when it sent none (10 s for figures being prepared: they may come sooner). */
export const retryDelay = (_failures: number, error: unknown) =>
  error instanceof HttpError && error.retryAfterSeconds !== null
    ? error.retryAfterSeconds * 1000
    : isPreparing(error)
      ? 10_000
      : 30_000;
