// The posts' files a round or a rebuild copies out of PostgreSQL (server/analytics/rows.ts, copyPostFiles): their row
// count is PostgreSQL's even when its CommandComplete reaches the client in a later read than the CopyDone before it,
// as it does on a loaded machine. The count decides whether a file is loaded into the store at all: read as 0, a
// round recorded its position past posts it never loaded (the export test's lists once lacked a whole round).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyPostFiles } from '@server/analytics/rows';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import { createTestServer, type TestServer } from '@test/support/server-harness';

/** PostgreSQL's CopyDone message: 'c' and a length of 4 (no body). */
const COPY_DONE = Buffer.from([0x63, 0, 0, 0, 4]);

/**
 * A proxy to PostgreSQL that delivers what follows each CopyDone in a read of its own, `delayMs` later (a message
 * split from the next may in principle look like one; the posts' JSON never holds the control byte 0x04).
 */
function splittingProxy(target: string | { host: string; port: number }, delayMs: number) {
  let splits = 0;
  const server: Server = createServer((client: Socket) => {
    const upstream = createConnection(typeof target === 'string' ? { path: target } : target);
    client.pipe(upstream);
    let chain = Promise.resolve();
    upstream.on('data', (chunk: Buffer) => {
      chain = chain.then(async () => {
        let rest = chunk;
        for (let at = rest.indexOf(COPY_DONE); at >= 0; at = rest.indexOf(COPY_DONE)) {
          client.write(rest.subarray(0, at + COPY_DONE.length));
          rest = rest.subarray(at + COPY_DONE.length);
          splits += 1;
          await new Promise((resolve) => setTimeout(resolve, delayMs));
        }
        if (rest.length) client.write(rest);
      });
    });
    upstream.on('end', () => void chain.then(() => client.end()));
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  return {
    listen: () =>
      new Promise<number>((resolve) =>
        server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
      ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    splits: () => splits,
  };
}

let server: TestServer;
const dir = mkdtempSync(join(tmpdir(), 'murmur-copy-lines-'));

beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  const [authorId] = await insertProfiles(server.db, [
    { platform: 'x', externalId: 'copy-author', handle: 'copier', displayName: 'Copier', followers: 3 },
  ]);
  await insertPosts(
    server.db,
    Array.from({ length: 40 }, (_, i) => ({
      platform: 'x' as const,
      externalId: `copy${i}`,
      authorId: authorId!,
      text: `copied post ${i}`,
      language: 'en',
      postedAt: new Date(Date.parse('2026-10-20T12:00:00Z') + i * 60_000),
    })),
  );
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a posts file's row count", () => {
  it("is PostgreSQL's when its CommandComplete arrives after the stream ended", async () => {
    const url = new URL(server.databaseUrl);
    // The tests' PostgreSQL listens on a Unix socket (its directory in `host`), or on TCP.
    const socketDir = url.searchParams.get('host');
    const proxy = splittingProxy(
      socketDir
        ? join(socketDir, `.s.PGSQL.${url.port || 5432}`)
        : { host: url.hostname, port: Number(url.port) },
      50,
    );
    url.searchParams.delete('host');
    url.host = `127.0.0.1:${await proxy.listen()}`;
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      for (const [name, condition, expected] of [
        ['all', 'true', 40],
        ['some', "external_id IN ('copy1', 'copy2', 'copy3')", 3],
        ['none', 'false', 0],
      ] as const) {
        const files = await copyPostFiles(client as unknown as pg.PoolClient, condition, dir, name);
        expect(files.count, name).toBe(expected);
        const lines = readFileSync(files.posts, 'utf8').split('\n').filter(Boolean);
        expect(lines).toHaveLength(expected);
      }
      // The proxy did split each answer: the test would pass without the split otherwise.
      expect(proxy.splits()).toBe(3);
    } finally {
      await client.end();
      await proxy.close();
    }
  });
});
