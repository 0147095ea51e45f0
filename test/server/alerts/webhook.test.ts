// The alert webhook sender (server/alerts/webhook.ts) against a local receiver on 127.0.0.1: the signed POST and its
// headers, how each kind of answer is classified (retry or not), redirects not followed, a timeout, and the SSRF guard
// refusing addresses that are not public without touching the network (an address literal; a name whose injected
// DNS answers 10.0.0.1). Also the signature's verification, the Slack payload's escaping, the URL checks and the
// retry schedule.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  deliverWebhook,
  retryAfterSeconds,
  retryDelaySeconds,
  signWebhook,
  slackPayload,
  verifyWebhookSignature,
  WEBHOOK_MAX_ATTEMPTS,
  webhookUrlProblem,
} from '@server/alerts/webhook';
import type { Resolve } from '@server/scraping/connectors/http';

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}
/** How the receiver answers a request, by path; unknown paths answer 200. */
type Answer = (response: ServerResponse) => void;

const received: Received[] = [];
const answers = new Map<string, Answer>();
const hanging = new Set<ServerResponse>();
let base: string;
let port: number;
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const path = request.url ?? '/';
    received.push({
      method: request.method ?? '',
      path,
      headers: request.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    });
    const answer = answers.get(new URL(path, base).pathname);
    if (answer) answer(response);
    else response.end('ok');
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  port = (receiver.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  for (const response of hanging) response.destroy();
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});
beforeEach(() => {
  received.length = 0;
  answers.clear();
});

const SECRET = 'whsec_test-secret';
/** Slack's URLs carry their credential in the path: errors must not repeat it. */
const SLACK_LIKE_PATH = '/services/T000/B000/XXXXSECRETXXXX?token=querysecret';
const now = () => Math.floor(Date.now() / 1000);
const local = { allowPrivateHosts: true, timeoutMs: 2_000 };
const guarded = { allowPrivateHosts: false, timeoutMs: 2_000 };

function delivery(path: string, body = '{"alert":"spike"}') {
  return { url: `${base}${path}`, body, secret: SECRET, deliveryId: 'dlv_1', timestamp: now() };
}

/** A DNS that answers every name with these addresses, and counts the questions. */
function fixedDns(...addresses: string[]): Resolve & { asked: number } {
  const resolve = Object.assign(
    () => {
      resolve.asked++;
      return Promise.resolve(
        addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      );
    },
    { asked: 0 },
  );
  return resolve;
}

function expectNoSecrets(error: string) {
  for (const secret of ['XXXXSECRETXXXX', 'querysecret', 'services', SECRET])
    expect(error).not.toContain(secret);
}

describe('deliverWebhook', () => {
  it('posts the body once, signed, with the delivery id, and says ok on 2xx', async () => {
    answers.set('/hook', (response) => response.writeHead(204).end());
    const sent = delivery('/hook?token=abc');
    expect(await deliverWebhook(sent, local)).toEqual({ ok: true, status: 204 });
    expect(received).toHaveLength(1);
    const [request] = received as [Received];
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/hook?token=abc');
    expect(request.body).toBe(sent.body);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toBe('Murmur-Webhooks/1');
    expect(request.headers['x-murmur-delivery']).toBe('dlv_1');
    const signature = request.headers['x-murmur-signature'] as string;
    expect(signature).toBe(signWebhook(SECRET, sent.timestamp, sent.body));
    expect(verifyWebhookSignature(SECRET, signature, request.body, now())).toBe(true);
  });

  it('reads at most 64 KB of an answer and still says ok', async () => {
    answers.set('/big', (response) => response.end('x'.repeat(1024 * 1024)));
    expect(await deliverWebhook(delivery('/big'), local)).toEqual({ ok: true, status: 200 });
  });

  it.each([
    [500, true],
    [502, true],
    [503, true],
    [429, true],
    [408, true],
    [404, false],
    [400, false],
    [410, false],
  ])('classifies %i as retry %s, naming the host only', async (status, retry) => {
    answers.set(new URL(SLACK_LIKE_PATH, base).pathname, (response) => response.writeHead(status).end('no'));
    const result = await deliverWebhook(delivery(SLACK_LIKE_PATH), local);
    expect(result).toEqual({ ok: false, retry, status, error: `127.0.0.1:${port} answered ${status}` });
  });

  it.each([
    ['120', 120],
    [() => new Date(Date.now() + 90_000).toUTCString(), 90],
  ])('keeps a 429’s or 503’s Retry-After (%s) for the next attempt', async (header, seconds) => {
    const value = typeof header === 'function' ? header() : header;
    answers.set('/slow-down', (response) => response.writeHead(429, { 'retry-after': value }).end());
    const result = await deliverWebhook(delivery('/slow-down'), local);
    expect(result).toMatchObject({ ok: false, retry: true, status: 429 });
    const wait = (result as { retryAfterSeconds: number }).retryAfterSeconds;
    expect(Math.abs(wait - seconds)).toBeLessThanOrEqual(1);
    expect((result as { error: string }).error).toBe(
      `127.0.0.1:${port} answered 429 (retry after ${wait} s)`,
    );
  });

  it('does not follow a redirect: a 3xx is a permanent failure and the target receives nothing', async () => {
    answers.set('/moved', (response) => response.writeHead(302, { location: `${base}/target` }).end());
    const result = await deliverWebhook(delivery('/moved'), local);
    expect(result).toMatchObject({ ok: false, retry: false, status: 302 });
    expect(received.map((r) => r.path)).toEqual(['/moved']);
  });

  it('gives up waiting after timeoutMs, to be retried', async () => {
    answers.set(new URL(SLACK_LIKE_PATH, base).pathname, (response) => hanging.add(response));
    const result = await deliverWebhook(delivery(SLACK_LIKE_PATH), { ...local, timeoutMs: 200 });
    expect(result).toEqual({ ok: false, retry: true, error: `127.0.0.1:${port}: no answer within 0.2 s` });
  });

  it('retries a connection refused', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const url = `http://127.0.0.1:${closedPort}${SLACK_LIKE_PATH}`;
    const result = await deliverWebhook({ ...delivery('/'), url }, local);
    expect(result).toEqual({ ok: false, retry: true, error: `127.0.0.1:${closedPort}: ECONNREFUSED` });
  });

  it('retries a name that cannot be resolved', async () => {
    const resolve: Resolve = () => Promise.reject(new Error('getaddrinfo ENOTFOUND hooks.example'));
    const url = `https://hooks.example${SLACK_LIKE_PATH}`;
    const result = await deliverWebhook({ ...delivery('/'), url }, { ...guarded, resolve });
    expect(result).toEqual({
      ok: false,
      retry: true,
      error: 'hooks.example: cannot resolve the host name (getaddrinfo ENOTFOUND hooks.example)',
    });
  });

  it('refuses an address literal that is not public, for good, before connecting', async () => {
    for (const url of ['http://127.0.0.1:1/', 'http://[::1]:1/', `http://10.0.0.1${SLACK_LIKE_PATH}`]) {
      const result = await deliverWebhook({ ...delivery('/'), url }, guarded);
      expect(result, url).toMatchObject({
        ok: false,
        retry: false,
        error: expect.stringMatching(/not a public/),
      });
      expect(result).not.toHaveProperty('status');
      if (!result.ok) expectNoSecrets(result.error);
    }
    expect(await deliverWebhook(delivery('/'), guarded)).toMatchObject({ ok: false, retry: false });
    expect(received).toEqual([]);
  });

  it('refuses a name that resolves to a private address, where the connection resolves it', async () => {
    const dns = fixedDns('10.0.0.1');
    const url = `https://hooks.example${SLACK_LIKE_PATH}`;
    const result = await deliverWebhook({ ...delivery('/'), url }, { ...guarded, resolve: dns });
    expect(result).toMatchObject({
      ok: false,
      retry: false,
      error: expect.stringMatching(/^hooks\.example resolves to a private or reserved address \(10\.0\.0\.1/),
    });
    if (!result.ok) expectNoSecrets(result.error);
    expect(dns.asked).toBe(1);
  });

  it('reaches private hosts when they are allowed (local development, these tests)', async () => {
    const dns = fixedDns('127.0.0.1');
    const url = `http://hooks.example:${port}/named`;
    expect(await deliverWebhook({ ...delivery('/'), url }, { ...local, resolve: dns })).toEqual({
      ok: true,
      status: 200,
    });
    expect(received.map((r) => [r.path, r.headers.host])).toEqual([['/named', `hooks.example:${port}`]]);
  });
});

describe('the signature', () => {
  const body = '{"alert":"spike"}';
  const t = 1_700_000_000;

  it('is Stripe’s scheme: t=<seconds>,v1=<hex HMAC-SHA256 of "t.body">', () => {
    const mac = createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex');
    expect(signWebhook(SECRET, t, body)).toBe(`t=${t},v1=${mac}`);
    expect(() => signWebhook(SECRET, t + 0.5, body)).toThrow(RangeError);
  });

  it('verifies within the tolerance and refuses a tampered body, another secret, an old or future timestamp', () => {
    const header = signWebhook(SECRET, t, body);
    expect(verifyWebhookSignature(SECRET, header, body, t)).toBe(true);
    expect(verifyWebhookSignature(SECRET, header, body, t + 300)).toBe(true);
    expect(verifyWebhookSignature(SECRET, header, `${body} `, t)).toBe(false);
    expect(verifyWebhookSignature(SECRET, header, '{"alert":"dip"}', t)).toBe(false);
    expect(verifyWebhookSignature('whsec_other', header, body, t)).toBe(false);
    expect(verifyWebhookSignature(SECRET, header, body, t + 301)).toBe(false);
    expect(verifyWebhookSignature(SECRET, header, body, t - 301)).toBe(false);
    expect(verifyWebhookSignature(SECRET, header, body, t + 3_600, 7_200)).toBe(true);
    expect(verifyWebhookSignature(SECRET, header, body, t + 60, 30)).toBe(false);
  });

  it('refuses a malformed header, and a fresh timestamp attached to an old signature', () => {
    const header = signWebhook(SECRET, t, body);
    const v1 = header.split(',v1=')[1]!;
    for (const bad of [
      undefined,
      '',
      't=abc',
      `v1=${v1}`,
      `t=${t}`,
      `t=${t},v1=${v1.slice(2)}`,
      `t=${t},v1=zz`,
    ]) {
      expect(verifyWebhookSignature(SECRET, bad, body, t), String(bad)).toBe(false);
    }
    expect(verifyWebhookSignature(SECRET, `t=${t + 600},v1=${v1}`, body, t + 600)).toBe(false);
    expect(verifyWebhookSignature(SECRET, `${header},t=${t + 600}`, body, t + 600)).toBe(false);
  });
});

describe('slackPayload', () => {
  it('escapes Slack’s control characters and has a text fallback with the link and blocks', () => {
    const payload = slackPayload({
      title: 'Spike <script>&',
      text: 'Mentions of <!channel> & more',
      url: 'https://murmur.example/w/1/overview?query=q1&from=2026-01-01',
      fields: [{ label: 'Query <b>', value: '120 > 40 & rising' }],
    });
    const json = JSON.stringify(payload);
    expect(json).not.toContain('<script>');
    expect(json).not.toContain('<!channel>');
    expect(payload.text).toBe(
      'Spike &lt;script&gt;&amp;: Mentions of &lt;!channel&gt; &amp; more ' +
        '<https://murmur.example/w/1/overview?query=q1&amp;from=2026-01-01|Open in Murmur>',
    );
    expect(payload.blocks).toEqual([
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text:
            '*<https://murmur.example/w/1/overview?query=q1&amp;from=2026-01-01|Spike &lt;script&gt;&amp;>*\n' +
            'Mentions of &lt;!channel&gt; &amp; more',
        },
        fields: [{ type: 'mrkdwn', text: '*Query &lt;b&gt;*\n120 &gt; 40 &amp; rising' }],
      },
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            text: { type: 'plain_text', text: 'Open in Murmur' },
            url: 'https://murmur.example/w/1/overview?query=q1&from=2026-01-01',
          },
        ],
      },
    ]);
  });

  it('stays within Block Kit’s limits without cutting an entity in half', () => {
    const payload = slackPayload({
      title: '&'.repeat(1_000),
      text: '<'.repeat(5_000),
      url: 'https://murmur.example/w/1',
      fields: Array.from({ length: 12 }, (_, i) => ({ label: `f${i}`, value: '>'.repeat(3_000) })),
    });
    const [section] = payload.blocks;
    assert(section?.type === 'section' && section.fields);
    expect(section.text.text.length).toBeLessThanOrEqual(3_000);
    expect(section.text.text).toMatch(/^\*<https:\/\/murmur\.example\/w\/1\|(&amp;)+…>\*\n(&lt;)+…$/);
    expect(section.fields).toHaveLength(10);
    for (const field of section.fields) {
      expect(field.text.length).toBeLessThanOrEqual(2_000);
      expect(field.text).toMatch(/^\*f\d\*\n(&gt;)+…$/);
    }
  });
});

describe('webhookUrlProblem', () => {
  it.each([
    'https://hooks.slack.com/services/T000/B000/XXXX',
    'http://example.com:8080/hook?x=1',
    'https://93.184.215.14/hook',
  ])('accepts %s', (url) => {
    expect(webhookUrlProblem(url, { allowPrivateHosts: false })).toBeNull();
  });

  it.each([
    ['hooks.slack.com/services/T000', /not a complete URL/],
    ['ftp://example.com/hook', /https:\/\/ or http:\/\//],
    ['javascript:alert(1)', /https:\/\/ or http:\/\//],
    ['https://user:pass@example.com/hook', /user name or password/],
    ['https://:pass@example.com/hook', /user name or password/],
    [`https://example.com/${'a'.repeat(2_000)}`, /longer than 2,000 characters/],
    ['http://127.0.0.1/', /127\.0\.0\.1 is not a public address \(loopback\)/],
    ['http://2130706433/', /127\.0\.0\.1 is not a public address/],
    ['http://[::1]:8080/', /::1 is not a public address/],
    ['http://10.0.0.1/', /private/],
    ['http://169.254.169.254/latest/meta-data', /linkLocal/],
    ['http://[::ffff:192.168.0.1]/', /not a public address/],
    ['http://0.0.0.0/', /unspecified/],
  ])('refuses %s', (url, problem) => {
    expect(webhookUrlProblem(url, { allowPrivateHosts: false })).toMatch(problem);
  });

  it('allows private addresses when private hosts are allowed, but never unspecified or multicast ones', () => {
    for (const url of [
      'http://127.0.0.1:3000/',
      'http://[::1]/',
      'http://10.0.0.1/',
      'http://192.168.1.1/',
    ]) {
      expect(webhookUrlProblem(url, { allowPrivateHosts: true }), url).toBeNull();
    }
    expect(webhookUrlProblem('http://0.0.0.0/', { allowPrivateHosts: true })).toMatch(/unspecified/);
    expect(webhookUrlProblem('http://224.0.0.1/', { allowPrivateHosts: true })).toMatch(/multicast/);
  });
});

describe('retryDelaySeconds', () => {
  it('waits for a receiver’s Retry-After when it is longer than the backoff, up to 2 h', () => {
    expect(retryDelaySeconds(1, 600)).toBe(600);
    expect(retryDelaySeconds(1, 10 * 3600)).toBe(7200);
    expect(retryDelaySeconds(3, 1)).toBeGreaterThanOrEqual(0.8 * 480);
  });

  it('reads Retry-After as seconds or an HTTP date, and nothing else', () => {
    const now = Date.parse('2026-11-24T12:00:00Z');
    expect(retryAfterSeconds('30', now)).toBe(30);
    expect(retryAfterSeconds('Tue, 24 Nov 2026 12:02:00 GMT', now)).toBe(120);
    expect(retryAfterSeconds('Tue, 24 Nov 2026 11:00:00 GMT', now)).toBe(0);
    for (const bad of [undefined, '', '-5', '1.5', 'soon', '2026-11-24'])
      expect(retryAfterSeconds(bad, now), String(bad)).toBeUndefined();
  });

  it('backs off 30 s, 2 min, 8 min, 32 min, then 2 h, each within ±20 %', () => {
    const nominal = [30, 120, 480, 1_920, 7_200, 7_200, 7_200];
    for (const [index, seconds] of nominal.entries()) {
      for (let i = 0; i < 50; i++) {
        const delay = retryDelaySeconds(index + 1);
        expect(delay).toBeGreaterThanOrEqual(Math.floor(seconds * 0.8));
        expect(delay).toBeLessThanOrEqual(Math.ceil(seconds * 1.2));
      }
    }
    expect(WEBHOOK_MAX_ATTEMPTS).toBe(6);
    expect(() => retryDelaySeconds(0)).toThrow(RangeError);
  });
});
