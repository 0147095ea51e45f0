// The only code that does HTTP. wretch middlewares carry the spec's client rules (§6, §7, §9):
// no token on /auth/ paths, refresh-and-retry on 401 through the session, retries for network errors and 5xx,
// a 60 s time-out, and HTTP errors reported with method, status and the start of the body.
import wretch, { type ConfiguredMiddleware, type Wretch } from 'wretch';
import { retry } from 'wretch/middlewares';
import { BODY_EXCERPT_LENGTH, HttpError } from './errors';

const REQUEST_TIMEOUT_MS = 60_000;
const HTTP_RETRY_LIMIT = 3;

/** What the HTTP client needs from the session; implemented over the session statechart. */
export interface SessionGate {
  /** Before a non-auth request: waits for any refresh in flight and returns the access token to send. */
  prepare(): Promise<string | null>;
  /** After a 401 on a non-auth request: 'retry' once a refresh succeeded, otherwise pass the response on. */
  unauthorized(url: string): Promise<'retry' | 'passThrough'>;
  succeeded(url: string): void;
}

export interface HttpReporter {
  reportHttpError(error: HttpError): void;
}

const isAuthPath = (url: string): boolean => new URL(url, 'http://x').pathname.includes('/auth/');

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

const timeout =
  (ms: number): ConfiguredMiddleware =>
  (next) =>
  (url, opts) => {
    const limit = AbortSignal.timeout(ms);
    const signal = opts.signal ? AbortSignal.any([opts.signal as AbortSignal, limit]) : limit;
    return next(url, { ...opts, signal });
  };

const sessionAuth =
  (gate: SessionGate): ConfiguredMiddleware =>
  (next) =>
  async (url, opts) => {
    const headers = new Headers(opts.headers as HeadersInit | undefined);
    if (isAuthPath(url)) {
      // Requests to /auth/ never carry the access token; the refresh call sets its own header.
      return next(url, { ...opts, headers });
    }
    for (;;) {
      const token = await gate.prepare();
      if (token) headers.set('Authorization', `Bearer ${token}`);
      else headers.delete('Authorization');
      const response = await next(url, { ...opts, headers });
      if (response.status === 401) {
        if ((await gate.unauthorized(url)) === 'retry') continue;
        return response;
      }
      if (response.ok) gate.succeeded(url);
      return response;
    }
  };

const reportHttpErrors =
  (reporter: HttpReporter): ConfiguredMiddleware =>
  (next) =>
  async (url, opts) => {
    const response = await next(url, opts);
    if (!response.ok) {
      const body = await response
        .clone()
        .text()
        .catch(() => '');
      reporter.reportHttpError(
        new HttpError(opts.method ?? 'GET', url, response.status, body.slice(0, BODY_EXCERPT_LENGTH)),
      );
    }
    return response;
  };

const retries = retry({
  maxAttempts: HTTP_RETRY_LIMIT,
  delayTimer: 250,
  retryOnNetworkError: true,
  // After the last attempt the final 5xx response goes on to the error handling, not a bare rejection.
  resolveWithLatestResponse: true,
  // Spec: automatic retry limit 3 — for network errors and 5xx only, and only where repeating is safe.
  until: (response) => response != null && response.status < 500,
  skip: (_url, opts) => !IDEMPOTENT.has((opts.method ?? 'GET').toUpperCase()),
});

export interface ClientOptions {
  baseUrl: string;
  reporter: HttpReporter;
  /** Omitted for the auth client used by the refresh call: it must not loop back into the 401 handling. */
  gate?: SessionGate;
  fetch?: typeof fetch;
}

export function createHttpClient({ baseUrl, reporter, gate, fetch: fetchImpl }: ClientOptions): Wretch {
  const middlewares = [reportHttpErrors(reporter)];
  if (gate) middlewares.push(sessionAuth(gate));
  middlewares.push(retries, timeout(REQUEST_TIMEOUT_MS));
  let client = wretch(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`)
    .headers({ Accept: 'application/json' })
    .middlewares(middlewares);
  if (fetchImpl) client = client.fetchPolyfill(fetchImpl);
  return client;
}
