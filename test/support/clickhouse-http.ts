// Starts test/support/clickhouse-http-server.ts (chdb behind ClickHouse's HTTP interface) in a process of its own, for
// the tests of the store on a server (ANALYTICS_URL).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const SERVER = join(import.meta.dirname, 'clickhouse-http-server.ts');
const ROOT = resolve(import.meta.dirname, '..', '..');

export interface ClickHouseHttp {
  /** http://user:password@127.0.0.1:port, as ANALYTICS_URL would name it. */
  url: string;
  port: number;
  dataDir: string;
  /** Stops the server; its data are deleted unless `keepData` (to start it again on them). */
  close(options?: { keepData?: boolean }): Promise<void>;
}

export interface ClickHouseHttpOptions {
  user?: string;
  password?: string;
  /** Listen on this port (a server started again where it was); any free one otherwise. */
  port?: number;
  /** The engine's data directory (a server started again on its data); a new one otherwise. */
  dataDir?: string;
}

export async function startClickHouseHttp({
  user = 'murmur',
  password = 'a secret/with:symbols',
  port: wanted = 0,
  dataDir = mkdtempSync(join(tmpdir(), 'murmur-clickhouse-http-')),
}: ClickHouseHttpOptions = {}): Promise<ClickHouseHttp> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', SERVER, dataDir, user, password, String(wanted)],
    {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const port = await new Promise<number>((done, fail) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const match = /^listening (\d+)$/.exec(line);
      if (match) done(Number(match[1]));
    });
    child.once('exit', (code) =>
      fail(new Error(`clickhouse-http-server.ts exited (${code}) before listening`)),
    );
  });
  return {
    url: `http://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}`,
    port,
    dataDir,
    async close({ keepData = false } = {}) {
      child.stdin?.end();
      child.kill('SIGKILL');
      await exited;
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
