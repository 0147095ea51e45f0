// A ClickHouse engine behind the part of ClickHouse's HTTP interface that @clickhouse/client speaks, for the tests of
// the store on a server (ANALYTICS_URL, server/analytics/remote.ts). No ClickHouse server can be installed on the
// machines these tests run on (Debian's clickhouse-server is 18.16, which lacks the functions the store's statements
// use), so the engine is chdb's (ClickHouse itself, in process) and only this front is written here: POST / with the
// statement in the body (after the `query` parameter's text, as ClickHouse joins them), the settings and `database`
// as URL parameters, HTTP basic authentication, the answer in the statement's FORMAT (TabSeparated otherwise), a
// refusal as status 500 with ClickHouse's own error text and X-ClickHouse-Exception-Code, and GET /ping.
//
// Run as its own process (chdb opens one data directory a process): `node --import tsx clickhouse-http-server.ts
// <dataDir> <user> <password> [port]` prints `listening <port>`, and stops when its parent does (stdin closes).
// CLICKHOUSE_HTTP_LOG=1 prints each statement's first words on stderr.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Session } from 'chdb';

const [dataDir, user, password, port = '0'] = process.argv.slice(2);
if (!dataDir || !user || password === undefined) {
  console.error('usage: clickhouse-http-server.ts <dataDir> <user> <password> [port]');
  process.exit(2);
}

/** URL parameters that are not settings (ClickHouse's HTTP handler reads these itself). */
const NOT_SETTINGS = new Set([
  'query',
  'query_id',
  'database',
  'default_format',
  'session_id',
  'role',
  'user',
  'password',
]);
/** Sessions by their settings: a request runs with its own settings, not those a request before it set. */
const sessions = new Map<string, Session[]>();
const busy = new Map<Session, number>();

function sessionFor(settings: Array<[string, string]>): Session {
  const key = JSON.stringify(settings);
  let pool = sessions.get(key);
  if (!pool) sessions.set(key, (pool = []));
  const idle = pool.find((session) => (busy.get(session) ?? 0) === 0);
  if (idle) return idle;
  if (pool.length >= 4) return pool.reduce((a, b) => ((busy.get(a) ?? 0) <= (busy.get(b) ?? 0) ? a : b));
  const session = new Session(dataDir, {
    connectionArgs: settings.map(([name, value]) => `--${name}=${value}`),
  });
  pool.push(session);
  return session;
}

function refuse(response: ServerResponse, status: number, text: string) {
  const code = /^Code: (\d+)\./.exec(text)?.[1] ?? '1002';
  response.writeHead(status, {
    'Content-Type': 'text/plain; charset=UTF-8',
    'X-ClickHouse-Exception-Code': code,
  });
  response.end(`${text.trim()}\n`);
}

function authorized(request: IncomingMessage): boolean {
  const header = request.headers.authorization ?? '';
  if (!header.startsWith('Basic ')) return false;
  const given = Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8');
  return given === `${user}:${password}`;
}

async function handle(request: IncomingMessage, response: ServerResponse) {
  const url = new URL(request.url ?? '/', 'http://localhost');
  if (request.method === 'GET' && url.pathname === '/ping') {
    response.writeHead(200, { 'Content-Type': 'text/plain; charset=UTF-8' });
    return void response.end('Ok.\n');
  }
  if (!authorized(request))
    return refuse(
      response,
      401,
      `Code: 516. DB::Exception: ${user}: Authentication failed: password is incorrect, or there is no user with such name. (AUTHENTICATION_FAILED)`,
    );
  if (request.method !== 'POST' || url.pathname !== '/')
    return refuse(
      response,
      404,
      'Code: 1002. DB::Exception: Not a ClickHouse HTTP request here. (UNKNOWN_EXCEPTION)',
    );
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString('utf8');
  const head = url.searchParams.get('query');
  const statement = head ? `${head}${body ? `\n${body}` : ''}` : body;
  const settings = [...url.searchParams.entries()]
    .filter(([name]) => !NOT_SETTINGS.has(name) && !name.startsWith('param_'))
    .sort(([a], [b]) => a.localeCompare(b));
  // CLICKHOUSE_HTTP_LOG=1: each statement's first words on stderr (to see by hand what a running server sends).
  if (process.env.CLICKHOUSE_HTTP_LOG === '1')
    console.error(`[clickhouse-http] ${statement.slice(0, 100).replace(/\s+/g, ' ')}`);
  const session = sessionFor(settings);
  busy.set(session, (busy.get(session) ?? 0) + 1);
  try {
    const result = await session.queryAsync(statement, {
      format: url.searchParams.get('default_format') ?? 'TabSeparated',
    });
    response.writeHead(200, {
      'Content-Type': 'text/plain; charset=UTF-8',
      'X-ClickHouse-Query-Id': url.searchParams.get('query_id') ?? '',
      'X-ClickHouse-Summary': '{}',
    });
    response.end(result.text());
  } catch (error) {
    refuse(response, 500, error instanceof Error ? error.message : String(error));
  } finally {
    busy.set(session, (busy.get(session) ?? 1) - 1);
  }
}

const server = createServer((request, response) => {
  handle(request, response).catch((error: unknown) =>
    refuse(response, 500, `Code: 1001. DB::Exception: ${String(error)}. (STD_EXCEPTION)`),
  );
});
server.listen(Number(port), '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening ${typeof address === 'object' && address ? address.port : 0}`);
});
// The parent went away (its stdin pipe closed): stop, as the embedded store's child does.
process.stdin.resume();
process.stdin.on('end', () => process.kill(process.pid, 'SIGKILL'));
