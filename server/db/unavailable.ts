// Errors that mean the database is not there (not that a statement failed): its connection was refused or broke, or
// it is shutting down or starting up. Answered 503 rather than 500 (server/app.ts).

/** Node's errors on connect: refused, no socket file (the embedded one's Unix socket is gone), timed out. */
const CONNECT_CODES = new Set(['ECONNREFUSED', 'ENOENT', 'ETIMEDOUT']);
/** PostgreSQL's: admin_shutdown, crash_shutdown, cannot_connect_now. Class 08 is connection exceptions. */
const SQLSTATES = new Set(['57P01', '57P02', '57P03']);

/**
 * Node's errors on a connection's socket that broke under a query in flight or a write to it: PostgreSQL died (its
 * backends killed with it) or the network dropped the connection.
 */
const SOCKET_CODES = new Set(['EPIPE', 'ECONNRESET']);

export function databaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code, syscall } = error as { code?: unknown; syscall?: unknown };
  if (typeof code === 'string' && syscall === 'connect' && CONNECT_CODES.has(code)) return true;
  if (typeof code === 'string' && SOCKET_CODES.has(code)) return true;
  if (
    typeof code === 'string' &&
    /^[0-9A-Z]{5}$/.test(code) &&
    (SQLSTATES.has(code) || code.startsWith('08'))
  )
    return true;
  // pg's own, when the connection ends under a query or the client is used after it broke.
  if (/Connection terminated|not queryable|terminating connection/.test(error.message)) return true;
  return error.cause !== undefined && databaseUnavailable(error.cause);
}
