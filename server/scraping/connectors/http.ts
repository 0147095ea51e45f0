// Outgoing HTTP for the connectors: Node's fetch with a timeout, the source's rate limits read (429 and Retry-After,
// Mastodon's X-RateLimit-*), redirects followed by hand so every hop passes the same checks as the URL staff typed.
//
// SSRF: staff type instance and feed URLs, so the server must not become a way into its own network. Only http and
// https are fetched, never with credentials in the URL, and — unless allowPrivateHosts is set (local development and
// the tests' replay server) — never a host that resolves to a loopback, private, link-local, CGNAT or otherwise
// reserved address. The address is checked when the request is made; a DNS answer that changes between the check and
// the connection (rebinding) is not caught: collection runs for staff only, so this is a guard, not a sandbox.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { sourceUrlProblem } from '../../../src/contract/scraping';

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

/** A failure retrying cannot fix: 4xx (not found, forbidden), a refused URL, a body that is not the expected format. */
export class PermanentError extends Error {}

export interface HttpOptions {
  /** Per request, including the body. */
  timeoutMs: number;
  allowPrivateHosts: boolean;
  userAgent: string;
}

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 6 && address.toLowerCase().startsWith('::ffff:')) {
    return isBlockedAddress(address.slice(7));
  }
  return family === 4 ? blocked.check(address, 'ipv4') : family === 6 ? blocked.check(address, 'ipv6') : true;
}

/** Throws PermanentError when the URL may not be fetched (scheme, credentials, private address). */
export async function checkUrl(raw: string, options: Pick<HttpOptions, 'allowPrivateHosts'>): Promise<URL> {
  const problem = sourceUrlProblem(raw);
  if (problem) throw new PermanentError(`${raw}: ${problem}`);
  const url = new URL(raw);
  if (options.allowPrivateHosts) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch (error) {
    throw new TransientError(`${url.host}: cannot resolve the host name (${(error as Error).message})`);
  }
  if (addresses.some(isBlockedAddress)) {
    throw new PermanentError(
      `${url.host} resolves to a private or reserved address; collection only reaches public hosts`,
    );
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

const MAX_REDIRECTS = 5;
/** Bodies above this are refused (a feed or an API page is far smaller). */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface HttpResponse {
  status: number;
  headers: Headers;
  url: string;
  body: string;
}

async function readBody(response: Response, url: URL): Promise<string> {
  const length = Number(response.headers.get('content-length') ?? 0);
  if (length > MAX_BODY_BYTES) throw new PermanentError(`${url.host}: the answer is larger than 10 MB`);
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_BODY_BYTES) {
      await reader.cancel();
      throw new PermanentError(`${url.host}: the answer is larger than 10 MB`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * GET with the checks above. 2xx and 304 answer; 429 and 503 with Retry-After throw RateLimitedError; other 5xx,
 * timeouts and network errors TransientError; other 4xx PermanentError.
 */
export async function httpGet(
  raw: string,
  options: HttpOptions & { headers?: Record<string, string>; signal?: AbortSignal },
): Promise<HttpResponse> {
  let url = await checkUrl(raw, options);
  for (let hop = 0; ; hop++) {
    const signals = [AbortSignal.timeout(options.timeoutMs), ...(options.signal ? [options.signal] : [])];
    let response: Response;
    let body: string;
    try {
      response = await fetch(url, {
        redirect: 'manual',
        headers: { 'user-agent': options.userAgent, accept: '*/*', ...options.headers },
        signal: AbortSignal.any(signals),
      });
      if (response.status >= 300 && response.status < 400 && response.status !== 304) {
        await response.body?.cancel();
        const location = response.headers.get('location');
        if (!location) throw new PermanentError(`${url.host}: redirect without a Location`);
        if (hop >= MAX_REDIRECTS)
          throw new PermanentError(`${url.host}: more than ${MAX_REDIRECTS} redirects`);
        url = await checkUrl(new URL(location, url).toString(), options);
        continue;
      }
      body = await readBody(response, url);
    } catch (error) {
      if (error instanceof PermanentError || error instanceof TransientError) throw error;
      if (options.signal?.aborted) throw options.signal.reason ?? error;
      const name = (error as Error).name;
      if (name === 'TimeoutError' || name === 'AbortError') {
        throw new TransientError(`${url.host}: no answer within ${Math.round(options.timeoutMs / 1000)} s`);
      }
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new TransientError(`${url.host}: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
    }
    const { status } = response;
    if (status === 429 || (status === 503 && response.headers.has('retry-after'))) {
      const wait = retryAfterMs(response.headers.get('retry-after')) ?? 60_000;
      throw new RateLimitedError(
        wait,
        `${url.host} answered ${status}; Retry-After ${Math.ceil(wait / 1000)} s`,
      );
    }
    if (status >= 500) throw new TransientError(`${url.host} answered ${status}`);
    if (status >= 400) throw new PermanentError(`${url.host} answered ${status} for ${url.pathname}`);
    return { status, headers: response.headers, url: url.toString(), body };
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
