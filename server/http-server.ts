// The HTTP server under Fastify: the time-outs a browser needs and no more, and a cap on the connections one address
// holds open, so that a client sending its requests slowly (or not at all) cannot hold the server's sockets.
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyServerFactory } from 'fastify';
import ipaddr from 'ipaddr.js';
import type { ServerConfig } from './config';

export interface HttpLimits {
  /** A request's head (request line and headers) must arrive within this, from the connection or the last answer. */
  headersTimeoutMs: number;
  /** The whole request, body included (an upload), must arrive within this. */
  requestTimeoutMs: number;
  /** An idle kept-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** Connections one address may hold open at once; 0: no cap. */
  maxSocketsPerAddress: number;
}

export const httpLimitsOf = (config: ServerConfig): HttpLimits => ({
  headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_SECONDS * 1000,
  requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_SECONDS * 1000,
  keepAliveTimeoutMs: config.HTTP_KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
  maxSocketsPerAddress: config.HTTP_MAX_SOCKETS_PER_ADDRESS,
});

const REFUSAL_BODY = JSON.stringify({
  error: 'too_many_connections',
  message:
    'Too many connections are open from your address. Close some (other tabs or windows) and try again in a moment.',
});
/** Written as the connection is accepted, before anything is read from it; then the connection is closed. */
const REFUSAL =
  'HTTP/1.1 429 Too Many Requests\r\n' +
  'Content-Type: application/json; charset=utf-8\r\n' +
  `Content-Length: ${Buffer.byteLength(REFUSAL_BODY)}\r\n` +
  'Cache-Control: no-store\r\nRetry-After: 5\r\nConnection: close\r\n\r\n' +
  REFUSAL_BODY;

/** The address a connection counts against: IPv6 clients by their /64 (one host's block), IPv4 by the address. */
function addressKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return `${(parsed as ipaddr.IPv6).parts.slice(0, 4).join(':')}::/64`;
}

/** Refusals are said at most this often, as a count: under a flood, one line a minute rather than one per socket. */
const REFUSALS_REPORTED_EVERY_MS = 60_000;

/** Counts connections per address; one over the cap gets the refusal and is closed, and its request never runs. */
function capPerAddress(
  server: Server,
  max: number,
  refused: WeakSet<Socket>,
  warn: (message: string) => void,
) {
  const open = new Map<string, number>();
  let unreported = 0;
  let reportedAt = 0;
  const report = () => {
    unreported += 1;
    if (Date.now() - reportedAt < REFUSALS_REPORTED_EVERY_MS) return;
    warn(`refused ${unreported} connection(s) over HTTP_MAX_SOCKETS_PER_ADDRESS (${max}) from one address`);
    [unreported, reportedAt] = [0, Date.now()];
  };
  // Before the HTTP layer's own listener: the refusal is the first thing the connection gets.
  server.prependListener('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (!address) return void socket.destroy();
    const key = addressKey(address);
    const count = (open.get(key) ?? 0) + 1;
    open.set(key, count);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left > 0) open.set(key, left);
      else open.delete(key);
    });
    if (count > max) {
      refused.add(socket);
      socket.end(REFUSAL);
      report();
    }
  });
}

/** Fastify's server factory: a node:http server with these limits; refused connections are counted into `warn`. */
export function limitedServer(limits: HttpLimits, warn: (message: string) => void): FastifyServerFactory {
  return (handler) => {
    const refused = new WeakSet<Socket>();
    const server = createServer(
      {
        headersTimeout: limits.headersTimeoutMs,
        requestTimeout: limits.requestTimeoutMs,
        keepAliveTimeout: limits.keepAliveTimeoutMs,
        // How often the time-outs are checked (Node's default, 30 s, would let a connection outlive its time-out by
        // that much).
        connectionsCheckingInterval: Math.max(100, Math.min(1000, limits.headersTimeoutMs / 4)),
      },
      // The refused connection's parser may still read a request that came with it: it is not handled.
      (request, response) => {
        if (!refused.has(request.socket)) handler(request, response);
      },
    );
    server.keepAliveTimeout = limits.keepAliveTimeoutMs;
    if (limits.maxSocketsPerAddress > 0) capPerAddress(server, limits.maxSocketsPerAddress, refused, warn);
    return server;
  };
}

/**
 * Fails, naming the setting to change, when `port` on `host` is taken by another program: said at start, before the
 * database and the SPA's build take their time.
 */
export async function ensurePortFree(host: string, port: number, setting: string): Promise<void> {
  const { createServer: createNetServer } = await import('node:net');
  await new Promise<void>((done, fail) => {
    const probe = createNetServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      fail(
        new Error(
          error.code === 'EADDRINUSE'
            ? `Port ${port} (${host}) is in use by another program: stop it, or set ${setting} to a free port.`
            : `Cannot listen on ${host}:${port} (${setting}): ${error.message}`,
        ),
      ),
    );
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => done()));
  });
}
