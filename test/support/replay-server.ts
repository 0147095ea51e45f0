// A local HTTP server replaying recorded responses (test/fixtures/scraping) for the collection connectors: this
// machine has no internet, and the connectors' base URLs are configurable. A route answers by request path; each
// route sees how many times it was asked, so a test can answer 429 first and the page after.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'scraping');

export const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** Text, or bytes (a compressed body). */
  body?: string | Buffer;
  /** Never answer (a source that times out). */
  hang?: boolean;
  /** Answer after this many milliseconds. */
  delayMs?: number;
}

export type Route = (url: URL, count: number, request: IncomingMessage) => Reply;

export interface ReplayServer {
  url: string;
  /** Requests seen, as "path?query". */
  requests: string[];
  routes: Map<string, Route>;
  close(): Promise<void>;
}

export async function startReplayServer(routes: Record<string, Route> = {}): Promise<ReplayServer> {
  const table = new Map(Object.entries(routes));
  const counts = new Map<string, number>();
  const requests: string[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://replay.local');
    requests.push(`${url.pathname}${url.search}`);
    const route = table.get(url.pathname);
    const count = (counts.get(url.pathname) ?? 0) + 1;
    counts.set(url.pathname, count);
    const reply: Reply = route ? route(url, count, request) : { status: 404, body: '{"error":"not found"}' };
    if (reply.hang) {
      hanging.add(response);
      return;
    }
    const send = () => {
      response.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      response.end(reply.body ?? '');
    };
    if (reply.delayMs) setTimeout(send, reply.delayMs);
    else send();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    routes: table,
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The recorded Mastodon hashtag timeline: two pages of statuses (one malformed), a 429 before page 2, then empty. */
export function mastodonTagRoutes(base: () => string): Record<string, Route> {
  let page2Asked = 0;
  const link = (maxId: string) => ({
    link: `<${base()}/api/v1/timelines/tag/murmur?max_id=${maxId}>; rel="next", <${base()}/api/v1/timelines/tag/murmur?min_id=103>; rel="prev"`,
  });
  return {
    '/api/v1/timelines/tag/murmur': (url) => {
      const maxId = url.searchParams.get('max_id');
      if (!maxId) return { body: fixture('mastodon-tag-page1.json'), headers: link('101') };
      if (maxId === '101') {
        page2Asked++;
        if (page2Asked === 1)
          return { status: 429, headers: { 'retry-after': '1' }, body: '{"error":"Too many requests"}' };
        return { body: fixture('mastodon-tag-page2.json'), headers: link('99') };
      }
      return { body: fixture('mastodon-empty.json') };
    },
  };
}

/** The settings that point every source with a stand-in here (Hacker News, Reddit, YouTube, X) at `url`. */
export const sourceUrlsAt = (url: string) => ({
  SCRAPING_HACKERNEWS_URL: url,
  SCRAPING_REDDIT_URL: url,
  SCRAPING_REDDIT_AUTH_URL: url,
  SCRAPING_YOUTUBE_URL: url,
  SCRAPING_X_URL: url,
});
