// The HTTP server's own limits, on raw connections to a listening server: a connection that does not finish its
// request's head in time is closed, and one address holds at most so many connections open.
import { connect, type AddressInfo, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadServerConfig } from '@server/config';
import { createTestServer, type TestServer } from '@test/support/server-harness';

const CAP = 3;
let server: TestServer;
let port: number;
const sockets: Socket[] = [];
const logged: { level: number; msg?: string }[] = [];

beforeAll(async () => {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) logged.push(JSON.parse(line));
      done();
    },
  });
  server = await createTestServer(
    { HTTP_HEADERS_TIMEOUT_SECONDS: '1', HTTP_MAX_SOCKETS_PER_ADDRESS: String(CAP) },
    { logger: { level: 'warn', stream } },
  );
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  port = (server.app.server.address() as AddressInfo).port;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await server?.close();
});

interface Connection {
  socket: Socket;
  /** Everything the server sent, once it closed the connection. */
  closed: Promise<string>;
}

/** A connection that sends `head` (part of a request, or all of it) and waits. */
function open(head: string): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const closed = new Promise<string>((done) => socket.on('close', () => done(text)));
    socket.on('error', reject);
    socket.on('connect', () => socket.write(head, () => resolve({ socket, closed })));
  });
}

const partialHead = () => open(`GET /api/users/me HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
/** A request with an effect the test can see: it stores a sign-in nonce. */
const wholeRequest = () =>
  open(
    `POST /api/auth/nonce HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
  );
const openConnections = () =>
  new Promise<number>((resolve, reject) =>
    server.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );
const nonces = async () =>
  (await server.db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM login_nonces`)).rows[0]!.n;

describe('a request whose head does not arrive in time', () => {
  it('has its connection closed by the server after HTTP_HEADERS_TIMEOUT_SECONDS', async () => {
    const slow = await partialHead();
    const silent = await open('');
    const answers = await Promise.all([slow.closed, silent.closed]);
    for (const answer of answers) expect(answer).not.toMatch(/^HTTP\/1\.1 2/);
  });
});

describe('connections per address', () => {
  it('refuses one over HTTP_MAX_SOCKETS_PER_ADDRESS with a 429 and closes it, without handling its request', async () => {
    const held = await Promise.all(Array.from({ length: CAP }, () => partialHead()));
    const before = await nonces();
    const refused = await wholeRequest();
    const answer = await refused.closed;
    expect(answer).toMatch(/^HTTP\/1\.1 429 /);
    expect(answer).toContain('"error":"too_many_connections"');
    // Its request was never handled: the nonce it asked for was not stored.
    await new Promise((resolve) => setImmediate(resolve));
    expect(await nonces()).toBe(before);
    expect(logged).toContainEqual(
      expect.objectContaining({
        level: 40,
        msg: `refused 1 connection(s) over HTTP_MAX_SOCKETS_PER_ADDRESS (${CAP}) from one address`,
      }),
    );
    // Once one closes, the address may open another.
    const [first] = held;
    first!.socket.destroy();
    // The server sees the closes a moment after the client does.
    await vi.waitFor(async () => expect(await openConnections()).toBe(CAP - 1), {
      timeout: 10_000,
      interval: 20,
    });
    const next = await wholeRequest();
    expect(await next.closed).toMatch(/^HTTP\/1\.1 200 /);
    expect(await nonces()).toBe(before + 1);
    for (const connection of held) connection.socket.destroy();
  });
});

describe('configuration', () => {
  it('refuses a head time-out longer than the request time-out', () => {
    expect(() =>
      loadServerConfig({ HTTP_HEADERS_TIMEOUT_SECONDS: '30', HTTP_REQUEST_TIMEOUT_SECONDS: '20' }),
    ).toThrow(/HTTP_HEADERS_TIMEOUT_SECONDS/);
    expect(() => loadServerConfig({ HTTP_HEADERS_TIMEOUT_SECONDS: '0' })).toThrow(
      /HTTP_HEADERS_TIMEOUT_SECONDS/,
    );
  });
});
