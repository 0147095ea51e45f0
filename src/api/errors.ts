// Errors as values at the API boundary: each carries a message a person can act on, never a raw stack.

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
