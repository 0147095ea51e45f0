// The analytics service as the server runs it: a store without a layout is rebuilt in the background and then fed
// (ready, caught up, with the corpus version it reflects); its process killed is started again and goes on applying,
// and rebuilt when it stops answering twice; batches written soon after a round wait for the next, together (batches
// of tags alone do not); a directory its engine cannot open is moved aside and rebuilt; stopped while it opens, the
// process opened is closed before stop() returns; ANALYTICS_STORE=off unregisters it from the outbox.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { consumerPosition } from '@server/analytics/outbox';
import type { StorePosition } from '@server/analytics/position';
import { AnalyticsService } from '@server/analytics/service';
import { startAnalytics } from '@server/analytics/start';
import { insertPosts } from '@server/social/corpus/changes';
import { generateCorpus } from '@server/social/corpus/generate/load';
import { postgresHoldings, storeHoldings } from '@test/support/analytics-compare';
import { createTestServer, type TestServer } from '@test/support/server-harness';

let server: TestServer;
let root: string;
let made = 0;

beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  await generateCorpus(server.pool, { seed: 5, posts: 250, end: Date.UTC(2025, 5, 1), batchSize: 100 });
  root = mkdtempSync(join(tmpdir(), 'murmur-analytics-service-'));
});
afterAll(async () => {
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

async function writePost() {
  const { rows } = await server.pool.query<{ a: string }>('SELECT author_id::text AS a FROM posts LIMIT 1');
  await insertPosts(server.db, [
    {
      authorId: Number(rows[0]!.a),
      platform: 'x',
      externalId: `service-${++made}`,
      text: `service post ${made}`,
      language: 'en',
      postedAt: new Date('2025-05-30T10:00:00Z'),
      likes: 2,
      comments: 0,
      shares: 0,
      sentiment: 0,
      sentimentLabel: 'neutral',
    },
  ]);
}

/** The processes whose command line names `dir` (the store's child is given its directory). */
const processesNaming = (dir: string) =>
  readdirSync('/proc').filter((pid) => {
    try {
      return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir);
    } catch {
      return false;
    }
  });

const corpusVersion = async () =>
  Number((await server.pool.query<{ v: string }>('SELECT version AS v FROM corpus_state')).rows[0]!.v);

/**
 * The service's position once a round has caught up with `version`: a round that ends caught up without it (a wake
 * from the listener's connecting, or the poll, before the write's batch) does not count.
 */
async function appliedUpTo(service: AnalyticsService, version: number): Promise<StorePosition> {
  for (;;) {
    const { caughtUp, appliedSeq, corpusVersion } = service.state();
    if (caughtUp && appliedSeq !== null && corpusVersion !== null && corpusVersion >= version)
      return { seq: appliedSeq, corpusVersion };
    const position = await service.caughtUpOnce();
    if (position.corpusVersion >= version) return position;
  }
}

describe('the analytics service', () => {
  it('rebuilds a new store, applies what follows at once, and starts a killed process again', async () => {
    const lines: string[] = [];
    const dataDir = join(root, 'store');
    const service = AnalyticsService.start({
      db: server.db,
      pool: server.pool,
      dataDir,
      restartDelayMs: 50,
      pollMs: 60_000, // the writers' notification wakes it
      log: (line) => lines.push(line),
    });
    try {
      expect(service.state()).toMatchObject({ ready: false, appliedSeq: null });
      expect(service.store).toBeNull();
      let position = await service.caughtUpOnce();
      expect(lines).toContain('[analytics] Rebuilding the store from PostgreSQL: it has no layout yet.');
      expect(service.state()).toMatchObject({
        phase: 'applying',
        ready: true,
        caughtUp: true,
        appliedSeq: position.seq,
        corpusVersion: await corpusVersion(),
      });

      await writePost();
      position = await appliedUpTo(service, await corpusVersion());
      expect(position.corpusVersion).toBe(await corpusVersion());
      expect(await storeHoldings(service.store!)).toEqual(await postgresHoldings(server.pool));

      const killed = service.store!.pid!;
      process.kill(killed, 'SIGKILL');
      await vi.waitFor(() => expect(service.store?.pid ?? killed).not.toBe(killed), { timeout: 60_000 });
      await writePost();
      expect((await appliedUpTo(service, await corpusVersion())).corpusVersion).toBe(await corpusVersion());
      expect(await storeHoldings(service.store!)).toEqual(await postgresHoldings(server.pool));
      expect(lines.filter((line) => line.includes('Rebuilding'))).toHaveLength(1); // the data survived the kill
    } finally {
      await service.stop();
    }
    expect(service.state()).toMatchObject({ phase: 'stopped', ready: false });
  });

  it('starts a process that stopped answering again, and rebuilds the store when it stops answering twice', async () => {
    const lines: string[] = [];
    // A statement ClickHouse cannot be made to end (as a damaged block's checksum search): past the store's time
    // limit its process is killed.
    const endless = 'SELECT sum(number) FROM numbers(1000000000000)';
    const service = AnalyticsService.start({
      db: server.db,
      pool: server.pool,
      dataDir: join(root, 'hangs'),
      statementTimeoutMs: 8_000,
      restartDelayMs: 50,
      log: (line) => lines.push(line),
    });
    try {
      await service.caughtUpOnce();
      const hang = async () => {
        const store = service.store!;
        await expect(store.query(endless)).rejects.toThrow(/did not answer within 8000 ms/);
        expect(await store.ended).toMatch(/^stopped answering/);
        await vi.waitFor(() => expect(service.state().caughtUp && service.store !== store).toBe(true), {
          timeout: 90_000,
        });
      };
      await hang();
      expect(lines.filter((line) => line.includes('Rebuilding'))).toHaveLength(1); // the first, for no layout
      await hang();
      expect(lines).toContain(
        '[analytics] Rebuilding the store from PostgreSQL: its process stopped answering 2 times within an hour.',
      );
      expect(await storeHoldings(service.store!)).toEqual(await postgresHoldings(server.pool));
    } finally {
      await service.stop();
    }
  }, 240_000);

  it('applies the batches written within coalesceMs of a round together, in the next round', async () => {
    const service = AnalyticsService.start({
      db: server.db,
      pool: server.pool,
      dataDir: join(root, 'coalesce'),
      pollMs: 60_000,
      // Long enough that the three writes below land before it ends, however slow the machine's first round.
      coalesceMs: 5_000,
      log: () => {},
    });
    let rounds = 0;
    service.onApplied(() => rounds++);
    try {
      await service.caughtUpOnce(); // rebuilt: no round yet
      await writePost(); // after a quiet spell: a round at once
      await appliedUpTo(service, await corpusVersion());
      expect(rounds).toBe(1);
      for (let i = 0; i < 3; i++) await writePost(); // three batches, while the last round is recent
      await appliedUpTo(service, await corpusVersion());
      expect(rounds).toBe(2);
      expect(await storeHoldings(service.store!)).toEqual(await postgresHoldings(server.pool));
    } finally {
      await service.stop();
    }
  });

  /** A service whose pace holds a round for 10 minutes after the one before, its rounds counted; rebuilt, no round. */
  async function pacedService(dir: string) {
    const service = AnalyticsService.start({
      db: server.db,
      pool: server.pool,
      dataDir: join(root, dir),
      pollMs: 600_000,
      coalesceMs: 600_000,
      log: () => {},
    });
    const counted = { rounds: 0 };
    service.onApplied(() => counted.rounds++);
    await service.caughtUpOnce(); // rebuilt: no round yet, so no pace
    return { service, counted };
  }

  /** A post written now is held by the pace: a second later the rounds are still `rounds`. */
  async function postHeld(counted: { rounds: number }, rounds: number) {
    await writePost();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(counted.rounds).toBe(rounds);
  }

  it("starts a full round's next round at once, whatever coalesceMs", async () => {
    const { service, counted } = await pacedService('backlog');
    try {
      // 420,000 posts' tags (a rule's past matches, or its deletion; posts that do not exist carry none): 9 batches of
      // at most 50,000 (migration 0056). A round takes 4 (ROUND_IDS, a tagged post's id a quarter of one), the next 4
      // are not held for coalesceMs after it, nor the last after them.
      await server.pool.query(
        `SELECT corpus_tags_changed(ARRAY(SELECT generate_series(1000000::bigint, 1419999)))`,
      );
      await appliedUpTo(service, await corpusVersion());
      expect(counted.rounds).toBe(3);
      // The third round took every batch it read: not full, so the pace holds the next one.
      await postHeld(counted, 3);
    } finally {
      await service.stop();
    }
  });

  it('applies batches of tags alone at once, whatever coalesceMs; a post written then waits for the pace', async () => {
    const { service, counted } = await pacedService('tags-unpaced');
    try {
      await writePost(); // a round at once: the pace holds the next round for 10 minutes
      await appliedUpTo(service, await corpusVersion());
      expect(counted.rounds).toBe(1);
      // Tags changed (as a rule's rows are written, or a person tags posts): not held, each as it comes.
      for (let i = 0; i < 2; i++) {
        await server.pool.query(`SELECT corpus_tags_changed(ARRAY[${3_000_000 + i}::bigint])`);
        await appliedUpTo(service, await corpusVersion());
        expect(counted.rounds).toBe(2 + i);
      }
      await postHeld(counted, 3);
    } finally {
      await service.stop();
    }
  });

  it('moves a directory its engine cannot open aside and rebuilds the store', async () => {
    const dataDir = join(root, 'broken');
    mkdirSync(join(dataDir, 'metadata'), { recursive: true });
    writeFileSync(
      join(dataDir, 'metadata', 'murmur.sql'),
      'ATTACH DATABASE murmur ENGINE = Atomicc garbage((',
    );
    const lines: string[] = [];
    const service = AnalyticsService.start({
      db: server.db,
      pool: server.pool,
      dataDir,
      log: (l) => lines.push(l),
    });
    try {
      await service.caughtUpOnce();
      expect(lines.join('\n')).toMatch(
        /Failed to create connection.*; moved it to .*broken\.unreadable-.* and rebuilding/,
      );
      expect(readdirSync(root).some((name) => name.startsWith('broken.unreadable-'))).toBe(true);
      expect(await storeHoldings(service.store!)).toEqual(await postgresHoldings(server.pool));
    } finally {
      await service.stop();
    }
  });

  it('stopped while its store opens: stop() returns once the process it was opening has closed', async () => {
    const dataDir = join(root, 'stopped-early');
    const lines: string[] = [];
    const service = AnalyticsService.start({
      db: server.db,
      pool: server.pool,
      dataDir,
      log: (line) => lines.push(line),
    });
    await service.stop();
    expect(service.state().phase).toBe('stopped');
    expect(processesNaming(dataDir)).toEqual([]);
    // Stopped before its store was made: no rebuild was started or announced (a SIGTERM's output stays quiet).
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(lines.filter((line) => line.includes('Rebuilding'))).toEqual([]);
  });

  it('is not started with ANALYTICS_STORE=off, and the outbox is no longer written', async () => {
    expect(await consumerPosition(server.db)).not.toBeNull();
    expect(
      await startAnalytics(
        { ANALYTICS_STORE: 'off', ANALYTICS_MAX_THREADS: 1, ANALYTICS_READ_WAIT_MS: 1_000 },
        server,
        root,
      ),
    ).toBeNull();
    expect(await consumerPosition(server.db)).toBeNull();
  });
});
