// `npm start` (without the SPA) and `npm run worker` as real child processes on a DATA_DIR of their own, with their
// embedded PostgreSQL to kill (SIGKILL) and to keep from starting again: the supervision tests' common ground.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..');

const freePort = (base: number) => base + Math.floor(Math.random() * 900);

export interface Child {
  child: ChildProcess;
  output: () => { stdout: string; stderr: string };
  exited: Promise<number | null>;
}

export interface Server extends Child {
  origin: string;
  dataDir: string;
}

/** Spawns a TypeScript entry (an inline module or a file) and keeps what it says. */
function spawnTs(args: string[], env: NodeJS.ProcessEnv): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  return { child, output: () => ({ stdout, stderr }), exited };
}

/** Resolves once the child's output says `ready`; fails when it exits first. */
function readyWhen(child: Child, ready: RegExp): Promise<void> {
  return new Promise<void>((done, fail) => {
    const check = () => ready.test(child.output().stdout) && done();
    child.child.stdout!.on('data', check);
    check();
    void child.exited.then((code) => {
      const { stdout, stderr } = child.output();
      fail(new Error(`it exited (${code}): ${stdout}${stderr}`));
    });
  });
}

const baseEnv = (env: Record<string, string>): NodeJS.ProcessEnv => {
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    EMBEDDED_PG_SHARED_BUFFERS: '128MB',
    // These tests are of the web server and its database; the analytics store's own tests start it.
    ANALYTICS_STORE: 'off',
    CORPUS_DEMO_POSTS: '0',
    APP_ENV: 'qa',
    DEV_OIDC: 'false',
    ...env,
  };
  delete childEnv.DATABASE_URL;
  return childEnv;
};

/** `npm start` without the SPA (startServer as server/main.ts runs it) on `dataDir`; `started` keeps it to kill. */
export async function startServer(
  dataDir: string,
  env: Record<string, string>,
  started: ChildProcess[],
): Promise<Server> {
  const port = freePort(47_000);
  const script =
    "const { startServer } = await import('./server/main.ts'); await startServer({ serveSpa: false });";
  const server = spawnTs(
    ['--input-type=module', '-e', script],
    baseEnv({
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      EMBEDDED_PG_PORT: String(freePort(58_000)),
      ...env,
    }),
  );
  started.push(server.child);
  await readyWhen(server, /Murmur API at/);
  return { ...server, origin: `http://127.0.0.1:${port}`, dataDir };
}

/** `npm run worker` (server/worker.ts) on the embedded PostgreSQL a running server serves from `dataDir`. */
export async function startWorker(
  dataDir: string,
  env: Record<string, string>,
  started: ChildProcess[],
): Promise<Child> {
  const worker = spawnTs([resolve(ROOT, 'server/worker.ts')], baseEnv({ DATA_DIR: dataDir, ...env }));
  started.push(worker.child);
  await readyWhen(worker, /Collection worker running/);
  return worker;
}

export const postmasterOf = (dataDir: string) =>
  Number(readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);

/** Stops whatever PostgreSQL a test left running in `dataDir`. */
export function stopLeftPostgres(dataDir: string) {
  try {
    process.kill(postmasterOf(dataDir), 'SIGQUIT');
  } catch {
    // none left
  }
}

export const health = async (server: Server) => {
  const response = await fetch(`${server.origin}/api/health`);
  return {
    status: response.status,
    body: (await response.json()) as { status: string; database: { state: string } },
  };
};

/** Asks again until the answer is as wanted (the test's time limit ends a wait that would not). */
export async function until<T>(what: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await what();
    if (ok(value)) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Makes every start of PostgreSQL fail until undone (a setting it refuses in the file it reads at start). */
export function breakStarts(dataDir: string): () => void {
  const file = join(dataDir, 'pg', 'postgresql.auto.conf');
  const before = readFileSync(file, 'utf8');
  appendFileSync(file, "max_connections = 'plenty'\n");
  return () => writeFileSync(file, before);
}
