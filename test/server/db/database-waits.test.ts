// What the server does when its database cannot come back at once or goes away under a request: a full disk is said
// first, in a few words, and waited out (PostgreSQL tried again until space returns, health and the 503 answers saying
// why) rather than given up on after EMBEDDED_PG_RESTARTS tries; a connection broken under a request in flight
// (EPIPE, ECONNRESET: PostgreSQL died) is "the database is not answering" (503), not a failure of ours (500).
import { createServer, connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { causeOf } from '@server/db/postgres-process';
import { supervise, type Supervised } from '@server/db/supervisor';
import { databaseUnavailable } from '@server/db/unavailable';

/** PostgreSQL's own line when a WAL write finds the disk full. */
const DISK_FULL_LOG = 'PANIC:  could not write to file "pg_wal/xlogtemp.4242": No space left on device';

/** Something watched that dies when told to. */
function watched(): Supervised & { die(how: string): void } {
  let die!: (how: string) => void;
  const exited = new Promise<string>((done) => (die = done));
  return { exited, die, stop: async () => {} };
}

afterEach(() => vi.restoreAllMocks());

describe('a full disk', () => {
  it("is named first, in a few words, from PostgreSQL's log", () => {
    expect(causeOf(DISK_FULL_LOG)).toBe('the disk is full (No space left on device)');
    expect(causeOf('FATAL:  could not bind IPv4 address "127.0.0.1": Address already in use')).toBe(
      'its port is in use by another program',
    );
    expect(causeOf('FATAL:  the database system is starting up')).toBeUndefined();
  });

  it('is waited out past the tries allowed, health saying why, and the server goes on when space returns', async () => {
    const errors: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: string) => void errors.push(line));
    vi.spyOn(console, 'log').mockImplementation(() => {});
    const first = watched();
    let full = true;
    let tries = 0;
    const next = watched();
    const gaveUp: string[] = [];
    const supervisor = supervise(first, {
      restarts: 2,
      delayMs: 10,
      start: async () => {
        tries++;
        if (full)
          throw new Error(
            `The embedded PostgreSQL cannot start: ${causeOf(DISK_FULL_LOG)}. ${DISK_FULL_LOG}`,
          );
        return next;
      },
      onGiveUp: (line) => void gaveUp.push(line),
      waitFor: (reason) => (causeOf(reason)?.startsWith('the disk is full') ? 'the disk is full' : undefined),
    });
    first.die(`${causeOf(DISK_FULL_LOG)}; exit code 1: ${DISK_FULL_LOG}`);
    await vi.waitFor(() => expect(tries).toBeGreaterThan(4), { timeout: 10_000 });
    expect(gaveUp).toEqual([]);
    expect(supervisor.status()).toEqual({
      state: 'restarting',
      attempt: 1,
      attempts: 2,
      reason: 'the disk is full',
    });
    // The death (its cause first) and one line for the wait, not one a try.
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(
      /^\[db\] The embedded PostgreSQL stopped \(the disk is full \(No space left on device\);/,
    );
    expect(errors[1]).toMatch(
      /^\[db\] The embedded PostgreSQL did not start again: the disk is full; trying again/,
    );
    full = false;
    await vi.waitFor(() => expect(supervisor.status()).toEqual({ state: 'up' }), { timeout: 10_000 });
    expect(gaveUp).toEqual([]);
    await supervisor.stop();
  });

  it('but another failure still counts against the tries, and the server gives up after them', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const first = watched();
    const gaveUp: string[] = [];
    supervise(first, {
      restarts: 2,
      delayMs: 10,
      start: async () => {
        throw new Error('FATAL:  invalid value for parameter "max_connections": "plenty"');
      },
      onGiveUp: (line) => void gaveUp.push(line),
      waitFor: (reason) => (causeOf(reason)?.startsWith('the disk is full') ? 'the disk is full' : undefined),
    });
    first.die('exit code 1');
    await vi.waitFor(() => expect(gaveUp).toHaveLength(1), { timeout: 10_000 });
    expect(gaveUp[0]).toMatch(/did not start again after 2 tries/);
  });
});

/** The error Node gives a client whose peer (PostgreSQL, dying) did `end` to its socket with. */
async function socketError(end: (peer: Socket) => void, write: boolean): Promise<Error> {
  const server = createServer(end);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  try {
    const { port } = server.address() as { port: number };
    return await new Promise<Error>((done) => {
      // Half-open as pg's socket is: it goes on writing after the peer's FIN (a dying PostgreSQL's), into its reset.
      const client = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
      client.on('error', done);
      client.on('close', () => done(new Error('closed without an error')));
      if (write) {
        // Writes go on until the kernel says the peer is gone (EPIPE, or ECONNRESET when its reset came first).
        const timer = setInterval(() => client.writable && client.write(Buffer.alloc(65_536)), 5);
        client.on('close', () => clearInterval(timer));
      }
    });
  } finally {
    server.close();
  }
}

describe('a connection broken under a request', () => {
  it('is the database not answering (503), whether writing to it (EPIPE) or reading (ECONNRESET)', async () => {
    const written = await socketError((peer) => peer.destroy(), true);
    expect(['EPIPE', 'ECONNRESET']).toContain((written as NodeJS.ErrnoException).code);
    expect(databaseUnavailable(written)).toBe(true);
    const reset = await socketError((peer) => peer.resetAndDestroy(), false);
    expect((reset as NodeJS.ErrnoException).code).toBe('ECONNRESET');
    expect(databaseUnavailable(reset)).toBe(true);
    const epipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE', errno: -32, syscall: 'write' });
    expect(databaseUnavailable(epipe)).toBe(true);
    // A statement that failed is still ours to answer.
    expect(databaseUnavailable(Object.assign(new Error('division by zero'), { code: '22012' }))).toBe(false);
  });
});
