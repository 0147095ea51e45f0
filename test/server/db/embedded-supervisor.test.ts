// The embedded PostgreSQL killed (SIGKILL) under a running server, as `npm start` runs it: it is started again, GET
// /api/health says "restarting" (503) while it is away and "up" (200) once it is back, requests that need it answer
// 503 meanwhile and succeed again after; when every try fails the server exits non-zero with one line.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'murmur-supervisor-'));
chmodSync(dir, 0o755);
const started: ChildProcess[] = [];

afterAll(() => {
  for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
  for (const name of ['recovers', 'gives-up']) {
    try {
      const pid = Number(readFileSync(join(dir, name, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGQUIT');
    } catch {
      // none left
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

const freePort = (base: number) => base + Math.floor(Math.random() * 900);

interface Server {
  child: ChildProcess;
  origin: string;
  dataDir: string;
  output: () => { stdout: string; stderr: string };
  exited: Promise<number | null>;
}

/** `npm start` without the SPA (startServer as server/main.ts runs it) on a DATA_DIR of its own. */
async function startServer(name: string, env: Record<string, string>): Promise<Server> {
  const dataDir = join(dir, name);
  const port = freePort(47_000);
  const script =
    "const { startServer } = await import('./server/main.ts'); await startServer({ serveSpa: false });";
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    EMBEDDED_PG_PORT: String(freePort(58_000)),
    EMBEDDED_PG_SHARED_BUFFERS: '128MB',
    CORPUS_DEMO_POSTS: '0',
    APP_ENV: 'qa',
    DEV_OIDC: 'false',
    ...env,
  };
  delete childEnv.DATABASE_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  await new Promise<void>((ready, fail) => {
    child.stdout!.on('data', () => /Murmur API at/.test(stdout) && ready());
    void exited.then((code) => fail(new Error(`the server exited (${code}): ${stdout}${stderr}`)));
  });
  return { child, origin: `http://127.0.0.1:${port}`, dataDir, output: () => ({ stdout, stderr }), exited };
}

const postmasterOf = (server: Server) =>
  Number(readFileSync(join(server.dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);

const health = async (server: Server) => {
  const response = await fetch(`${server.origin}/api/health`);
  return {
    status: response.status,
    body: (await response.json()) as { status: string; database: { state: string } },
  };
};

/** A request that writes to the database (a sign-in nonce). */
const nonce = (server: Server) => fetch(`${server.origin}/api/auth/nonce`, { method: 'POST' });

/** Asks again until the answer is as wanted (the test's time limit ends a wait that would not). */
async function until<T>(what: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await what();
    if (ok(value)) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Makes every start of PostgreSQL fail until undone (a setting it refuses in the file it reads at start). */
function breakStarts(server: Server): () => void {
  const file = join(server.dataDir, 'pg', 'postgresql.auto.conf');
  const before = readFileSync(file, 'utf8');
  appendFileSync(file, "max_connections = 'plenty'\n");
  return () => writeFileSync(file, before);
}

describe('the embedded PostgreSQL under a running server', () => {
  it('is started again after SIGKILL: health says restarting (503), requests answer 503, then both succeed', async () => {
    const server = await startServer('recovers', {
      EMBEDDED_PG_RESTARTS: '10',
      EMBEDDED_PG_RESTART_DELAY_MS: '300',
    });
    expect(await health(server)).toEqual({ status: 200, body: { status: 'ok', database: { state: 'up' } } });
    expect((await nonce(server)).status).toBe(200);

    const repair = breakStarts(server);
    const killed = postmasterOf(server);
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
    expect(postmasterOf(server)).not.toBe(killed);
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
    breakStarts(server);
    process.kill(postmasterOf(server), 'SIGKILL');
    expect(await server.exited).toBe(1);
    const lines = server.output().stderr.trim().split('\n');
    expect(lines.at(-1)).toMatch(
      /^The embedded PostgreSQL stopped \(killed by SIGKILL\) and did not start again after 2 tries \(.*contains errors\); exiting so that the process is restarted\.$/,
    );
  }, 180_000);
});
