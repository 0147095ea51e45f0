// Sending an alert to the webhook URL its owner typed (often a Slack incoming webhook): checking the URL, signing the
// body, posting it once and saying whether a failure is worth retrying, and the retry schedule. The alert rules and
// the queue call this; nothing here keeps state.
//
// SSRF: owners type the URL, so the server must not become a way into its own network. The guard is the collection
// connectors' (server/scraping/connectors/http.ts, addresses.ts): the socket's DNS lookup classifies every address
// a name resolves to and connects only to those it checked (no second resolution for a rebinding DNS to answer
// differently); an address literal in the URL is checked before connecting (webhookUrlProblem). Redirects are not
// followed: a 3xx is a permanent failure, so a public URL cannot bounce the request to a private one.
//
// Signing: Stripe's scheme, as the built-in payment provider signs (server/payments/signature.ts, reused here). Each
// request carries `x-murmur-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` keyed with the
// rule's secret (its UTF-8 bytes). A receiver verifies it so:
//   1. take the raw request body, byte for byte, before any JSON parsing;
//   2. split the header at commas into t and v1;
//   3. refuse when t is more than 5 minutes from its clock (a replay);
//   4. compute the HMAC-SHA256 of `${t}.${body}` with the secret, in hex, and compare it with v1 in constant time;
//   5. drop a request whose `x-murmur-delivery` it has already seen: retries of one alert repeat its delivery id.
// verifyWebhookSignature does 2–4.
//
// Slack's webhook URLs are themselves secrets (the path is the credential), so error messages name the host only.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { signPayload, verifySignature } from '@server/payments/signature';
import { addressProblem } from '@server/scraping/connectors/addresses';
import { agentsFor, PermanentError, type Resolve } from '@server/scraping/connectors/http';

const MAX_URL_LENGTH = 2_000;
/** Response bodies are read up to this and thrown away (reading lets the connection be reused). */
const MAX_RESPONSE_BYTES = 64 * 1024;
const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * Why this URL cannot receive webhooks, as a sentence for the form, or null when it can: not http(s), a user name or
 * password in it, over 2,000 characters, or an address literal that is not public (loopback, private, link-local…
 * are allowed with allowPrivateHosts, for local development and tests). A host name's addresses are checked when the
 * delivery connects.
 */
export function webhookUrlProblem(
  url: string,
  { allowPrivateHosts }: { allowPrivateHosts: boolean },
): string | null {
  if (url.length > MAX_URL_LENGTH) return 'The URL is longer than 2,000 characters.';
  const parsed = URL.parse(url);
  if (!parsed) return 'This is not a complete URL: it should start with https://.';
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return 'The URL must start with https:// or http://.';
  }
  if (parsed.username || parsed.password) return 'The URL must not contain a user name or password.';
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const problem = isIP(host) ? addressProblem(host, allowPrivateHosts) : undefined;
  if (problem) return `${host} is not a public address (${problem}); webhooks are only sent to public hosts.`;
  return null;
}

/** The `x-murmur-signature` value for a body sent at `timestamp` (whole unix seconds). */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  if (!Number.isSafeInteger(timestamp)) throw new RangeError('A webhook timestamp is whole unix seconds');
  return signPayload(Buffer.from(secret, 'utf8'), body, timestamp);
}

/**
 * True when `header` is a signature of `body` with `secret` made within `toleranceSeconds` of `nowSeconds` (either
 * way). The signature is compared in constant time.
 */
export function verifyWebhookSignature(
  secret: string,
  header: string | undefined,
  body: string,
  nowSeconds: number,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
): boolean {
  return verifySignature(Buffer.from(secret, 'utf8'), body, header, nowSeconds, toleranceSeconds);
}

interface SlackText {
  type: 'mrkdwn' | 'plain_text';
  text: string;
}
interface SlackMessage {
  text: string;
  blocks: Array<
    | { type: 'section'; text: SlackText; fields?: SlackText[] }
    | { type: 'actions'; elements: Array<{ type: 'button'; text: SlackText; url: string }> }
  >;
}

/** Slack's control characters in user-provided text, as the entities Slack expects. */
const escapeSlack = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** At most `max` characters, cut with an ellipsis, never inside an entity or a surrogate pair. */
function clip(escaped: string, max: number): string {
  if (escaped.length <= max) return escaped;
  return `${escaped.slice(0, max - 1).replace(/&[a-z]*$|[\uD800-\uDBFF]$/, '')}…`;
}

/** `<url|label>` for an escaped label: the URL with the characters that would end the link percent-encoded. */
const slackLink = (url: string, label: string) =>
  `<${url.replace(/&/g, '&amp;').replace(/</g, '%3C').replace(/>/g, '%3E').replace(/\|/g, '%7C')}|${label}>`;

// Block Kit's limits (a payload breaking them is refused with 400 invalid_blocks, for good): 3,000 characters in a
// section's text, 2,000 in a field's, 10 fields. The title is clipped shorter so the text keeps most of the room.
const SECTION_TEXT_MAX = 3_000;
const FIELD_TEXT_MAX = 2_000;
const FIELDS_MAX = 10;
const TITLE_MAX = 250;

/**
 * The body of a Slack incoming webhook for an alert: `text` (the notification and fallback: title, text and
 * `<url|Open in Murmur>`) and `blocks` (a section with the title linked to `url`, the text and the fields, then a
 * button opening `url`, the dashboard). Title, text and fields are escaped (`&`, `<`, `>`) and clipped to Block Kit's
 * limits.
 */
export function slackPayload(alert: {
  title: string;
  text: string;
  url: string;
  fields?: Array<{ label: string; value: string }>;
}): SlackMessage {
  const title = clip(escapeSlack(alert.title), TITLE_MAX);
  const heading = `*${slackLink(alert.url, title)}*\n`;
  const text = clip(escapeSlack(alert.text), SECTION_TEXT_MAX - heading.length);
  const fields = (alert.fields ?? []).slice(0, FIELDS_MAX).map(({ label, value }): SlackText => ({
    type: 'mrkdwn',
    text: clip(`*${escapeSlack(label)}*\n${escapeSlack(value)}`, FIELD_TEXT_MAX),
  }));
  return {
    text: `${title}: ${text} ${slackLink(alert.url, 'Open in Murmur')}`,
    blocks: [
      {
        type: 'section',
        text: { type: 'mrkdwn', text: heading + text },
        ...(fields.length ? { fields } : {}),
      },
      {
        type: 'actions',
        elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open in Murmur' }, url: alert.url }],
      },
    ],
  };
}

/**
 * How a delivery ended. `retry` says whether sending the same delivery later may succeed; `retryAfterSeconds`, when
 * the receiver said how long to wait (Retry-After on a 429 or 503, as Slack's rate limits do).
 */
type DeliveryResult =
  | { ok: true; status: number }
  | { ok: false; retry: boolean; status?: number; error: string; retryAfterSeconds?: number };

/**
 * A Retry-After header's wait in whole seconds (delay-seconds, or an HTTP date from `now`; RFC 9110 §10.2.3), or
 * undefined when there is none or it is not one of those.
 */
export function retryAfterSeconds(
  header: string | string[] | undefined,
  now = Date.now(),
): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) || !/[a-z]/i.test(value) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The result for a final answer's status (redirects are not followed). */
function outcome(status: number, host: string, retryAfter?: number): DeliveryResult {
  if (status >= 200 && status < 300) return { ok: true, status };
  if (status >= 300 && status < 400) {
    return {
      ok: false,
      retry: false,
      status,
      error: `${host} answered ${status}: webhooks do not follow redirects`,
    };
  }
  const retry = status === 408 || status === 429 || status >= 500;
  const wait = retry && retryAfter !== undefined ? { retryAfterSeconds: retryAfter } : {};
  return {
    ok: false,
    retry,
    status,
    error: `${host} answered ${status}${wait.retryAfterSeconds !== undefined ? ` (retry after ${retryAfter} s)` : ''}`,
    ...wait,
  };
}

/** Reads up to MAX_RESPONSE_BYTES of the body and drops it; a longer or broken body closes the connection. */
async function discardBody(response: IncomingMessage): Promise<void> {
  let read = 0;
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      read += chunk.byteLength;
      if (read > MAX_RESPONSE_BYTES) break;
    }
  } catch {
    // The status has arrived, and it is the answer: a body cut short (or timed out) changes nothing.
  }
}

/**
 * POSTs one delivery and says how it went: 2xx is ok; 408, 429, 5xx, a timeout or a network error may be retried;
 * a 3xx (not followed), another 4xx or a refused URL (webhookUrlProblem, or a host name resolving to an address that
 * is not public) may not. `timestamp` is the time of this attempt (whole unix seconds), not the alert's, so a retry
 * hours later is still within a receiver's 5 minutes; `deliveryId` stays the same across retries. The error names
 * the host only, never the URL's path or query.
 */
export async function deliverWebhook(
  delivery: { url: string; body: string; secret: string; deliveryId: string; timestamp: number },
  options: { allowPrivateHosts: boolean; timeoutMs?: number; resolve?: Resolve },
): Promise<DeliveryResult> {
  const problem = webhookUrlProblem(delivery.url, options);
  if (problem) return { ok: false, retry: false, error: problem };
  const url = new URL(delivery.url);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  const headers = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(delivery.body)),
    'user-agent': 'Murmur-Webhooks/1',
    'x-murmur-signature': signWebhook(delivery.secret, delivery.timestamp, delivery.body),
    'x-murmur-delivery': delivery.deliveryId,
  };
  const agents = agentsFor(options);
  const https = url.protocol === 'https:';
  try {
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const request = (https ? httpsRequest : httpRequest)(
        url,
        { method: 'POST', agent: https ? agents.https : agents.http, headers, signal },
        resolve,
      );
      request.on('error', reject);
      request.end(delivery.body);
    });
    await discardBody(response);
    return outcome(response.statusCode ?? 0, url.host, retryAfterSeconds(response.headers['retry-after']));
  } catch (error) {
    // The guard's refusal (a name resolving to an address that is not public): its message names the host.
    if (error instanceof PermanentError) return { ok: false, retry: false, error: error.message };
    if (signal.aborted) {
      return { ok: false, retry: true, error: `${url.host}: no answer within ${timeoutMs / 1000} s` };
    }
    // Node's network errors carry a code (ECONNREFUSED, ENOTFOUND…); the guard's DNS failures name the host.
    const { code, message } = error as { code?: string; message: string };
    return { ok: false, retry: true, error: code ? `${url.host}: ${code}` : message };
  }
}

/** How many times a delivery is tried in all, the first included; after the last failure it is given up. */
export const WEBHOOK_MAX_ATTEMPTS = 6;
const FIRST_RETRY_SECONDS = 30;
const MAX_RETRY_SECONDS = 2 * 60 * 60;

/**
 * Seconds to wait after failed attempt number `attempt` (1 is the first delivery) before the next: 30 s, 2 min,
 * 8 min, 32 min, then 2 h (the cap), each ±20 % at random so deliveries that failed together (a receiver's outage) do
 * not all come back at once. With WEBHOOK_MAX_ATTEMPTS, the last try is about 2 h 40 min after the first. When the
 * receiver said how long to wait (`retryAfter`, seconds), that wait when it is longer, up to 2 h.
 */
export function retryDelaySeconds(attempt: number, retryAfter?: number): number {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError('attempt counts from 1');
  const nominal = Math.min(FIRST_RETRY_SECONDS * 4 ** (attempt - 1), MAX_RETRY_SECONDS);
  const backoff = Math.round(nominal * (0.8 + 0.4 * Math.random()));
  // A receiver's Retry-After is waited for when it is longer, up to the cap.
  return retryAfter === undefined ? backoff : Math.max(backoff, Math.min(retryAfter, MAX_RETRY_SECONDS));
}
