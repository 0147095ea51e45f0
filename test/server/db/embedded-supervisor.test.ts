// The embedded PostgreSQL killed (SIGKILL) under a running server, as `npm start` runs it: it is started again, GET
// /api/health says "restarting" (503) while it is away and "up" (200) once it is back, requests that need it answer
// 503 meanwhile and succeed again after; when every try fails the server exits non-zero with one line.
import type { ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  breakStarts,
  health,
  postmasterOf,
  startServer as startServerIn,
  stopLeftPostgres,
  until,
  type Server,
} from '@test/support/supervised-server';

const dir = mkdtempSync(join(tmpdir(), 'murmur-supervisor-'));
chmodSync(dir, 0o755);
const started: ChildProcess[] = [];

afterAll(() => {
  for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
  for (const name of ['recovers', 'gives-up']) stopLeftPostgres(join(dir, name));
  rmSync(dir, { recursive: true, force: true });
});

const startServer = (name: string, env: Record<string, string>) =>
  startServerIn(join(dir, name), env, started);

/** A request that writes to the database (a sign-in nonce). */
const nonce = (server: Server) => fetch(`${server.origin}/api/auth/nonce`, { method: 'POST' });

describe('the embedded PostgreSQL under a running server', () => {
  it('is started again after SIGKILL: health says restarting (503), requests answer 503, then both succeed', async () => {
    const server = await startServer('recovers', {
      EMBEDDED_PG_RESTARTS: '10',
      EMBEDDED_PG_RESTART_DELAY_MS: '300',
    });
    expect(await health(server)).toEqual({ status: 200, body: { status: 'ok', database: { state: 'up' } } });
    expect((await nonce(server)).status).toBe(200);

    const repair = breakStarts(server.dataDir);
    const killed = postmasterOf(server.dataDir);
    process.kill(killed, 'SIGKILL');
    const away = await until(
      () => health(server),
      (h) => h.body.database.state === 'restarting',
    );
    expect(away.status).toBe(503);
    expect(away.body).toMatchObject({
      status: 'unavailable',
      database: { state: 'restarting', attempts: 10 },
    });
    const refused = await nonce(server);
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ error: 'database_unavailable' });

    repair();
    const back = await until(
      () => health(server),
      (h) => h.status === 200,
    );
    expect(back.body).toEqual({ status: 'ok', database: { state: 'up' } });
    expect(postmasterOf(server.dataDir)).not.toBe(killed);
    expect((await nonce(server)).status).toBe(200);
    expect(server.output().stdout).toMatch(/The embedded PostgreSQL runs again/);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, 180_000);

  it('exits non-zero with one line when every try to start it again failed', async () => {
    const server = await startServer('gives-up', {
      EMBEDDED_PG_RESTARTS: '2',
      EMBEDDED_PG_RESTART_DELAY_MS: '100',
    });
    breakStarts(server.dataDir);
    process.kill(postmasterOf(server.dataDir), 'SIGKILL');
    expect(await server.exited).toBe(1);
    const lines = server.output().stderr.trim().split('\n');
    expect(lines.at(-1)).toMatch(
      /^The embedded PostgreSQL stopped \(killed by SIGKILL\) and did not start again after 2 tries \(.*contains errors\); exiting so that the process is restarted\.$/,
    );
  }, 180_000);
});
