// Outgoing HTTP for the connectors: node:http(s) with a timeout, the source's rate limits read (429 and Retry-After,
// Mastodon's X-RateLimit-*), redirects followed by hand so every hop passes the same checks as the URL staff typed.
//
// SSRF: staff type instance and feed URLs, so the server must not become a way into its own network. Only http and
// https are fetched, never with credentials in the URL, and never to an address that is not public (addresses.ts:
// loopback, private, link-local, CGNAT, multicast, reserved, and the IPv6 forms that embed one of those), unless
// allowPrivateHosts is set (local development and the tests' replay servers), which admits loopback, private and
// link-local but still nothing unspecified, multicast or reserved. The check is made where the connection is made:
// the socket's DNS lookup resolves the name, classifies every address it got and hands only those checked addresses
// to connect, so there is no second resolution for a rebinding DNS server to answer differently, and every redirect
// hop and every new connection of the keep-alive pool goes through it. An address literal in the URL is checked
// before the request (the socket does not look those up).
import { lookup as dnsLookup } from 'node:dns/promises';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { Transform, type Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import { sourceUrlProblem } from '@contract/scraping';
import { addressProblem } from './addresses';

/** The source said to wait (429, or its rate-limit window is used up). */
export class RateLimitedError extends Error {
  constructor(
    readonly waitMs: number,
    message: string,
  ) {
    super(message);
  }
}

/** A failure worth retrying later: timeout, network error, 5xx. */
class TransientError extends Error {}

/** The source's daily quota is spent (YouTube): waits until the quota's next day. */
export class QuotaSpentError extends RateLimitedError {}

/** A failure retrying cannot fix: 4xx (not found, forbidden), a refused URL, a body that is not the expected format. */
export class PermanentError extends Error {
  constructor(
    message: string,
    /** The answer's status and body, for a 4xx: a connector reads its source's error shape from them. */
    readonly answer?: { status: number; body: string; headers: Headers },
  ) {
    super(message);
  }
}

/**
 * What is wrong with a credential, in words for staff ("The API key is not valid."); a run stops on it (retrying
 * cannot fix it) and "test connection" shows it.
 */
export class CredentialProblem extends PermanentError {}

/** A host name's addresses, as dns.lookup with all: true answers. */
export type Resolve = (hostname: string) => Promise<{ address: string; family: number }[]>;

export interface HttpOptions {
  /** Per request, including the body. */
  timeoutMs: number;
  allowPrivateHosts: boolean;
  userAgent: string;
  /** The DNS the connections use; the system's resolver (dns.lookup) unless given. */
  resolve?: Resolve;
}

const systemResolve: Resolve = (hostname) => dnsLookup(hostname, { all: true });

const refusal = (host: string, address: string, problem: string) =>
  new PermanentError(
    `${host} resolves to a private or reserved address (${address}: ${problem}); collection only reaches public hosts`,
  );

/**
 * The socket's lookup: resolves once, refuses the host when any of its addresses is not allowed, and hands connect
 * exactly the addresses it checked.
 */
export function guardedLookup(resolve: Resolve, allowPrivateHosts: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (found) => {
        const family = options.family === 4 || options.family === 6 ? options.family : undefined;
        const addresses = found.filter((a) => !family || a.family === family);
        for (const { address } of found) {
          const problem = addressProblem(address, allowPrivateHosts);
          if (problem) return callback(refusal(hostname, address, problem), '', 0);
        }
        const first = addresses[0];
        if (!first) {
          return callback(
            new TransientError(`${hostname}: cannot resolve the host name (no address)`),
            '',
            0,
          );
        }
        if (options.all) return (callback as (e: null, a: typeof addresses) => void)(null, addresses);
        callback(null, first.address, first.family);
      },
      (error: unknown) =>
        callback(
          new TransientError(`${hostname}: cannot resolve the host name (${(error as Error).message})`),
          '',
          0,
        ),
    );
  };
}

interface Agents {
  http: HttpAgent;
  https: HttpsAgent;
}
// Keep-alive pools per policy and resolver: a pooled socket was checked under the policy it serves.
const agentPools = new WeakMap<Resolve, Map<boolean, Agents>>();

export function agentsFor(options: Pick<HttpOptions, 'allowPrivateHosts' | 'resolve'>): Agents {
  const resolve = options.resolve ?? systemResolve;
  let byPolicy = agentPools.get(resolve);
  if (!byPolicy) agentPools.set(resolve, (byPolicy = new Map()));
  let agents = byPolicy.get(options.allowPrivateHosts);
  if (!agents) {
    // The same pool settings as Node's global agent.
    const settings = {
      keepAlive: true,
      scheduling: 'lifo' as const,
      timeout: 5_000,
      lookup: guardedLookup(resolve, options.allowPrivateHosts),
    };
    agents = { http: new HttpAgent(settings), https: new HttpsAgent(settings) };
    byPolicy.set(options.allowPrivateHosts, agents);
  }
  return agents;
}

/**
 * Throws PermanentError when the URL may not be fetched (scheme, credentials, an address literal that is not public).
 * A host name's addresses are checked when the connection resolves them (guardedLookup).
 */
function checkUrl(raw: string, options: Pick<HttpOptions, 'allowPrivateHosts'>): URL {
  const problem = sourceUrlProblem(raw);
  if (problem) throw new PermanentError(`${raw}: ${problem}`);
  const url = new URL(raw);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    const addressRefused = addressProblem(host, options.allowPrivateHosts);
    if (addressRefused) throw refusal(url.host, host, addressRefused);
  }
  return url;
}

/** Seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * When a rate-limit window opens again, from the headers the sources send: X's `x-rate-limit-reset` (Unix seconds),
 * Reddit's `x-ratelimit-reset` (seconds from now) and Mastodon's (an ISO 8601 time). Undefined when none is readable.
 */
function rateLimitResetMs(headers: Headers, now = Date.now()): number | undefined {
  const epoch = headers.get('x-rate-limit-reset')?.trim();
  if (epoch && /^\d+$/.test(epoch)) return Math.max(0, Number(epoch) * 1000 - now);
  const reset = headers.get('x-ratelimit-reset')?.trim();
  if (!reset) return undefined;
  if (/^\d+(\.\d+)?$/.test(reset)) {
    const value = Number(reset);
    // Seconds from now (Reddit) are small; a Unix time is not.
    return value > 1e9 ? Math.max(0, value * 1000 - now) : Math.ceil(value * 1000);
  }
  const date = Date.parse(reset);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const MAX_REDIRECTS = 5;
/** Bodies above this are refused (a feed or an API page is far smaller). */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface HttpResponse {
  status: number;
  headers: Headers;
  url: string;
  body: string;
}

/** Sends one GET and answers once the status line and headers are in; the body is left to read. */
function send(url: URL, options: HttpOptions & RequestExtras, signal: AbortSignal): Promise<IncomingMessage> {
  const agents = agentsFor(options);
  const https = url.protocol === 'https:';
  return new Promise((resolve, reject) => {
    const request = (https ? httpsRequest : httpRequest)(
      url,
      {
        method: options.method ?? 'GET',
        agent: https ? agents.https : agents.http,
        headers: {
          'user-agent': options.userAgent,
          accept: '*/*',
          'accept-encoding': 'gzip, deflate, br',
          ...options.headers,
        },
        signal,
      },
      resolve,
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

export interface RequestExtras {
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** GET by default; a POST (an OAuth token request) is never redirected. */
  method?: 'GET' | 'POST';
  body?: string;
}

function headersOf(response: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
      headers.append(name, one);
    }
  }
  return headers;
}

/** The body decoded as Content-Encoding says (the encodings fetch accepts), as one stream. */
function decoded(response: IncomingMessage, url: URL): Readable {
  const encodings = (response.headers['content-encoding'] ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e && e !== 'identity');
  let stream: Readable = response;
  for (const encoding of encodings.reverse()) {
    const decoder =
      encoding === 'gzip' || encoding === 'x-gzip'
        ? createGunzip()
        : encoding === 'br'
          ? createBrotliDecompress()
          : encoding === 'deflate'
            ? deflateDecoder()
            : undefined;
    if (!decoder) {
      response.destroy();
      throw new PermanentError(`${url.host}: the answer's Content-Encoding ${encoding} is not one asked for`);
    }
    const source = stream;
    source.on('error', (error) => decoder.destroy(error));
    stream = source.pipe(decoder);
  }
  return stream;
}

/** "deflate" is zlib-wrapped by the standard and raw from some servers: the first byte says which. */
function deflateDecoder(): Transform {
  let inner: Transform | undefined;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (!inner) {
        inner = (chunk[0]! & 0x0f) === 0x08 ? createInflate() : createInflateRaw();
        inner.on('data', (data: Buffer) => this.push(data));
        inner.on('error', (error) => this.destroy(error));
      }
      if (inner.write(chunk)) done();
      else inner.once('drain', () => done());
    },
    flush(done) {
      if (!inner) return done();
      inner.once('end', () => done());
      inner.end();
    },
  });
}

async function readBody(response: IncomingMessage, url: URL): Promise<string> {
  const length = Number(response.headers['content-length'] ?? 0);
  if (length > MAX_BODY_BYTES) {
    response.destroy();
    throw new PermanentError(`${url.host}: the answer is larger than 10 MB`);
  }
  const body = decoded(response, url);
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    total += chunk.byteLength;
    if (total > MAX_BODY_BYTES) {
      response.destroy();
      throw new PermanentError(`${url.host}: the answer is larger than 10 MB`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * GET with the checks above. 2xx and 304 answer; 429 and 503 with Retry-After throw RateLimitedError; other 5xx,
 * timeouts and network errors TransientError; other 4xx PermanentError.
 */
export async function httpGet(raw: string, options: HttpOptions & RequestExtras): Promise<HttpResponse> {
  let url = checkUrl(raw, options);
  for (let hop = 0; ; hop++) {
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = AbortSignal.any([timeout, ...(options.signal ? [options.signal] : [])]);
    let response: IncomingMessage;
    let body: string;
    try {
      response = await send(url, options, signal);
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400 && status !== 304 && options.method !== 'POST') {
        response.destroy();
        const location = response.headers.location;
        if (!location) throw new PermanentError(`${url.host}: redirect without a Location`);
        if (hop >= MAX_REDIRECTS)
          throw new PermanentError(`${url.host}: more than ${MAX_REDIRECTS} redirects`);
        url = checkUrl(new URL(location, url).toString(), options);
        continue;
      }
      body = await readBody(response, url);
    } catch (error) {
      if (error instanceof PermanentError || error instanceof TransientError) throw error;
      if (options.signal?.aborted) throw options.signal.reason ?? error;
      if (timeout.aborted) {
        throw new TransientError(`${url.host}: no answer within ${Math.round(options.timeoutMs / 1000)} s`);
      }
      const { code, message } = error as { code?: string; message: string };
      throw new TransientError(`${url.host}: ${code ?? message}`);
    }
    const status = response.statusCode ?? 0;
    const headers = headersOf(response);
    if (status === 429 || (status === 503 && headers.has('retry-after'))) {
      const wait = retryAfterMs(headers.get('retry-after')) ?? rateLimitResetMs(headers) ?? 60_000;
      throw new RateLimitedError(
        wait,
        `${url.host} answered ${status}; Retry-After ${Math.ceil(wait / 1000)} s`,
      );
    }
    if (status >= 500) throw new TransientError(`${url.host} answered ${status}`);
    if (status >= 400) {
      throw new PermanentError(`${url.host} answered ${status} for ${url.pathname}`, {
        status,
        body,
        headers,
      });
    }
    return { status, headers, url: url.toString(), body };
  }
}

/** Parses a JSON body or throws PermanentError naming the host. */
export function jsonBody(response: HttpResponse): unknown {
  try {
    return JSON.parse(response.body) as unknown;
  } catch {
    throw new PermanentError(`${new URL(response.url).host}: the answer is not JSON`);
  }
}

/** A POST with the same checks (an OAuth token request); its answer is never a redirect to follow. */
export const httpPost = (raw: string, options: HttpOptions & Omit<RequestExtras, 'method'>) =>
  httpGet(raw, { ...options, method: 'POST' });
