// `npm start` stopped as a person or a supervisor stops it: Ctrl-C in a terminal (SIGINT to the whole foreground
// process group, the server's children included) and SIGTERM to the server alone (systemd, a container). Either is a
// shutdown asked for: the server says that it shuts down and nothing more, exits 0, and what it started (its embedded
// PostgreSQL, the analytics store's process) is gone when it has exited.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { processIsAlive } from '@server/db/embedded-owner';
import { stopLeftPostgres, until } from '@test/support/supervised-server';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'murmur-shutdown-'));
chmodSync(dir, 0o755);
const groups: number[] = [];

afterAll(() => {
  for (const group of groups) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // gone
    }
  }
  for (const name of ['sigint', 'seeding', 'sigterm']) stopLeftPostgres(join(dir, name));
  rmSync(dir, { recursive: true, force: true });
});

const port = (base: number) => base + Math.floor(Math.random() * 900);

/** server/main.ts as `npm start` runs it (without the SPA's build), leader of its own process group as in a terminal. */
async function start(name: string, env: Record<string, string>, ready = /Murmur API at/) {
  const dataDir = join(dir, name);
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(port(47_000)),
    EMBEDDED_PG_PORT: String(port(58_000)),
    EMBEDDED_PG_SHARED_BUFFERS: '128MB',
    DEV_MAILBOX_PORT: '0',
    CORPUS_DEMO_POSTS: '0',
    ...env,
  };
  delete childEnv.DATABASE_URL;
  const script =
    "const { startServer } = await import('./server/main.ts'); await startServer({ serveSpa: false });";
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  groups.push(child.pid!);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  await until(
    async () => output,
    (said) => ready.test(said) || child.exitCode !== null,
  );
  expect(output).toMatch(ready);
  const postgres = Number(readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  return { child, exited, output: () => output, postgres, dataDir };
}

/** The processes whose command line names `dataDir` (the embedded PostgreSQL's and the analytics store's): pid and line. */
function processesOf(dataDir: string): string[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((pid) => {
      try {
        const line = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
        return line.includes(dataDir) ? [`${pid}: ${line}`] : [];
      } catch {
        return [];
      }
    });
}

/** What the server said after it was told to stop. */
const afterSignal = (output: string, signal: string) =>
  output.slice(output.indexOf(`${signal}: shutting down…`));

describe('stopping the server', () => {
  it('Ctrl-C: SIGINT to the process group is quiet and leaves no PostgreSQL and no store process', async () => {
    const server = await start('sigint', { APP_ENV: 'local' });
    // The analytics store's process runs too (its own data directory under DATA_DIR), its first rebuild done.
    await until(
      async () => server.output(),
      (said) => /\[analytics\] Rebuilt/.test(said),
    );
    expect(processesOf(server.dataDir).length).toBeGreaterThan(1);
    process.kill(-server.child.pid!, 'SIGINT');
    expect(await server.exited).toBe(0);
    expect(afterSignal(server.output(), 'SIGINT').trim()).toBe('SIGINT: shutting down…');
    expect(processIsAlive(server.postgres)).toBe(false);
    expect(processesOf(server.dataDir)).toEqual([]);
  });

  it('Ctrl-C while it starts (seeding the demo corpus) is as quiet, and stops what holds the database', async () => {
    const server = await start(
      'seeding',
      { APP_ENV: 'local', CORPUS_DEMO_POSTS: '200000', ANALYTICS_STORE: 'off' },
      /Development data/,
    );
    process.kill(-server.child.pid!, 'SIGINT');
    expect(await server.exited).toBe(0);
    expect(afterSignal(server.output(), 'SIGINT').trim()).toBe('SIGINT: shutting down…');
    expect(server.output()).not.toMatch(/Murmur API at|Demo corpus:/);
    expect(processIsAlive(server.postgres)).toBe(false);
    expect(processesOf(server.dataDir)).toEqual([]);
  });

  it('SIGTERM in production is quiet and stops its embedded PostgreSQL', async () => {
    const server = await start('sigterm', { APP_ENV: 'prod', DEV_MAILBOX: 'false' });
    process.kill(server.child.pid!, 'SIGTERM');
    expect(await server.exited).toBe(0);
    expect(afterSignal(server.output(), 'SIGTERM').trim()).toBe('SIGTERM: shutting down…');
    expect(processIsAlive(server.postgres)).toBe(false);
    expect(processesOf(server.dataDir)).toEqual([]);
  });
});
