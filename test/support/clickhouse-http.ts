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
  close(): Promise<void>;
}

export async function startClickHouseHttp(
  user = 'murmur',
  password = 'a secret/with:symbols',
): Promise<ClickHouseHttp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'murmur-clickhouse-http-'));
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER, dataDir, user, password], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
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
    async close() {
      child.stdin?.end();
      child.kill('SIGKILL');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
