// `npm start` (without the SPA) with SCRAPING_BLUESKY_STREAM=true and collection in-process: the server streams from
// JETSTREAM_URL (here a local Jetstream) and commits the stream's cursor; SIGTERM stops it with the rest, quietly.
import type { ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { runningEmbeddedUrl } from '@server/db/database';
import { postEvent, startJetstreamStandIn, type JetstreamStandIn } from '@test/support/jetstream-stand-in';
import { startServer, stopLeftPostgres, until } from '@test/support/supervised-server';

const dir = mkdtempSync(join(tmpdir(), 'murmur-jetstream-server-'));
chmodSync(dir, 0o755);
const started: ChildProcess[] = [];
let pool: pg.Pool | undefined;
let standIn: JetstreamStandIn | undefined;
const T0 = Date.UTC(2026, 10, 23, 10, 0, 0) * 1_000;

afterAll(async () => {
  for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
  await pool?.end().catch(() => {});
  stopLeftPostgres(join(dir, 'server'));
  rmSync(dir, { recursive: true, force: true });
  await standIn?.close();
});

it('streams in the server when collection runs there, and stops with it', { timeout: 120_000 }, async () => {
  standIn = await startJetstreamStandIn({
    events: [postEvent(T0 + 1, 'did:plc:server4567abcdefghijklmn', '3ks1', 'a post no query asks for')],
  });
  const dataDir = join(dir, 'server');
  const server = await startServer(
    dataDir,
    { SCRAPING_BLUESKY_STREAM: 'true', JETSTREAM_URL: standIn.url, SCRAPING_WORKER: 'in-process' },
    started,
  );
  pool = new pg.Pool({ connectionString: runningEmbeddedUrl(join(dataDir, 'pg'))!, max: 1 });
  const cursor = await until(
    () =>
      pool!
        .query<{ cursor_us: string; events: string }>(
          'SELECT cursor_us::text, events::text FROM stream_cursors',
        )
        .then((result) => result.rows[0]),
    (row) => row?.cursor_us === String(T0 + 1),
  );
  expect(cursor).toEqual({ cursor_us: String(T0 + 1), events: '1' });
  expect(standIn.connections).toHaveLength(1);
  expect(standIn.connections[0]!.get('wantedCollections')).toBe('app.bsky.feed.post');
  await pool.end();
  pool = undefined;
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
  expect(server.output().stderr).toBe('');
});
