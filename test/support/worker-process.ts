// The collection worker (`npm run worker`, server/worker.ts) as a child process for the crash tests: started on a
// test database with short heartbeats and retries, its stderr passed through, killed with SIGKILL when the tests end.
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');

export interface WorkerProcesses {
  /** A worker on `databaseUrl`, with `env` added to the test defaults. */
  start(databaseUrl: string, env?: Record<string, string>): ChildProcess;
  /** Every worker started that is still running, killed without warning. */
  killAll(): void;
}

export function workerProcesses(): WorkerProcesses {
  const children: ChildProcess[] = [];
  return {
    start(databaseUrl, env = {}) {
      const child = spawn(process.execPath, ['--import', 'tsx', resolve(root, 'server/worker.ts')], {
        cwd: root,
        env: {
          ...process.env,
          APP_ENV: 'qa',
          DEV_OIDC: 'false',
          DATABASE_URL: databaseUrl,
          SCRAPING_ALLOW_PRIVATE_HOSTS: 'true',
          SCRAPING_HEARTBEAT_SECONDS: '10',
          SCRAPING_RETRY_DELAY_SECONDS: '1',
          SCRAPING_CONCURRENCY: '1',
          ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`[worker] ${chunk.toString()}`));
      children.push(child);
      return child;
    },
    killAll() {
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

/** Polls `probe` every 200 ms until it gives a value; fails with `what` after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
