// Root in a private directory (issue 17, item 8): as root, PostgreSQL runs as the `postgres` account, which cannot
// enter a directory of mode 0700 such as /root/murmur, where `npm start` kept both the binaries (node_modules) and the
// data (.data/pg): initdb failed with EACCES. The start path must place what that account cannot reach where it can
// (a shared directory owned by root, standing in for /var/lib/murmur here), and a database already initialised out of
// its reach must be refused in one line naming the cause and the fix.
//
// Only root can run PostgreSQL as another account: as any other user the test is skipped (PostgreSQL then runs as
// that user, who can enter their own directories, and there is nothing to place).
import {
  cpSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  chmodSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '@server/db/database';
import { packagedPostgres } from '@server/db/postgres-process';

const isRoot = process.getuid?.() === 0;
const port = 57_900 + Math.floor(Math.random() * 90);

let home: string;
let project: string;
let shared: string;

beforeAll(() => {
  if (!isRoot) return;
  // /root (0700) with a project inside it, its own copy of the binaries as node_modules would hold them.
  home = mkdtempSync(join(tmpdir(), 'murmur-root-home-'));
  chmodSync(home, 0o700);
  project = join(home, 'murmur');
  mkdirSync(project);
  cpSync(packagedPostgres(), join(project, 'native'), { recursive: true, verbatimSymlinks: true });
  // /var/lib/murmur: root's, others may enter and read.
  shared = mkdtempSync(join(tmpdir(), 'murmur-root-shared-'));
  chmodSync(shared, 0o755);
});
afterAll(() => {
  if (!isRoot) return;
  rmSync(home, { recursive: true, force: true });
  rmSync(shared, { recursive: true, force: true });
});

async function selectOne(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CREATE TABLE IF NOT EXISTS kept (n int)');
    await client.query('INSERT INTO kept VALUES (1)');
    return (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM kept')).rows[0]!.n;
  } finally {
    await client.end();
  }
}

describe.skipIf(!isRoot)(
  'embedded PostgreSQL as root in a directory of mode 0700 (skipped unless root)',
  () => {
    it('places the data and the binaries where the postgres account can reach them, and keeps the data', async () => {
      const dataDir = join(project, '.data', 'pg');
      const options = { binaries: join(project, 'native'), sharedDir: shared };
      const first = await startEmbeddedPostgres(dataDir, port, options);
      try {
        expect(await selectOne(first.urlFor('postgres'))).toBe(1);
      } finally {
        await first.stop();
      }
      // DATA_DIR/pg links to the data's place in the shared directory.
      expect(lstatSync(dataDir).isSymbolicLink()).toBe(true);
      expect(readlinkSync(dataDir).startsWith(shared)).toBe(true);
      // The binaries were placed there too.
      expect(readdirSync(shared).filter((name) => name.startsWith('postgresql-'))).toHaveLength(1);

      const again = await startEmbeddedPostgres(dataDir, port, options);
      try {
        expect(await selectOne(again.urlFor('postgres'))).toBe(2);
      } finally {
        await again.stop();
      }
    }, 120_000);

    it('refuses, in one line naming the cause and the fix, a database initialised where the account cannot reach', async () => {
      const dataDir = join(project, '.data', 'pg');
      // The data of the test above, moved back under the private directory (as if /root became 0700 after it).
      const placed = readlinkSync(dataDir);
      rmSync(dataDir);
      renameSync(placed, dataDir);
      const start = startEmbeddedPostgres(dataDir, port, {
        binaries: join(project, 'native'),
        sharedDir: shared,
      });
      await expect(start).rejects.toThrow(
        /postgres account.* cannot enter .*murmur-root-home-\w+ \(mode 0700\)/,
      );
      const message = await start.then(
        () => '',
        (error: Error) => error.message,
      );
      expect(message).not.toContain('\n');
      expect(message).toMatch(/chmod o\+x|DATA_DIR/);
    }, 60_000);
  },
);
