// A local HTTP server for tests of the real API client: each test sets a handler; calls are recorded.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRequest {
  method: string;
  path: string;
  /** The query string, with its "?" ("" without one). */
  search: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A reply, or 'drop' to destroy the socket (a network failure as the browser sees it). */
export type FakeReply =
  | {
      status: number;
      body?: unknown;
      delayMs?: number;
      headers?: Record<string, string>;
      /** Text written after the body, each part `delayMs` after the one before (a streamed answer). */
      parts?: Array<{ text: string; delayMs: number }>;
    }
  | 'drop';
type FakeHandler = (request: FakeRequest) => FakeReply | Promise<FakeReply>;

export interface FakeHttp {
  url: string;
  calls: FakeRequest[];
  handle: FakeHandler;
  count(method: string, path: string): number;
  close(): Promise<void>;
}

export async function startFakeHttp(): Promise<FakeHttp> {
  const fake = {
    url: '',
    calls: [] as FakeRequest[],
    handle: (() => ({ status: 404, body: { error: 'no handler' } })) as FakeHandler,
    count: (method: string, path: string) =>
      fake.calls.filter((c) => c.method === method && c.path === path).length,
    close: () => Promise.resolve(),
  };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const request: FakeRequest = {
        method: req.method ?? 'GET',
        path: new URL(req.url ?? '/', 'http://x').pathname,
        search: new URL(req.url ?? '/', 'http://x').search,
        headers: req.headers,
        body,
      };
      fake.calls.push(request);
      void Promise.resolve(fake.handle(request)).then(async (reply) => {
        if (reply === 'drop') {
          req.socket.destroy();
          return;
        }
        if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
        const text =
          reply.body === undefined
            ? ''
            : typeof reply.body === 'string'
              ? reply.body
              : JSON.stringify(reply.body);
        res.writeHead(reply.status, {
          'content-type': typeof reply.body === 'string' ? 'text/plain' : 'application/json',
          'access-control-allow-origin': '*',
          ...reply.headers,
        });
        if (!reply.parts) {
          res.end(text);
          return;
        }
        res.write(text);
        for (const part of reply.parts) {
          await new Promise((r) => setTimeout(r, part.delayMs));
          res.write(part.text);
        }
        res.end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  fake.url = `http://127.0.0.1:${port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}

/**
 * The signed-in shell's own background calls (the header's bell), answered as a quiet workspace would: a fake backend
 * for a screen inside the shell answers these first, so the run's output holds only what a test is about.
 */
export function shellReply(request: FakeRequest): FakeReply | undefined {
  if (request.method === 'GET' && request.path === '/api/notifications/unread-count') {
    return { status: 200, body: { unread: 0 } };
  }
  return undefined;
}

/** An unsigned JWT-shaped token with the given expiry (the SPA reads exp; it never verifies). */
export function fakeJwt(expSeconds: number, sub = 'user-1'): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode({ sub, exp: expSeconds })}.signature`;
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);
