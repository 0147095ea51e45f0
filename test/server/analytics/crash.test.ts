// Exactly once across a crash: the process running the change feed is killed (kill -9) after PostgreSQL committed a
// batch and before the store applied it, after the store applied its rows but before it recorded its position, and
// after the store recorded it but before PostgreSQL did; started again, the store equals PostgreSQL, post by post
// (once each, its likes, author and token rows) and profile by profile: nothing lost, nothing doubled.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { consumerPosition, readOutbox } from '@server/analytics/outbox';
import { storePosition } from '@server/analytics/position';
import { EmbeddedStore } from '@server/analytics/store';
import { insertPosts } from '@server/social/corpus/changes';
import { generateCorpus } from '@server/social/corpus/generate/load';
import { postgresHoldings, storeHoldings } from '@test/support/analytics-compare';
import { createTestServer, type TestServer } from '@test/support/server-harness';

const ROOT = resolve(import.meta.dirname, '../../..');
const CHILD = join(ROOT, 'test/support/analytics-applier-child.ts');

let server: TestServer;
let dataDir: string;
const started: ChildProcess[] = [];
let made = 0;

beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  await generateCorpus(server.pool, { seed: 11, posts: 300, end: Date.UTC(2025, 5, 1), batchSize: 100 });
  dataDir = mkdtempSync(join(tmpdir(), 'murmur-analytics-crash-'));
});
afterAll(async () => {
  for (const child of started) child.kill('SIGKILL');
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The feed in a process of its own; `next(prefix)` waits for its next "@@ prefix …" line. */
function runFeed(mode: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, server.databaseUrl, dataDir, mode], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  started.push(child);
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return {
    child,
    exited,
    async next(prefix: string): Promise<string[]> {
      for (;;) {
        const { value, done } = await lines.next();
        if (done) throw new Error(`the feed's process ended before "@@ ${prefix}"`);
        const line = String(value);
        if (line.startsWith(`@@ ${prefix}`)) return line.slice(3).split(' ');
      }
    },
  };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const post = (authorId: number, text: string) => ({
  authorId,
  platform: 'x' as const,
  externalId: `crash-${++made}`,
  text,
  language: 'en',
  postedAt: new Date('2025-05-25T08:00:00Z'),
  likes: 1,
  comments: 0,
  shares: 0,
  sentiment: 0.2,
  sentimentLabel: 'positive' as const,
  hashtags: [`was_${made}`],
});

/** New posts, a changed one, a removed one and a profile changed: one batch each. */
async function writeSome(label: string) {
  const { rows } = await server.pool.query<{ id: string; author_id: string }>(
    'SELECT id::text, author_id::text FROM posts ORDER BY id DESC LIMIT 2',
  );
  const authorId = Number(rows[0]!.author_id);
  await insertPosts(server.db, [
    post(authorId, `${label} first words`),
    post(authorId, `${label} second words`),
  ]);
  await server.pool.query(
    `SELECT corpus_update_posts('id = ${rows[0]!.id}', $$likes = likes + 7, text = text || ' ${label}', hashtags = ARRAY['now_${label}']$$)`,
  );
  await server.pool.query(`SELECT corpus_delete_posts('id = ${rows[1]!.id}')`);
  await server.pool.query(`SELECT corpus_update_profiles('id = ${authorId}', 'followers = followers + 3')`);
}

/** Opens the store the feed left and compares it with PostgreSQL. */
async function expectStoreEqualsPostgres() {
  const store = await EmbeddedStore.open({ dataDir });
  try {
    const expected = await postgresHoldings(server.pool);
    expect(Object.keys(expected.posts).length).toBeGreaterThan(290);
    expect(await storeHoldings(store)).toEqual(expected);
    const consumer = await consumerPosition(server.db);
    expect(await storePosition(store)).toEqual({
      seq: consumer!.appliedSeq,
      corpusVersion: consumer!.corpusVersion,
    });
    expect(await readOutbox(server.db, 0, 100)).toEqual([]);
  } finally {
    await store.close();
  }
}

describe('the change feed killed mid-round', () => {
  it('is rebuilt on its first start and catches up', async () => {
    const feed = runFeed('exit');
    await feed.next('caught-up');
    expect(await feed.exited).toBe(0);
    await expectStoreEqualsPostgres();
  });

  for (const point of ['read', 'applied', 'recorded'] as const) {
    it(`loses nothing and doubles nothing when killed at "${point}"`, async () => {
      const feed = runFeed(point);
      const [, storePid] = await feed.next('store');
      await feed.next('caught-up');
      await writeSome(point);
      await feed.next(`held ${point}`);
      feed.child.kill('SIGKILL');
      await feed.exited;
      // The store's own process follows its parent (it may not be opened twice).
      await vi.waitFor(() => expect(alive(Number(storePid))).toBe(false), { timeout: 30_000, interval: 100 });

      const pending = await readOutbox(server.db, (await consumerPosition(server.db))!.appliedSeq, 100);
      expect(pending.length).toBe(4); // PostgreSQL's consumer has not moved
      const again = runFeed('exit');
      await again.next('caught-up');
      expect(await again.exited).toBe(0);
      await expectStoreEqualsPostgres();
    });
  }
});
