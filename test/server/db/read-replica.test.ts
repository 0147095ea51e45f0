// Issue 20 item 4: read replicas (DATABASE_READ_URL). A real streaming replica of the embedded PostgreSQL: a primary
// with a replication role and its pg_hba entry, copied while stopped, the copy started as a hot standby
// (standby.signal, primary_conninfo) on its own port. Through the real app: dashboards and discover read there,
// everything else (saved queries, the monthly counters) runs on the primary, writes are refused there, a lagging
// replica's answers say how old they are and are never cached under the primary's newer corpus version, a replica
// further behind than DATABASE_READ_MAX_LAG_SECONDS gives its reads to the primary, and one that is down too.
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OverviewResponse } from '@contract/insights-responses';
import type { DiscoverResponse } from '@contract/discover';
import { ensureDatabase, startEmbeddedPostgres, type EmbeddedServer } from '@server/db/database';
import { profiles } from '@server/db/social-schema';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createWorkspace, type Person } from '@test/support/workspaces.fixtures';
import { insertCorpus } from '@test/support/insights.fixtures';
import { insertPosts } from '@server/social/corpus/changes';

const RANGE = { from: '2026-10-25T04:00:00Z', to: '2026-11-08T05:00:00Z' };
const REPLICATION_PASSWORD = 'replica-test';

/** Two ports nobody listens on now (MURMUR_REPLICA_TEST_PG_PORT and the next one, when set). */
async function freePorts(): Promise<[number, number]> {
  const base = process.env.MURMUR_REPLICA_TEST_PG_PORT;
  if (base) return [Number(base), Number(base) + 1];
  // Both held open at once, so the system gives two different ones.
  const probes = [createServer(), createServer()];
  await Promise.all(
    probes.map((probe) => new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))),
  );
  const ports = probes.map((probe) => (probe.address() as { port: number }).port);
  await Promise.all(probes.map((probe) => new Promise((resolve) => probe.close(resolve))));
  return [ports[0]!, ports[1]!];
}

const dir = mkdtempSync(join(tmpdir(), 'murmur-replica-'));
// As root, PostgreSQL runs as its own account, which must be able to enter the directory.
chmodSync(dir, 0o755);
const primaryDir = join(dir, 'primary', 'pg');
const replicaDir = join(dir, 'replica', 'pg');

let primary: EmbeddedServer;
let replica: EmbeddedServer | undefined;
let server: TestServer;
let viewer: Person;
let workspaceId: string;
/** Superuser sessions on each side, for what the test checks and controls (replay, pg_stat_activity). */
let onPrimary: pg.Client;
let onReplica: pg.Client;

async function client(url: string) {
  const connection = new pg.Client({ connectionString: url });
  await connection.connect();
  return connection;
}

/** Until the replica has replayed everything the primary has written so far. */
async function replayed() {
  const { rows } = await onPrimary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
  const deadline = Date.now() + 15_000;
  for (;;) {
    const done = await onReplica.query<{ ok: boolean }>(
      'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok',
      [rows[0]!.lsn],
    );
    if (done.rows[0]!.ok) return;
    if (Date.now() > deadline) throw new Error('The replica did not catch up in time.');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function pauseReplay() {
  await onReplica.query('SELECT pg_wal_replay_pause()');
  for (;;) {
    const { rows } = await onReplica.query<{ state: string }>(
      'SELECT pg_get_wal_replay_pause_state() AS state',
    );
    if (rows[0]!.state === 'paused') return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const overview = (body: Record<string, unknown> = { query: 'outage' }) =>
  as(server, viewer, {
    method: 'POST',
    url: '/social/insights/overview',
    payload: { workspace_id: workspaceId, filters: RANGE, ...body },
  });
const mentions = (response: { json<T>(): T }) => response.json<OverviewResponse>().totals.mentions.value;

/** A post with a word no other has, on the primary. */
async function importPost(word: string) {
  const [author] = await server.db.select().from(profiles).limit(1);
  await insertPosts(server.db, [
    {
      authorId: author!.id,
      platform: author!.platform,
      externalId: `replica-${word}`,
      text: `an outage report ${word}`,
      language: 'en',
      postedAt: new Date('2026-11-01T12:00:00Z'),
      likes: 1,
      comments: 0,
      shares: 0,
      sentiment: 0,
      sentimentLabel: 'neutral',
    },
  ]);
}

beforeAll(async () => {
  const [primaryPort, replicaPort] = await freePorts();
  primary = await startEmbeddedPostgres(primaryDir, primaryPort);
  await ensureDatabase(primary.urlFor('postgres'), 'murmur');
  const primaryUrl = primary.urlFor('murmur');
  // The schema before the copy (the app migrates again: nothing to do), and a role that may only replicate, allowed
  // by the first line of pg_hba.conf.
  const setup = await createTestServer({}, { databaseUrl: primaryUrl });
  await setup.close();
  onPrimary = await client(primaryUrl);
  await onPrimary.query(`CREATE ROLE replicator WITH REPLICATION LOGIN PASSWORD '${REPLICATION_PASSWORD}'`);
  const hba = join(primaryDir, 'pg_hba.conf');
  writeFileSync(hba, `host replication replicator 127.0.0.1/32 scram-sha-256\n${readFileSync(hba, 'utf8')}`);
  await onPrimary.end();

  // The base copy: the stopped primary's files (owner and modes kept), then a standby of it.
  await primary.stop();
  mkdirSync(join(dir, 'replica'));
  execFileSync('cp', ['-a', primaryDir, replicaDir]);
  writeFileSync(join(replicaDir, 'standby.signal'), '');
  appendFileSync(
    join(replicaDir, 'postgresql.auto.conf'),
    `primary_conninfo = 'host=127.0.0.1 port=${primaryPort} user=replicator password=${REPLICATION_PASSWORD} ` +
      `application_name=murmur_test_replica'\n`,
  );
  primary = await startEmbeddedPostgres(primaryDir, primaryPort);
  replica = await startEmbeddedPostgres(replicaDir, replicaPort);
  onPrimary = await client(primaryUrl);
  onReplica = await client(replica.urlFor('murmur'));
  // Stopped by the last test: the session ends with it.
  onReplica.on('error', () => {});

  server = await createTestServer(
    { DATABASE_READ_URL: replica.urlFor('murmur'), DATABASE_READ_MAX_LAG_SECONDS: '3600' },
    { databaseUrl: primaryUrl, store: true },
  );
  viewer = await server.createUser();
  workspaceId = (await createWorkspace(server, [[viewer, 'manager']], { timeZone: 'America/New_York' })).id;
  await insertCorpus(server);
  await replayed();
}, 60_000);

afterAll(async () => {
  await server?.close();
  await onPrimary?.end().catch(() => {});
  await onReplica?.end().catch(() => {});
  await replica?.stop();
  await primary?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a streaming replica behind DATABASE_READ_URL', () => {
  it('is a hot standby streaming from the primary, and refuses writes', async () => {
    expect((await onReplica.query('SELECT pg_is_in_recovery() AS r')).rows[0].r).toBe(true);
    const senders = await onPrimary.query(
      `SELECT state FROM pg_stat_replication WHERE usename = 'replicator'`,
    );
    expect(senders.rows).toEqual([{ state: 'streaming' }]);
    await expect(onReplica.query(`UPDATE posts SET likes = likes + 1`)).rejects.toMatchObject({
      code: '25006',
      message: expect.stringMatching(/read-only transaction/),
    });
    // So does the app's pool there.
    const [pool] = server.app.deps.readReplicas!;
    await expect(pool!.pool.query(`DELETE FROM corpus_state`)).rejects.toMatchObject({ code: '25006' });
  });

  it('serves dashboards and discover from the replica, while saved queries and counters stay on the primary', async () => {
    const first = await overview();
    expect(first.statusCode, first.body).toBe(200);
    expect(first.headers['murmur-read-from']).toBe('replica');
    expect(first.headers['murmur-data-as-of']).toBeUndefined();
    const search = await as(server, viewer, {
      method: 'POST',
      url: '/social/discover',
      payload: { workspace_id: workspaceId, query: 'outage', filters: RANGE },
    });
    expect(search.statusCode, search.body).toBe(200);
    expect(search.headers['murmur-read-from']).toBe('replica');
    expect(search.json<DiscoverResponse>().posts.length).toBeGreaterThan(0);
    const file = await as(server, viewer, {
      method: 'POST',
      url: '/social/insights/export/posts',
      payload: { workspace_id: workspaceId, query: 'outage', filters: RANGE },
    });
    expect(file.statusCode, file.body).toBe(200);
    expect(file.headers['murmur-read-from']).toBe('replica');
    expect(file.body).toMatch(/outage/);
    // The replica's pool looked their posts up (the analytics store, fed from the primary, gave the figures).
    const analytics = `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE 'murmur analytics%'`;
    expect((await onReplica.query(analytics)).rows[0].n).toBeGreaterThan(0);

    // With replay paused, a saved query (written and read on the primary) and the dashboards' monthly counter (a
    // write on the primary) still work; the corpus is the replica's.
    await pauseReplay();
    try {
      const saved = await as(server, viewer, {
        method: 'POST',
        url: `/api/workspaces/${workspaceId}/saved-queries`,
        payload: { name: 'Outages', query: 'outage', filters: RANGE },
      });
      expect(saved.statusCode, saved.body).toBe(201);
      const id = saved.json<{ id: string }>().id;
      const absent = await onReplica.query('SELECT count(*)::int AS n FROM saved_queries WHERE id = $1', [
        id,
      ]);
      expect(absent.rows[0].n).toBe(0);
      const counted = `SELECT coalesce(sum(count), 0)::int AS n FROM usage_counters
        WHERE workspace_id = $1 AND metric = 'dashboard_requests_per_month'`;
      const countedBefore = (await onPrimary.query(counted, [workspaceId])).rows[0].n as number;
      const bySaved = await overview({ saved_query_id: id });
      expect(bySaved.statusCode, bySaved.body).toBe(200);
      expect(mentions(bySaved)).toBe(mentions(first));
      expect(bySaved.headers['murmur-read-from']).toBe('replica');
      // Counted on the primary; the paused replica has not seen the count.
      expect((await onPrimary.query(counted, [workspaceId])).rows[0].n).toBe(countedBefore + 1);
      expect((await onReplica.query(counted, [workspaceId])).rows[0].n).toBeLessThan(countedBefore + 1);
      const volume = await as(server, viewer, {
        method: 'POST',
        url: '/social/saved-queries/volume',
        payload: { workspace_id: workspaceId },
      });
      expect(volume.statusCode, volume.body).toBe(200);
      const listed = volume.json<{ saved_queries: Array<{ id: string; counts: number[] | null }> }>()
        .saved_queries;
      expect(listed.map((q) => q.id)).toEqual([id]);
      expect(volume.headers['murmur-read-from']).toBe('replica');
    } finally {
      await onReplica.query('SELECT pg_wal_replay_resume()');
    }
  });

  it('while the replica lags: answers as of its last replayed transaction, says so, and caches nothing of it', async () => {
    await replayed();
    const before = await overview();
    expect(before.headers['murmur-data-as-of']).toBeUndefined();
    await pauseReplay();
    try {
      await importPost('lagmarker');
      const { rows } = await onReplica.query<{ at: Date }>('SELECT pg_last_xact_replay_timestamp() AS at');
      const { cache } = server.app.analytics;
      const stored = cache.stats.stored;
      const lagging = await overview();
      expect(lagging.statusCode, lagging.body).toBe(200);
      // The figures are the analytics store's, fed from the primary: the new post counted. Its posts are looked up
      // on the replica, which says up to when it is complete (the new post is not among them).
      expect(mentions(lagging)).toBe(mentions(before) + 1);
      expect(lagging.headers['murmur-read-from']).toBe('replica');
      expect(lagging.headers['murmur-data-as-of']).toBe(rows[0]!.at.toISOString());
      // The dashboard says it too, in its answer (the SPA shows it above the figures).
      expect(lagging.json<OverviewResponse>().data_as_of).toBe(rows[0]!.at.toISOString());
      const search = await as(server, viewer, {
        method: 'POST',
        url: '/social/discover',
        payload: { workspace_id: workspaceId, query: 'lagmarker', filters: RANGE },
      });
      expect(search.json<DiscoverResponse>().posts).toEqual([]);
      expect(search.headers['murmur-data-as-of']).toBe(rows[0]!.at.toISOString());
      // Not kept under the primary's newer version: asked again, it is computed again (still from the replica).
      expect(cache.stats.stored).toBe(stored);
      const again = await overview();
      expect(again.headers['murmur-read-from']).toBe('replica');
      expect(cache.stats.stored).toBe(stored);
    } finally {
      await onReplica.query('SELECT pg_wal_replay_resume()');
    }
    await replayed();
    const caughtUp = await overview();
    expect(mentions(caughtUp)).toBe(mentions(before) + 1);
    expect(caughtUp.headers['murmur-read-from']).toBe('replica');
    expect(caughtUp.headers['murmur-data-as-of']).toBeUndefined();
    expect(caughtUp.json<OverviewResponse>().data_as_of).toBeUndefined();
    expect((await overview()).headers['murmur-read-from']).toBe('cache');
  });

  it('gives the read to the primary when the replica is further behind than DATABASE_READ_MAX_LAG_SECONDS', async () => {
    const strict = await createTestServer(
      {
        DATABASE_READ_URL: replica!.urlFor('murmur'),
        DATABASE_READ_MAX_LAG_SECONDS: '0',
        ANSWER_CACHE_MB: '0',
      },
      { databaseUrl: primary.urlFor('murmur') },
    );
    // Another process of the deployment: the figures are the one store's, fed from the primary.
    strict.app.deps.analytics = server.analytics;
    const person = { ...viewer, token: await strict.tokenFor(viewer.id) };
    const overviewOf = () =>
      as(strict, person, {
        method: 'POST',
        url: '/social/insights/overview',
        payload: { workspace_id: workspaceId, query: 'outage', filters: RANGE },
      });
    try {
      const before = await overviewOf();
      expect(before.headers['murmur-read-from']).toBe('replica');
      await pauseReplay();
      try {
        await importPost('strictmarker');
        const current = await overviewOf();
        expect(current.statusCode, current.body).toBe(200);
        expect(mentions(current)).toBe(mentions(before) + 1);
        expect(current.headers['murmur-read-from']).toBe('primary');
        expect(current.headers['murmur-data-as-of']).toBeUndefined();
        expect(strict.app.analytics.reads.stats.behind).toBe(1);
      } finally {
        await onReplica.query('SELECT pg_wal_replay_resume()');
      }
    } finally {
      await strict.close();
    }
  });

  it('falls back to the primary when the replica is down', async () => {
    await replayed();
    const expected = mentions(await overview({ query: 'outage OR report' }));
    await replica!.stop();
    const down = await overview({ query: 'outage OR report', filters: { ...RANGE, platforms: ['x'] } });
    expect(down.statusCode, down.body).toBe(200);
    expect(down.headers['murmur-read-from']).toBe('primary');
    const { reads } = server.app.analytics;
    expect(reads.stats.unavailable).toBe(1);
    // Left alone for a while: the next read does not try it.
    const next = await overview({ query: 'outage', filters: { ...RANGE, platforms: ['x'] } });
    expect(next.headers['murmur-read-from']).toBe('primary');
    expect(reads.stats.unavailable).toBe(1);
    expect(expected).toBeGreaterThan(0);
  });
});
