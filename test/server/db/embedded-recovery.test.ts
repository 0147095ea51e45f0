// A crash of the process that started the embedded PostgreSQL leaves it running (or its pid file behind); the next
// start on the same data must recover instead of failing.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startEmbeddedPostgres } from '@server/db/database';

const root = new URL('../../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'murmur-crash-'));
chmodSync(dir, 0o755);
const dataDir = join(dir, 'pg');
const port = 56000 + Math.floor(Math.random() * 900);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('embedded PostgreSQL after a crash', () => {
  it('starts again on the same data after the owning process was killed with SIGKILL', async () => {
    const script =
      "const { startEmbeddedPostgres } = await import('./server/db/database.ts');" +
      `await startEmbeddedPostgres(${JSON.stringify(dataDir)}, ${port});` +
      "console.log('started'); setInterval(() => {}, 1000);";
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('started') && resolve());
      child.on('exit', (code) => reject(new Error(`child exited early with ${code}`)));
    });
    child.kill('SIGKILL');
    await new Promise((r) => child.on('exit', r));
    expect(existsSync(join(dataDir, 'postmaster.pid'))).toBe(true);

    const server = await startEmbeddedPostgres(dataDir, port);
    try {
      const client = new pg.Client({ connectionString: server.urlFor('postgres') });
      await client.connect();
      const { rows } = await client.query('select 1 as ok');
      await client.end();
      expect(rows).toEqual([{ ok: 1 }]);
    } finally {
      await server.stop();
    }
    expect(existsSync(join(dataDir, 'postmaster.pid'))).toBe(false);
  }, 60_000);
});

describe('embedded PostgreSQL in use', () => {
  it('refuses to start on a data directory another live process owns, and leaves that database running', async () => {
    const first = await startEmbeddedPostgres(dataDir, port);
    try {
      const script =
        "const { startEmbeddedPostgres } = await import('./server/db/database.ts');" +
        `try { await startEmbeddedPostgres(${JSON.stringify(dataDir)}, ${port}); console.log('started'); }` +
        'catch (e) { console.log(String(e.message)); }';
      const { spawnSync } = await import('node:child_process');
      const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: root,
        encoding: 'utf8',
      });
      expect(child.stdout).toMatch(/in use by another Murmur process/);
      const client = new pg.Client({ connectionString: first.urlFor('postgres') });
      await client.connect();
      expect((await client.query('select 1 as ok')).rows).toEqual([{ ok: 1 }]);
      await client.end();
    } finally {
      await first.stop();
    }
  }, 60_000);
});

describe('embedded PostgreSQL and the process that started it', () => {
  it('stops when that process exits without stopping it, and the exit code is kept', async () => {
    const script =
      "const { startEmbeddedPostgres } = await import('./server/db/database.ts');" +
      `await startEmbeddedPostgres(${JSON.stringify(dataDir)}, ${port});` +
      'process.exitCode = 3;';
    const { spawnSync } = await import('node:child_process');
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(child.status).toBe(3);
    // PostgreSQL got its SIGINT (fast shutdown) at the exit: its pid file goes away.
    const deadline = Date.now() + 20_000;
    while (existsSync(join(dataDir, 'postmaster.pid')) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(join(dataDir, 'postmaster.pid'))).toBe(false);
  }, 60_000);
});
