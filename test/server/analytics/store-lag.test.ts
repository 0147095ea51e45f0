// A dashboard reads the analytics store while it is behind PostgreSQL: the read first gives the applier the service's
// readWaitMs to catch up (a round that ends within it is read at the new version); a store still behind then answers
// as it is (the corpus before that batch), says up to when it is complete (data_as_of: when the batch was written) and
// is not kept under PostgreSQL's version. While a round keeps writing to the store, the read is 503 figures_preparing.
// A round about to write waits for the reads under way, and a read begun meanwhile waits for the round (read-gate.ts).
// The store is held behind by holding the change feed's round at a point.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ApplyPoint } from '@server/analytics/applier';
import { STORE_DATABASE } from '@server/analytics/layout';
import { AnalyticsService } from '@server/analytics/service';
import type { AnalyticsStore } from '@server/analytics/store';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import { generateCorpus } from '@server/social/corpus/generate/load';
import { overview } from '@server/social/insights/overview';
import { ReadRouter } from '@server/social/reads';
import { fromStore } from '@server/social/insights/store-source';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { contextOf, RANGES, type Case } from './dashboards.fixtures';

let server: TestServer;
let dataDir: string;
let service: AnalyticsService;
let authorId: number;
/** The point the feed's next round is held at, and how to let it go on. */
let holdAt: ApplyPoint | null = null;
let held: { point: ApplyPoint; release: () => void } | null = null;
let reachedHold: (() => void) | null = null;

beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  await generateCorpus(server.pool, { seed: 5, posts: 600, end: Date.UTC(2026, 10, 8), batchSize: 300 });
  [authorId] = (await insertProfiles(server.db, [
    { platform: 'x', externalId: 'lag-author', handle: 'lagger', displayName: 'Lag', followers: 9 },
  ])) as [number];
  dataDir = mkdtempSync(join(tmpdir(), 'murmur-store-lag-'));
  service = AnalyticsService.start({
    db: server.db,
    pool: server.pool,
    dataDir,
    log: () => {},
    pollMs: 200,
    at: async (point) => {
      if (point !== holdAt) return;
      holdAt = null;
      await new Promise<void>((release) => {
        held = { point, release };
        reachedHold?.();
      });
    },
  });
  await service.caughtUpOnce();
}, 240_000);
afterAll(async () => {
  held?.release();
  await service?.stop();
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const everyPost: Case = { name: 'every post', zone: 'America/New_York', range: RANGES['30 days of days']! };
let made = 0;
const post = () => ({
  authorId,
  platform: 'x' as const,
  externalId: `lag-${++made}`,
  text: 'a lagging post about nova',
  language: 'en',
  postedAt: new Date('2026-10-20T12:00:00Z'),
  likes: 1,
  comments: 0,
  shares: 0,
  sentiment: 0,
  sentimentLabel: 'neutral' as const,
});

/** Writes a post and waits until the feed's round for it is held at `point`. */
async function writeHeldAt(point: ApplyPoint) {
  holdAt = point;
  const reached = new Promise<void>((resolve) => (reachedHold = resolve));
  const [row] = await insertPosts(server.db, [post()]);
  expect(row).toBeDefined();
  await reached;
}

/** Lets the held round finish and waits until the store has caught up. */
async function release() {
  const caughtUp = service.caughtUpOnce();
  held!.release();
  held = null;
  await caughtUp;
}

const router = () =>
  new ReadRouter({ primary: server.db, replicas: [], maxLagMs: 0, primaryVersion: async () => 0 });

const mentions = (answer: Awaited<ReturnType<typeof overview>>) => answer.totals.mentions.value;

/** The service as if started with `readWaitMs`. */
const waiting = (readWaitMs: number) =>
  Object.create(service, { readWaitMs: { value: readWaitMs } }) as AnalyticsService;

describe('a dashboard on a store behind PostgreSQL', () => {
  it('is answered by the store, as of when the missing batch was written, and not at the newer version', async () => {
    const context = await contextOf(server, everyPost);
    const before = await overview(server.db, context, service);
    const versionBefore = service.state().corpusVersion!;
    const writtenAfter = Date.now();
    await writeHeldAt('read');
    try {
      const query = vi.spyOn(service.store!, 'query');
      const read = await router().read((db) => overview(db, context, service));
      expect(query).toHaveBeenCalled();
      query.mockRestore();
      // The store's corpus: the figures before the write.
      expect(read.value.totals).toEqual(before.totals);
      expect(read.value.over_time).toEqual(before.over_time);
      // Complete up to when the batch it lacks was written; its snapshot's version and the store's both seen, so the
      // answer cache keeps it under neither.
      expect(read.asOf).not.toBeNull();
      expect(read.asOf!.getTime()).toBeGreaterThanOrEqual(writtenAfter - 1_000);
      expect(read.asOf!.getTime()).toBeLessThanOrEqual(Date.now());
      expect(read.version).toBeNull();
      expect(service.state().corpusVersion).toBe(versionBefore);
    } finally {
      await release();
    }
    const after = await router().read((db) => overview(db, context, service));
    expect(after.asOf).toBeNull();
    expect(after.version).toBe(service.state().corpusVersion);
    expect(mentions(after.value)).toBe(mentions(before) + 1);
  });

  it('waits readWaitMs for the applier, and answers at the new version when it catches up within it', async () => {
    const context = await contextOf(server, everyPost);
    const before = await overview(server.db, context, service);
    await writeHeldAt('read');
    const letGo = setTimeout(() => held?.release(), 300);
    try {
      const read = await router().read((db) => overview(db, context, waiting(20_000)));
      expect(read.asOf).toBeNull();
      expect(mentions(read.value)).toBe(mentions(before) + 1);
    } finally {
      clearTimeout(letGo);
      held?.release();
      held = null;
    }
  });

  it('is 503 figures_preparing while a round keeps writing to the store (its figures would be of no one version)', async () => {
    const context = await contextOf(server, everyPost);
    await writeHeldAt('applied');
    try {
      await expect(router().read((db) => overview(db, context, service))).rejects.toMatchObject({
        statusCode: 503,
        code: 'figures_preparing',
      });
    } finally {
      await release();
    }
  });

  it('has a round about to write wait for the reads under way, and a read begun meanwhile wait for the round', async () => {
    const context = await contextOf(server, everyPost);
    const count = async (store: AnalyticsStore) =>
      Number((await store.query<{ n: string }>(`SELECT count() AS n FROM ${STORE_DATABASE}.posts`))[0]!.n);
    const before = await fromStore(server.db, context, service, count, async (_tx, n) => n);
    let letRead = () => {};
    const gate = new Promise<void>((resolve) => (letRead = resolve));
    let reading = () => {};
    const begun = new Promise<void>((resolve) => (reading = resolve));
    const generations: number[] = [];
    const first = fromStore(
      server.db,
      context,
      service,
      async (store) => {
        generations.push(service.reading()!.generation);
        reading();
        await gate;
        return count(store);
      },
      async (_tx, n) => n,
    );
    await begun;
    await writeHeldAt('read');
    const generation = service.reading()!.generation;
    held!.release();
    held = null;
    // The round has read PostgreSQL and waits for the read under way: it has not begun to write.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(service.reading()!.generation).toBe(generation);
    // A read begun now waits for the round, and reads what it wrote.
    const second = fromStore(
      server.db,
      context,
      service,
      async (store) => {
        generations.push(service.reading()!.generation);
        return count(store);
      },
      async (_tx, n) => n,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(generations).toHaveLength(1);
    letRead();
    // The first read is answered at once, at the version it began at: not read again.
    expect(await first).toBe(before);
    expect(await second).toBe(before + 1);
    expect(generations).toEqual([generation, generation + 2]);
  });
});
