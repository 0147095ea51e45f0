// One analytics store per database (server/analytics/lock.ts): of two services on one PostgreSQL, the second stands
// by (no store, nothing applied) while the first feeds the store, and runs its own store once the first stops; a
// service whose lock connection is cut stops reading and feeding its store until it holds the lock again; a position
// is recorded only by the consumer's owner; a rebuild is refused the lock while a service holds it.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takeStoreLock } from '@server/analytics/lock';
import {
  claimConsumer,
  consumerPosition,
  ConsumerTakenOver,
  markApplied,
  readOutbox,
} from '@server/analytics/outbox';
import type { StorePosition } from '@server/analytics/position';
import { AnalyticsService } from '@server/analytics/service';
import { generateCorpus } from '@server/social/corpus/generate/load';
import { postgresHoldings, storeHoldings } from '@test/support/analytics-compare';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { writeOnePost } from './dashboards.fixtures';

let server: TestServer;
let root: string;
let made = 0;
const services: AnalyticsService[] = [];

beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  await generateCorpus(server.pool, { seed: 11, posts: 200, end: Date.UTC(2025, 5, 1), batchSize: 100 });
  root = mkdtempSync(join(tmpdir(), 'murmur-one-store-'));
});
afterAll(async () => {
  for (const service of services) await service.stop();
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

function start(name: string, lines: string[]) {
  const service = AnalyticsService.start({
    db: server.db,
    pool: server.pool,
    dataDir: join(root, name),
    pollMs: 200,
    standbyRetryMs: 200,
    log: (line) => lines.push(line),
  });
  services.push(service);
  return service;
}

const writePost = () => writeOnePost(server, `one-store-${++made}`, `one store post ${made}`);

/** The service's position once a round has caught up with `version`. */
async function appliedUpTo(service: AnalyticsService, version: number): Promise<StorePosition> {
  for (;;) {
    const { caughtUp, appliedSeq, corpusVersion } = service.state();
    if (caughtUp && appliedSeq !== null && corpusVersion !== null && corpusVersion >= version)
      return { seq: appliedSeq, corpusVersion };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function until(test: () => boolean, what: string) {
  for (let i = 0; i < 600 && !test(); i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(test(), what).toBe(true);
}

/** The backend holding the store's lock (the service's own connection for it). */
const lockBackend = async () =>
  (
    await server.pool.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE application_name = 'murmur analytics store' AND datname = current_database()`,
    )
  ).rows.map((row) => row.pid);

describe('one analytics store per database', () => {
  let first: AnalyticsService;
  const firstLines: string[] = [];

  it('a service takes the lock, and a rebuild elsewhere is refused it, naming the holder', async () => {
    first = start('first', firstLines);
    await first.caughtUpOnce();
    expect(await lockBackend()).toHaveLength(1);
    const other = await takeStoreLock(server.pool, 'murmur analytics:rebuild');
    expect(other).toEqual({ heldBy: expect.stringContaining('murmur analytics store') as string });
  });

  it('a service whose lock connection is cut holds the lock again, reconciles its store and goes on', async () => {
    const [pid] = await lockBackend();
    await server.pool.query('SELECT pg_terminate_backend($1)', [pid]);
    await until(
      () => firstLines.some((line) => /Lost the analytics store's lock/.test(line)),
      'the lock lost',
    );
    // Taken again (nobody else wants it), the store reconciled with the consumer's position, not rebuilt.
    const version = await writePost();
    await appliedUpTo(first, version);
    expect(firstLines.filter((line) => /Rebuilding/.test(line))).toHaveLength(1);
    expect(await storeHoldings(first.store!)).toEqual(await postgresHoldings(server.pool));
  });

  it('a second service stands by while the first feeds the store, then runs its own when the first stops', async () => {
    const lines: string[] = [];
    const second = start('second', lines);
    await until(() => second.state().phase === 'standby', 'the second stands by');
    expect(lines.join('\n')).toMatch(/Another process runs the analytics store of this database/);
    const version = await writePost();
    const applied = await appliedUpTo(first, version);
    // Applied and trimmed once, by the first; the second holds no store.
    expect((await consumerPosition(server.db))!.appliedSeq).toBe(applied.seq);
    expect(await readOutbox(server.db, 0, 10)).toEqual([]);
    expect(second.store).toBeNull();
    expect(second.state().phase).toBe('standby');

    await first.stop();
    await second.caughtUpOnce();
    expect(lines.join('\n')).toMatch(/this server runs the store now/);
    const next = await writePost();
    await appliedUpTo(second, next);
    expect(await storeHoldings(second.store!)).toEqual(await postgresHoldings(server.pool));
  });

  it("a position is recorded only by the consumer's owner", async () => {
    const second = services[1]!;
    const lines: string[] = [];
    const log = (second as unknown as { log: (line: string) => void }).log;
    (second as unknown as { log: (line: string) => void }).log = (line) => {
      lines.push(line);
      log(line);
    };
    // Another owner registered meanwhile: the service's next record is refused; it claims the consumer back (it still
    // holds the lock), reconciles its store (ahead by the batch it applied) and goes on.
    await claimConsumer(server.db, randomUUID());
    const version = await writePost();
    await until(() => lines.some((line) => /consumes the outbox now/.test(line)), 'the record refused');
    await appliedUpTo(second, version);
    expect(await storeHoldings(second.store!)).toEqual(await postgresHoldings(server.pool));

    // With no service running: a batch is recorded by its owner only.
    await second.stop();
    const owner = randomUUID();
    await claimConsumer(server.db, owner);
    await writePost();
    const [batch] = await readOutbox(server.db, (await consumerPosition(server.db))!.appliedSeq, 1);
    await expect(markApplied(server.db, batch!.seq, randomUUID())).rejects.toBeInstanceOf(ConsumerTakenOver);
    await markApplied(server.db, batch!.seq, owner);
    expect((await consumerPosition(server.db))!.appliedSeq).toBe(batch!.seq);
  });
});
