// A local Mastodon streaming API for the stream tests: an HTTP server on 127.0.0.1 (an ephemeral port) answering
// GET /api/v1/streaming/public with server-sent events, as an instance does: `event: update` with a Status as JSON, and
// `:thump` heartbeats. Events pushed go to every open connection; drop() destroys them (no end of stream, as a
// network drop). A Mastodon stream has no cursor: a connection gets what is pushed while it is open, nothing before.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MastodonStreamingStandIn {
  /** http://127.0.0.1:port: the instance's origin. */
  origin: string;
  /** Connections opened, in all. */
  readonly connections: number;
  /** Connections open now. */
  readonly open: number;
  /** An event to each open connection (the data as written: JSON, or anything a malformed event holds). */
  push(event: string, data: string): void;
  heartbeat(): void;
  /** Cuts every open connection. */
  drop(): void;
  /** Answers the next connections with this status (503 while the instance is down); undefined: streams. */
  refuseWith(status: number | undefined): void;
  close(): Promise<void>;
}

/** A Status as the instance streams it: public, by one account, `id` in its URI. */
export function streamedStatus(id: string, text: string, postedAt = new Date()) {
  return JSON.stringify({
    id,
    uri: `https://stand-in.example/users/ana/statuses/${id}`,
    url: `https://stand-in.example/@ana/${id}`,
    created_at: postedAt.toISOString(),
    language: 'en',
    content: `<p>${text}</p>`,
    replies_count: 0,
    reblogs_count: 0,
    favourites_count: 0,
    account: {
      id: '1',
      username: 'ana',
      acct: 'ana',
      display_name: 'Ana',
      url: 'https://stand-in.example/@ana',
    },
    media_attachments: [],
    tags: [],
    mentions: [],
  });
}

export async function startMastodonStreamingStandIn(): Promise<MastodonStreamingStandIn> {
  const open = new Set<ServerResponse>();
  let connections = 0;
  let refusing: number | undefined;
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || new URL(req.url ?? '/', 'http://x').pathname !== '/api/v1/streaming/public') {
      res.writeHead(404).end();
      return;
    }
    if (refusing !== undefined) {
      res.writeHead(refusing, { 'content-type': 'application/json' }).end('{"error":"unavailable"}');
      return;
    }
    connections += 1;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(':)\n\n');
    open.add(res);
    res.on('close', () => open.delete(res));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    get connections() {
      return connections;
    },
    get open() {
      return open.size;
    },
    push(event, data) {
      const lines = data.split('\n').map((line) => `data: ${line}`);
      for (const res of open) res.write(`event: ${event}\n${lines.join('\n')}\n\n`);
    },
    heartbeat() {
      for (const res of open) res.write(':thump\n');
    },
    drop() {
      for (const res of open) res.socket?.destroy();
      open.clear();
    },
    refuseWith(status) {
      refusing = status;
    },
    async close() {
      for (const res of open) res.socket?.destroy();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
