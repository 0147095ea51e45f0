// Requests in flight when the embedded PostgreSQL dies (SIGKILL) under a running server, as `npm start` runs it: each
// is answered 503 database_unavailable (its connection broke: EPIPE, ECONNRESET, "Connection terminated"), never 500,
// and the server serves again once PostgreSQL is back.
import type { ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { health, postmasterOf, startServer, stopLeftPostgres, until } from '@test/support/supervised-server';

const dir = mkdtempSync(join(tmpdir(), 'murmur-in-flight-'));
chmodSync(dir, 0o755);
const started: ChildProcess[] = [];

afterAll(() => {
  for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
  stopLeftPostgres(join(dir, 'server'));
  rmSync(dir, { recursive: true, force: true });
});

describe('PostgreSQL dying under requests in flight', () => {
  it('answers each 503 or as usual, never 500', async () => {
    const server = await startServer(
      join(dir, 'server'),
      {
        EMBEDDED_PG_RESTARTS: '10',
        EMBEDDED_PG_RESTART_DELAY_MS: '300',
        LOGIN_RATE_LIMIT_PER_MINUTE: '100000',
      },
      started,
    );
    const statuses = new Map<number, number>();
    const bodies: string[] = [];
    let going = true;
    // Writers that keep the pool's connections busy: a sign-in nonce each.
    const writer = async () => {
      while (going) {
        const response = await fetch(`${server.origin}/api/auth/nonce`, { method: 'POST' });
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        const body = await response.text();
        if (response.status >= 500 && response.status !== 503) bodies.push(body);
      }
    };
    const writers = Array.from({ length: 12 }, writer);
    await until(
      async () => statuses.get(200) ?? 0,
      (ok) => ok > 50,
    );
    process.kill(postmasterOf(server.dataDir), 'SIGKILL');
    await until(
      () => health(server),
      (h) => h.body.database.state === 'restarting',
    );
    await until(
      () => health(server),
      (h) => h.body.database.state === 'up',
    );
    const before = statuses.get(200) ?? 0;
    await until(
      async () => statuses.get(200) ?? 0,
      (ok) => ok > before + 20,
    );
    going = false;
    await Promise.all(writers);
    expect(bodies).toEqual([]);
    expect([...statuses.keys()].sort()).toEqual([200, 503]);
  });
});
