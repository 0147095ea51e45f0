// A local Jetstream (Bluesky's JSON firehose) for the stream tests: a WebSocket server on 127.0.0.1 (an ephemeral
// port) serving a scripted sequence of events at `/subscribe`. It honours `cursor` (microseconds: it replays from the
// first event at or after it; without one, from the start of the script), can drop a connection after a number of
// events (the socket destroyed, no close frame, as a network drop), and serves whatever text the script holds (a
// malformed event is a script entry). Node has a WebSocket client but no server: the server side of RFC 6455 that a
// stand-in needs (the handshake, unmasked text frames out, the client's masked close and ping frames in) is here.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

export interface ScriptedEvent {
  /** Its place in the stream (the `time_us` a real event carries; a malformed one still has a place). */
  timeUs: number;
  /** The message as sent. */
  text: string;
}

export interface JetstreamStandInOptions {
  events: ScriptedEvent[];
  /** Between two events. */
  intervalMs?: number;
  /** Connection n (0-based) is dropped after it has sent drops[n] events; absent: not dropped. */
  drops?: Array<number | undefined>;
}

export interface JetstreamStandIn {
  /** ws://127.0.0.1:port/subscribe */
  url: string;
  /** Each connection's query (its `cursor` and `wantedCollections`). */
  readonly connections: URLSearchParams[];
  /** Events sent over all connections. */
  readonly sent: number;
  /** More events, served to open connections after what they have. */
  push(...events: ScriptedEvent[]): void;
  close(): Promise<void>;
}

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** A server-to-client frame (never masked): FIN and the opcode, the payload length, the payload. */
function frame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const head =
    length < 126
      ? Buffer.from([0x80 | opcode, length])
      : length < 65_536
        ? Buffer.from([0x80 | opcode, 126, length >> 8, length & 0xff])
        : Buffer.concat([Buffer.from([0x80 | opcode, 127]), bigLength(length)]);
  return Buffer.concat([head, payload]);
}

function bigLength(length: number) {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(length));
  return bytes;
}

/** The client's frames (masked): calls `on(opcode, payload)` for each whole one, returns what is left. */
function readFrames(buffer: Buffer, on: (opcode: number, payload: Buffer) => void): Buffer {
  let rest = buffer;
  for (;;) {
    if (rest.length < 2) return rest;
    const opcode = rest[0]! & 0x0f;
    const masked = (rest[1]! & 0x80) !== 0;
    let length = rest[1]! & 0x7f;
    let offset = 2;
    if (length === 126) {
      if (rest.length < 4) return rest;
      length = rest.readUInt16BE(2);
      offset = 4;
    } else if (length === 127) {
      if (rest.length < 10) return rest;
      length = Number(rest.readBigUInt64BE(2));
      offset = 10;
    }
    const mask = masked ? rest.subarray(offset, offset + 4) : undefined;
    if (masked) offset += 4;
    if (rest.length < offset + length) return rest;
    const payload = Buffer.from(rest.subarray(offset, offset + length));
    if (mask) for (let i = 0; i < payload.length; i++) payload[i]! ^= mask[i % 4]!;
    on(opcode, payload);
    rest = rest.subarray(offset + length);
  }
}

export async function startJetstreamStandIn(options: JetstreamStandInOptions): Promise<JetstreamStandIn> {
  const events = [...options.events].sort((a, b) => a.timeUs - b.timeUs);
  const intervalMs = options.intervalMs ?? 0;
  const connections: URLSearchParams[] = [];
  const sockets = new Set<Duplex>();
  const wakers = new Set<() => void>();
  let sent = 0;

  const serve = async (socket: Duplex, query: URLSearchParams, index: number) => {
    const cursor = query.get('cursor');
    let next = cursor === null ? 0 : events.findIndex((event) => event.timeUs >= Number(cursor));
    if (next === -1) next = events.length;
    const dropAfter = options.drops?.[index];
    let count = 0;
    while (!socket.destroyed) {
      if (dropAfter !== undefined && count >= dropAfter) {
        socket.destroy();
        return;
      }
      const event = events[next];
      if (!event) {
        // Caught up: wait for more (push) as the real stream idles between posts.
        await new Promise<void>((wake) => {
          wakers.add(wake);
          socket.once('close', wake);
        });
        continue;
      }
      socket.write(frame(0x1, Buffer.from(event.text, 'utf8')));
      sent += 1;
      count += 1;
      next += 1;
      if (intervalMs > 0) await new Promise((r) => setTimeout(r, intervalMs));
    }
  };

  const server = createServer((_request, response) => {
    response.writeHead(426, { 'content-type': 'text/plain' }).end('WebSocket only');
  });
  server.on('upgrade', (request: IncomingMessage, socket: Duplex) => {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    const key = request.headers['sec-websocket-key'];
    if (url.pathname !== '/subscribe' || typeof key !== 'string') {
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
      return;
    }
    const accept = createHash('sha1')
      .update(key + GUID)
      .digest('base64');
    socket.write(
      'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
        `Sec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buffered: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = readFrames(Buffer.concat([buffered, chunk]), (opcode, payload) => {
        if (opcode === 0x8) {
          socket.end(frame(0x8, payload.subarray(0, 2)));
        } else if (opcode === 0x9) {
          socket.write(frame(0xa, payload));
        }
      });
    });
    const index = connections.push(url.searchParams) - 1;
    void serve(socket, url.searchParams, index);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;

  return {
    url: `ws://127.0.0.1:${port}/subscribe`,
    connections,
    get sent() {
      return sent;
    },
    push(...more) {
      events.push(...more);
      events.sort((a, b) => a.timeUs - b.timeUs);
      for (const wake of wakers) wake();
      wakers.clear();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      for (const wake of wakers) wake();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

/** A post's commit event as Jetstream sends it. */
export function postEvent(
  timeUs: number,
  did: string,
  rkey: string,
  text: string,
  extra: Record<string, unknown> = {},
): ScriptedEvent {
  const record = {
    $type: 'app.bsky.feed.post',
    text,
    createdAt: new Date(Math.floor(timeUs / 1_000)).toISOString(),
    langs: ['en'],
    ...extra,
  };
  const event = {
    did,
    time_us: timeUs,
    kind: 'commit',
    commit: {
      rev: `rev${timeUs}`,
      operation: 'create',
      collection: 'app.bsky.feed.post',
      rkey,
      record,
      cid: 'bafy',
    },
  };
  return { timeUs, text: JSON.stringify(event) };
}

/** A post's deletion. */
export const deleteEvent = (timeUs: number, did: string, rkey: string): ScriptedEvent => ({
  timeUs,
  text: JSON.stringify({
    did,
    time_us: timeUs,
    kind: 'commit',
    commit: { rev: `rev${timeUs}`, operation: 'delete', collection: 'app.bsky.feed.post', rkey },
  }),
});
