// The command-line tools after a crash (issue 17, item 7), on the embedded PostgreSQL in a DATA_DIR of their own: an
// import killed with SIGKILL leaves its PostgreSQL running, and the next import recovers it as `npm start` would and
// completes; a PostgreSQL that dies under an import ends it with one line and a non-zero exit code, no stack trace.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const ROWS = 30_000;

let dir: string;
let file: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'murmur-cli-crash-'));
  chmodSync(dir, 0o755);
  file = join(dir, 'posts.ndjson');
  const lines: string[] = [];
  for (let i = 0; i < ROWS; i++) {
    lines.push(
      JSON.stringify({
        platform: 'x',
        external_id: `p${i}`,
        author_external_id: `a${i % 500}`,
        author_handle: `h${i % 500}`,
        author_followers: 100,
        posted_at: '2025-05-01T09:30:00Z',
        text: `Post ${i} about #matcha`,
      }),
    );
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
});
afterAll(() => {
  // A PostgreSQL a failed test left behind is stopped before its files go.
  for (const name of ['killed', 'database-killed']) {
    try {
      const pid = Number(readFileSync(join(dir, name, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGQUIT');
    } catch {
      // none
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  child: ChildProcess;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

function importInto(dataDir: string, port: number): Run {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    EMBEDDED_PG_PORT: String(port),
    EMBEDDED_PG_SHARED_BUFFERS: '128MB',
    APP_ENV: 'qa',
    DEV_OIDC: 'false',
  };
  delete env.DATABASE_URL;
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'scripts/corpus-import.ts', file, '--batch', '200', '--quiet'],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolveDone) =>
    child.on('exit', (code) => resolveDone({ code, stdout, stderr })),
  );
  return { child, done };
}

/** Posts stored so far, once the import's database answers (0 before). */
async function postsIn(port: number): Promise<number> {
  const client = new pg.Client({
    connectionString: `postgres://murmur:murmur-local@127.0.0.1:${port}/murmur`,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM posts');
    return rows[0]!.n;
  } catch {
    return 0;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Waits until the import has stored some posts but not all of them. */
async function midway(port: number, run: Run) {
  let exited = false;
  void run.done.then(() => (exited = true));
  for (;;) {
    if (exited)
      throw new Error(`the import ended before it could be interrupted: ${(await run.done).stdout}`);
    const posts = await postsIn(port);
    if (posts > 0) {
      expect(posts).toBeLessThan(ROWS);
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

const freePort = () => 57_000 + Math.floor(Math.random() * 900);

describe('corpus:import after a crash', () => {
  it('recovers the PostgreSQL a killed import left running and completes the import', async () => {
    const dataDir = join(dir, 'killed');
    const port = freePort();
    const first = importInto(dataDir, port);
    await midway(port, first);
    first.child.kill('SIGKILL');
    await first.done;
    // Its PostgreSQL is still up, an orphan.
    const orphan = Number(readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(() => process.kill(orphan, 0)).not.toThrow();

    const second = await importInto(dataDir, port).done;
    expect(second.stderr).toBe('');
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/Stopping a PostgreSQL left running by an earlier start/);
    expect(second.stdout).toMatch(new RegExp(`Done in .*: ${ROWS} rows read`));
    expect(second.stdout).not.toMatch(/npm start/);
  }, 180_000);

  it('ends with one line and a non-zero exit code when PostgreSQL dies during the import', async () => {
    const dataDir = join(dir, 'database-killed');
    const port = freePort();
    const run = importInto(dataDir, port);
    await midway(port, run);
    const postmaster = Number(readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(postmaster, 'SIGKILL');
    const { code, stderr } = await run.done;
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    const lines = stderr.trim().split('\n');
    expect(lines, stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^The import failed: /);
    expect(stderr).not.toMatch(/^\s+at /m);
  }, 180_000);
});
