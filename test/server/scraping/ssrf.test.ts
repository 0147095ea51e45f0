// The SSRF guard of the collection connectors (server/scraping/connectors/http.ts, addresses.ts) against a local
// replay server: address literals in every spelling, host names whose DNS answers a private address, a DNS answer
// that changes between a check and the connection (rebinding), redirects, and the narrow allowance the tests and
// local development use. The DNS is injected (options.resolve) so a test decides what a name resolves to; this
// machine has no internet, so a "public" answer can only fail to connect.
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startReplayServer, type ReplayServer } from '@test/support/replay-server';
import {
  guardedLookup,
  httpGet,
  PermanentError,
  type HttpOptions,
  type Resolve,
} from '@server/scraping/connectors/http';

let replay: ReplayServer;
let port: string;
const guarded: HttpOptions = { timeoutMs: 1_000, allowPrivateHosts: false, userAgent: 'test' };
const local: HttpOptions = { ...guarded, allowPrivateHosts: true };
/** A public address (example.com's): allowed, and unreachable from here. */
const PUBLIC = '93.184.215.14';

beforeAll(async () => {
  replay = await startReplayServer();
  port = new URL(replay.url).port;
});
afterAll(() => replay.close());
beforeEach(() => {
  replay.routes.clear();
  replay.requests.length = 0;
  replay.routes.set('/', () => ({ body: '{"ok":true}' }));
});

/** A DNS answering from a list, one answer per question, the last one repeated; counts the questions. */
function scriptedDns(...answers: string[][]): Resolve & { asked: number } {
  const resolve = Object.assign(
    (hostname: string) => {
      const answer = answers[Math.min(resolve.asked, answers.length - 1)]!;
      resolve.asked++;
      void hostname;
      return Promise.resolve(answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
    },
    { asked: 0 },
  );
  return resolve;
}

describe('the SSRF guard', () => {
  it.each([
    // IPv6 forms that carry a loopback IPv4 address.
    '[::127.0.0.1]',
    '[::7f00:1]',
    '[::ffff:127.0.0.1]',
    '[::ffff:0:7f00:1]',
    '[64:ff9b::7f00:1]',
    '[64:ff9b:1::a00:1]',
    '[2002:7f00:1::]',
    '[2001:0:808:808::80ff:fffe]',
    // The usual IPv4 and IPv6 private and reserved addresses, in the spellings URL parsing accepts.
    '127.0.0.1',
    '127.1',
    '2130706433',
    '0x7f000001',
    '0.0.0.0',
    '10.0.0.1',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '192.0.2.1',
    '224.0.0.1',
    '255.255.255.255',
    '[::1]',
    '[::]',
    '[fd00::1]',
    '[fe80::1]',
    '[fec0::1]',
    '[ff02::1]',
    '[::ffff:10.0.0.1]',
    '[::ffff:169.254.169.254]',
    '[2001:db8::1]',
  ])('refuses http://%s before connecting', async (host) => {
    await expect(httpGet(`http://${host}:${port}/`, guarded)).rejects.toThrow(
      /resolves to a private or reserved address/,
    );
    expect(replay.requests).toEqual([]);
  });

  it('lets public addresses through, IPv6 forms that embed a public IPv4 included', async () => {
    const { addressProblem } = await import('@server/scraping/connectors/addresses');
    for (const address of [
      PUBLIC,
      '2606:4700::1111',
      '64:ff9b::5db8:d70e',
      '2002:5db8:d70e::1',
      '::ffff:5db8:d70e',
    ]) {
      expect(addressProblem(address, false), address).toBeUndefined();
    }
  });

  it('refuses a host name that resolves to a private address, and one of whose addresses is private', async () => {
    // The system's DNS: localhost is loopback (where the replay server listens). Refused for good, not retried.
    const refused = httpGet(`http://localhost:${port}/`, guarded);
    await expect(refused).rejects.toBeInstanceOf(PermanentError);
    await expect(refused).rejects.toThrow(/^localhost resolves to a private or reserved address/);
    for (const answer of [
      ['10.1.2.3'],
      ['fd12::1'],
      ['::ffff:192.168.0.1'],
      ['64:ff9b::a9fe:a9fe'],
      [PUBLIC, '127.0.0.1'],
      ['2606:4700::1111', '::1'],
    ]) {
      await expect(
        httpGet(`http://collect.example:${port}/`, { ...guarded, resolve: scriptedDns(answer) }),
        answer.join(', '),
      ).rejects.toThrow(/collect\.example resolves to a private or reserved address/);
    }
    expect(replay.requests).toEqual([]);
  });

  it('connects to the address it checked: a DNS answer that changes to loopback after the check never reaches it', async () => {
    // A rebinding DNS: public for the first question, the replay server's loopback for every later one. A guard that
    // resolves to check and lets the connection resolve again reaches the replay server; here the one resolution is
    // the connection's own, so the request goes to the public address (unreachable from this machine) or nowhere.
    const dns = scriptedDns([PUBLIC], ['127.0.0.1']);
    await expect(httpGet(`http://localhost:${port}/`, { ...guarded, resolve: dns })).rejects.toThrow();
    expect(replay.requests).toEqual([]);
    expect(dns.asked).toBe(1);
    // The socket's lookup hands connect exactly what it classified, and refuses when the answer turns private.
    const lookup = guardedLookup(scriptedDns([PUBLIC], ['127.0.0.1']), false);
    const ask = (all: boolean) =>
      new Promise<unknown>((resolve, reject) =>
        lookup('rebind.example', { all }, (error: Error | null, address: unknown) =>
          error ? reject(error) : resolve(address),
        ),
      );
    expect(await ask(true)).toEqual([{ address: PUBLIC, family: 4 }]);
    const refused = ask(false);
    await expect(refused).rejects.toBeInstanceOf(PermanentError);
    await expect(refused).rejects.toThrow(
      'rebind.example resolves to a private or reserved address (127.0.0.1',
    );
  });

  it('checks every redirect hop where it connects', async () => {
    replay.routes.set('/to-name', () => ({
      status: 302,
      headers: { location: `http://intranet.example:${port}/` },
    }));
    replay.routes.set('/to-zero', () => ({ status: 301, headers: { location: `http://0.0.0.0:${port}/` } }));
    // The first hop is allowed (loopback, as in local development); intranet.example answers loopback too.
    const dns = scriptedDns(['127.0.0.1']);
    const response = await httpGet(`http://localhost:${port}/to-name`, { ...local, resolve: dns });
    expect(response.body).toBe('{"ok":true}');
    expect(dns.asked).toBe(2);
    // The allowance for local development is narrow: loopback, private and link-local, never 0.0.0.0.
    replay.requests.length = 0;
    await expect(httpGet(`${replay.url}/to-zero`, local)).rejects.toThrow(/0\.0\.0\.0.*unspecified/);
    expect(replay.requests).toEqual(['/to-zero']);
  });

  it('decodes the compressed answers it asks for', async () => {
    const text = JSON.stringify({ note: 'ünïcödé '.repeat(50) });
    const bodies: Record<string, Buffer> = {
      gzip: gzipSync(text),
      br: brotliCompressSync(text),
      deflate: deflateSync(text),
      'deflate-raw': deflateRawSync(text),
    };
    for (const [name, body] of Object.entries(bodies)) {
      replay.routes.set(`/${name}`, (_url, _count, request) => {
        expect(request.headers['accept-encoding']).toContain(name.replace('-raw', ''));
        return { headers: { 'content-encoding': name.replace('-raw', '') }, body };
      });
      const response = await httpGet(`${replay.url}/${name}`, local);
      expect(response.body, name).toBe(text);
    }
  });
});
