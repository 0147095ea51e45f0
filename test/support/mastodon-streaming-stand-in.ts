// A local Mastodon streaming API for the stream tests: an HTTP server on 127.0.0.1 (an ephemeral port) answering
// GET /api/v1/streaming/public and GET /api/v1/streaming/hashtag?tag=x with server-sent events, as an instance does:
// `event: update` with a Status as JSON, and `:thump` heartbeats. A status pushed goes to the public stream's open
// connections and to those of the hashtag streams of its tags (as an instance fans it out); any other event (a delete)
// to every open connection. drop() destroys them (no end of stream, as a network drop). A Mastodon stream has no
// cursor: a connection gets what is pushed while it is open, nothing before.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MastodonStreamingStandIn {
  /** http://127.0.0.1:port: the instance's origin. */
  origin: string;
  /** Connections opened, in all. */
  readonly connections: number;
  /** Connections open now. */
  readonly open: number;
  /** The streams open now: `public`, or `#tag` for a hashtag's (lower case), one entry a connection, sorted. */
  readonly streams: string[];
  /** An event to each open connection (the data as written: JSON, or anything a malformed event holds). */
  push(event: string, data: string): void;
  heartbeat(): void;
  /** Cuts every open connection. */
  drop(): void;
  /** Answers the next connections with this status (503 while the instance is down); undefined: streams. */
  refuseWith(status: number | undefined): void;
  /** The same for the public stream alone (401: it wants sign-in), the hashtag streams still answered. */
  refusePublicWith(status: number | undefined): void;
  close(): Promise<void>;
}

/** A Status as the instance streams it: public, by one account, `id` in its URI. */
export function streamedStatus(id: string, text: string, postedAt = new Date(), tags: string[] = []) {
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
    tags: tags.map((name) => ({ name, url: `https://stand-in.example/tags/${name}` })),
    mentions: [],
  });
}

/** The hashtags of a pushed status (lower case), none when it is not one. */
function tagsOf(data: string): string[] {
  try {
    const status = JSON.parse(data) as { tags?: { name?: unknown }[] };
    return (status.tags ?? []).flatMap((tag) =>
      typeof tag.name === 'string' ? [tag.name.toLowerCase()] : [],
    );
  } catch {
    return [];
  }
}

export async function startMastodonStreamingStandIn(): Promise<MastodonStreamingStandIn> {
  /** Each open connection, with its stream: `public` or `#tag`. */
  const open = new Map<ServerResponse, string>();
  let connections = 0;
  let refusing: number | undefined;
  let refusingPublic: number | undefined;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const tag = url.searchParams.get('tag');
    const stream =
      url.pathname === '/api/v1/streaming/public'
        ? 'public'
        : url.pathname === '/api/v1/streaming/hashtag' && tag
          ? `#${tag.toLowerCase()}`
          : undefined;
    if (req.method !== 'GET' || !stream) {
      res.writeHead(req.method === 'GET' && url.pathname === '/api/v1/streaming/hashtag' ? 400 : 404).end();
      return;
    }
    const refused = refusing ?? (stream === 'public' ? refusingPublic : undefined);
    if (refused !== undefined) {
      res.writeHead(refused, { 'content-type': 'application/json' }).end('{"error":"unavailable"}');
      return;
    }
    connections += 1;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(':)\n\n');
    open.set(res, stream);
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
    get streams() {
      return [...open.values()].sort();
    },
    push(event, data) {
      const lines = data.split('\n').map((line) => `data: ${line}`);
      const tags = event === 'update' || event === 'status.update' ? tagsOf(data) : undefined;
      for (const [res, stream] of open)
        if (!tags || stream === 'public' || tags.includes(stream.slice(1)))
          res.write(`event: ${event}\n${lines.join('\n')}\n\n`);
    },
    heartbeat() {
      for (const res of open.keys()) res.write(':thump\n');
    },
    drop() {
      for (const res of open.keys()) res.socket?.destroy();
      open.clear();
    },
    refuseWith(status) {
      refusing = status;
    },
    refusePublicWith(status) {
      refusingPublic = status;
      if (status !== undefined)
        for (const [res, stream] of open)
          if (stream === 'public') {
            res.socket?.destroy();
            open.delete(res);
          }
    },
    async close() {
      for (const res of open.keys()) res.socket?.destroy();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
