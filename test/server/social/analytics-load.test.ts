// Issue 17 item 9: light requests never wait behind the dashboards (their own pool, and admission control with a
// bounded queue answering 503 busy + Retry-After beyond it), and identical dashboard requests are answered from a
// cache keyed by workspace, resolved request and corpus version. Saturation is made deterministic by holding an
// ACCESS EXCLUSIVE lock on the corpus's tables: a dashboard's look-up of its posts waits until the test lets go.
import { randomBytes } from 'node:crypto';
import { getPriority } from 'node:os';
import { eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { OverviewResponse } from '@contract/insights-responses';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createWorkspace, type Person } from '@test/support/workspaces.fixtures';
import { insertCorpus, insertSavedQuery } from '@test/support/insights.fixtures';
import { profiles, savedQueries } from '@server/db/social-schema';
import { workspaces } from '@server/db/schema';
import { Admission, ClientGoneError } from '@server/social/admission';
import { ApiError } from '@server/errors';
import { connect, ensureDatabase } from '@server/db/database';
import { AnswerCache, corpusVersionOf } from '@server/social/insights/answer-cache';
import { readOnly } from '@server/social/insights/transactions';
import { insertPosts } from '@server/social/corpus/changes';

const RANGE = { from: '2026-10-25T04:00:00Z', to: '2026-11-08T05:00:00Z' };
const CORPUS_TABLES = 'posts, profiles';

let server: TestServer;
let viewer: Person;
let workspaceId: string;

beforeAll(async () => {
  // Two computing, ten waiting: the thirteenth heavy request is refused.
  server = await createTestServer({ ANALYTICS_SLOTS: '2', ANALYTICS_QUEUE: '10' });
  viewer = await server.createUser();
  workspaceId = (await createWorkspace(server, [[viewer, 'viewer']], { timeZone: 'America/New_York' })).id;
  await insertCorpus(server);
});
afterAll(() => server.close());
afterEach(() => vi.useRealTimers());

const overview = (workspace: string, body: Record<string, unknown> = {}) =>
  as(server, viewer, {
    method: 'POST',
    url: '/social/insights/overview',
    payload: { workspace_id: workspace, query: 'outage', filters: RANGE, ...body },
  });

/** A distinct overview (its range ends `n` hours earlier): no two share an answer or a computation. */
const distinctOverview = (n: number) =>
  overview(workspaceId, {
    filters: { from: RANGE.from, to: new Date(Date.parse(RANGE.to) - n * 3_600_000).toISOString() },
  });

/**
 * Holds an ACCESS EXCLUSIVE lock on the corpus's tables until the returned function is called: a dashboard's figures
 * come from the analytics store, and its posts and people are then looked up in PostgreSQL, where it waits.
 */
async function lockCorpus(): Promise<() => Promise<void>> {
  // The store fed first: its feed would wait on the lock, and the dashboards on the feed rather than on the lock.
  await server.storeCaughtUp();
  const client = await server.pool.connect();
  await client.query('BEGIN');
  await client.query(`LOCK TABLE ${CORPUS_TABLES} IN ACCESS EXCLUSIVE MODE`);
  return async () => {
    await client.query('COMMIT');
    client.release();
  };
}

/** Resolves when `condition` holds (polled), or fails after `ms` saying what `seen` shows then. */
async function until(condition: () => boolean | Promise<boolean>, ms = 10_000, seen?: () => unknown) {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline)
      throw new Error(`The condition did not hold in time.${seen ? ` Seen: ${JSON.stringify(seen())}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The status and body of each request that has answered so far (by position; undefined while one waits). */
function answered(requests: Array<Promise<{ statusCode: number; body: string }>>) {
  const codes: Array<string | undefined> = requests.map(() => undefined);
  requests.forEach(
    (request, n) => void request.then((answer) => (codes[n] = `${answer.statusCode} ${answer.body}`)),
  );
  return codes;
}

/** `promise`, or a failure when it has not settled within `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms)),
  ]);
}

const lockWaiters = async () =>
  Number(
    (
      await server.db.execute<{ n: string }>(
        sql`SELECT count(*)::text AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`,
      )
    ).rows[0]!.n,
  );

describe('light requests while the dashboards are saturated', () => {
  it('answers users/me, workspaces and saved queries at once while every slot and the queue are full; 503 busy with Retry-After beyond the queue', async () => {
    const unlock = await lockCorpus();
    // 12 distinct dashboards: 2 compute (and wait on the lock), 10 queue. Before admission control each took one or
    // two connections of the one pool of 10, and users/me waited for one.
    const dashboards = Array.from({ length: 12 }, (_, n) => distinctOverview(n));
    try {
      await until(() => {
        const { running, waiting } = server.app.analytics.admission.state;
        return running === 2 && waiting === 10;
      });
      await until(async () => (await lockWaiters()) >= 2);

      const me = await within(as(server, viewer, { method: 'GET', url: '/api/users/me' }), 3000, 'users/me');
      expect(me.statusCode, me.body).toBe(200);
      const workspace = await within(
        as(server, viewer, { method: 'GET', url: `/api/workspaces/${workspaceId}` }),
        3000,
        'workspaces/{id}',
      );
      expect(workspace.statusCode, workspace.body).toBe(200);
      const saved = await within(
        as(server, viewer, { method: 'GET', url: `/api/workspaces/${workspaceId}/saved-queries` }),
        3000,
        'saved queries',
      );
      expect(saved.statusCode, saved.body).toBe(200);

      // The thirteenth: refused at once, with when to ask again.
      const refused = await within(distinctOverview(12), 3000, 'the refused dashboard');
      expect(refused.statusCode).toBe(503);
      expect(refused.json()).toMatchObject({ error: 'busy' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // Discover and the query count share the heavy requests' queue.
      const search = await as(server, viewer, {
        method: 'POST',
        url: '/social/discover',
        payload: { workspace_id: workspaceId, query: 'outage', filters: RANGE },
      });
      expect(search.statusCode).toBe(503);
      expect(search.headers['retry-after']).toMatch(/^\d+$/);
    } finally {
      await unlock();
    }
    // Let go: every queued dashboard is answered.
    const answers = await Promise.all(dashboards);
    expect(
      answers.map((answer) => answer.statusCode),
      answers[0]!.body,
    ).toEqual(Array(12).fill(200));
    expect(server.app.analytics.admission.state).toEqual({ running: 0, waiting: 0 });
  });

  it('refuses at the door while the queue is full: before the body is read or the volume counted, bytes made once', async () => {
    const unlock = await lockCorpus();
    const dashboards = Array.from({ length: 12 }, (_, n) => distinctOverview(200 + n));
    const counted = async () =>
      Number(
        (
          await server.db.execute<{ n: string }>(
            sql`SELECT coalesce(sum(count), 0)::text AS n FROM usage_counters WHERE workspace_id = ${workspaceId}`,
          )
        ).rows[0]!.n,
      );
    try {
      await until(() => {
        const { running, waiting } = server.app.analytics.admission.state;
        return running === 2 && waiting === 10;
      });
      const before = await counted();
      const refusals = await Promise.all([
        distinctOverview(212),
        // Not even a valid body, or a workspace the caller is a member of: nothing was read to find out.
        as(server, viewer, { method: 'POST', url: '/social/insights/overview', payload: { nonsense: true } }),
        overview('00000000-0000-4000-8000-000000000000'),
        as(server, viewer, { method: 'POST', url: '/social/insights/export/posts', payload: {} }),
      ]);
      for (const refused of refusals) {
        expect(refused.statusCode, refused.body).toBe(503);
        const seconds = refused.headers['retry-after'];
        expect(seconds).toMatch(/^[1-9]\d*$/);
        expect(refused.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(refused.headers['cache-control']).toBe('no-store');
        // As the error handler writes the busy error.
        expect(refused.body).toBe(
          JSON.stringify({
            error: 'busy',
            message: `Many dashboards and searches are being computed right now. Try again in ${seconds} s.`,
          }),
        );
      }
      // A refused request is not counted against the month's dashboard volume.
      expect(await counted()).toBe(before);
      // A signed-out caller still learns only that it must sign in.
      const anonymous = await as(server, null, {
        method: 'POST',
        url: '/social/insights/overview',
        payload: { workspace_id: workspaceId, query: 'outage', filters: RANGE },
      });
      expect(anonymous.statusCode).toBe(401);
      const me = await as(server, viewer, { method: 'GET', url: '/api/users/me' });
      expect(me.statusCode).toBe(200);
    } finally {
      await unlock();
    }
    const answers = await Promise.all(dashboards);
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(12).fill(200));
  });

  it('gives the slot of a request whose client went away to the next one', async () => {
    const unlock = await lockCorpus();
    try {
      const first = [distinctOverview(100), distinctOverview(101)];
      await until(() => server.app.analytics.admission.state.running === 2);
      const controller = new AbortController();
      const abandoned = server.app.analytics.admission.acquire(controller.signal);
      expect(server.app.analytics.admission.state.waiting).toBe(1);
      controller.abort(new Error('gone'));
      await expect(abandoned).rejects.toThrow('gone');
      expect(server.app.analytics.admission.state.waiting).toBe(0);
      await unlock();
      expect((await Promise.all(first)).map((r) => r.statusCode)).toEqual([200, 200]);
    } finally {
      await unlock().catch(() => {});
    }
  });
});

describe('the analytics pool', () => {
  it("runs its backends at a lower CPU priority on this machine's PostgreSQL, the light pool's at the default", async () => {
    const name = `test_${randomBytes(6).toString('hex')}`;
    await ensureDatabase(inject('pgAdminUrl'), name);
    const url = new URL(inject('pgAdminUrl'));
    url.pathname = `/${name}`;
    const database = await connect(url.toString(), { local: true });
    try {
      const pidOf = async (pool: typeof database.pool) =>
        (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      expect(getPriority(await pidOf(database.analyticsPool))).toBe(10);
      expect(getPriority(await pidOf(database.pool))).toBe(getPriority(process.pid));
    } finally {
      await database.close();
    }
  });
});

describe('admission control', () => {
  it('answers 503 busy with Retry-After to a request that waited longer than the queue allows, and serves the others in order', async () => {
    vi.useFakeTimers();
    const admission = new Admission({ slots: 1, queue: 2, maxWaitMs: 1000 });
    const order: string[] = [];
    const release = await admission.acquire();
    const second = admission.acquire().then((r) => (order.push('second'), r));
    vi.advanceTimersByTime(600);
    const third = admission.acquire().then((r) => (order.push('third'), r));
    // The queue is full: refused at once.
    await expect(admission.acquire()).rejects.toMatchObject({ statusCode: 503, code: 'busy' });
    vi.advanceTimersByTime(500);
    // The second waited 1 100 ms: refused, with when to come back.
    const refused = await second.catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).options.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    release();
    (await third)();
    expect(order).toEqual(['third']);
    expect(admission.state).toEqual({ running: 0, waiting: 0 });
  });
});

/** Raises the corpus version through its change path (corpus_state takes no other write, migration 0032). */
const touchCorpus = () =>
  server.db.transaction(async (tx) => {
    await tx.execute(sql`SELECT corpus_changes_begin()`);
    await tx.execute(sql`SELECT corpus_touch()`);
  });

describe('under load', () => {
  /** Raising the corpus version empties the cache; nothing else changes. */
  const emptyTheCache = () => touchCorpus();

  it('answers the overview from one scan of both periods while another heavy request holds a slot, the same as apart', async () => {
    const kolkata = (await createWorkspace(server, [[viewer, 'viewer']], { timeZone: 'Asia/Kolkata' })).id;
    const cases: Array<[string, Record<string, unknown>]> = [
      [workspaceId, { query: 'outage' }],
      [workspaceId, { query: 'latte OR outage', filters: { from: '2026-03-02T05:00:00Z', to: RANGE.to } }],
      [kolkata, { query: 'outage NOT #coffee' }],
      [workspaceId, { query: 'outage', refine: [{ field: 'platform', values: ['x'] }] }],
    ];
    for (const [workspace, body] of cases) {
      await emptyTheCache();
      const apart = await overview(workspace, body);
      expect(apart.statusCode, apart.body).toBe(200);
      await emptyTheCache();
      // Another heavy request in the other slot: this one now shares the cores.
      const release = await server.app.analytics.admission.acquire();
      try {
        const shared = await overview(workspace, body);
        expect(shared.json()).toEqual(apart.json());
      } finally {
        release();
      }
    }
  });
});

describe('the answer cache', () => {
  const totalMentions = (body: OverviewResponse) => body.totals.mentions.value;

  it('answers a repeated request from the cache, even while the corpus is locked', async () => {
    const first = await overview(workspaceId, { query: 'nova OR outage' });
    expect(first.statusCode, first.body).toBe(200);
    const hits = server.app.analytics.cache.stats.hits;
    const unlock = await lockCorpus();
    // More requests waiting for computations than the lane is wide (server/social/lane.ts): six identical ones share
    // one computation, two more wait for theirs. None holds a place in the lane while it waits.
    const waiting = [
      ...Array.from({ length: 6 }, () => overview(workspaceId, { query: 'nova OR latte' })),
      distinctOverview(300),
      distinctOverview(301),
    ];
    const codes = answered(waiting);
    try {
      // A busy machine (CI's 2 cores, other files' servers) may take seconds to bring eight requests this far.
      const { lane, cache, admission } = server.app.analytics;
      await until(
        () => cache.stats.shared >= 5 && lane.state.inside === 0 && lane.state.waiting === 0,
        30_000,
        () => ({ lane: lane.state, cache: cache.stats, admission: admission.state, codes }),
      );
      // A computation would wait on the lock; the cached answer does not.
      const again = await within(overview(workspaceId, { query: 'nova OR outage' }), 3000, 'the repeat');
      expect(again.statusCode).toBe(200);
      expect(again.json()).toEqual(first.json());
    } finally {
      await unlock();
    }
    expect((await Promise.all(waiting)).map((answer) => answer.statusCode)).toEqual(Array(8).fill(200));
    expect(server.app.analytics.cache.stats.hits).toBe(hits + 1);
    // The same request written differently (spacing, the order of platforms) is the same answer, from the cache.
    const platforms = (list: string[]) => ({ ...RANGE, platforms: list });
    const a = await overview(workspaceId, { query: 'nova OR outage', filters: platforms(['x', 'tiktok']) });
    const b = await overview(workspaceId, {
      query: ' nova  OR  outage',
      filters: platforms(['tiktok', 'x']),
    });
    expect(b.json()).toEqual(a.json());
    expect(server.app.analytics.cache.stats.hits).toBe(hits + 2);
  });

  it('shares one computation between identical requests, and computes it again when the one computing went away', async () => {
    const cache = new AnswerCache({ maxBytes: 1_000_000, readVersion: () => Promise.resolve(1) });
    let computations = 0;
    let giveUp!: () => void;
    const first = cache.answer('key', () => {
      computations += 1;
      return new Promise<never>((_, reject) => (giveUp = () => reject(new ClientGoneError())));
    });
    const second = cache.answer('key', (version) => {
      computations += 1;
      return Promise.resolve({
        value: Buffer.from('{"answer":42}'),
        version: version!,
        from: 'primary',
        asOf: null,
      });
    });
    await until(() => giveUp !== undefined && cache.stats.shared === 1);
    expect(computations).toBe(1);
    giveUp();
    await expect(first).rejects.toBeInstanceOf(ClientGoneError);
    expect((await second).value.json.toString()).toBe('{"answer":42}');
    expect(computations).toBe(2);
    // And the answer is kept: a third asks nothing.
    const third = await cache.answer('key', () => Promise.reject(new Error('not asked')));
    expect(third).toMatchObject({ version: 1, from: 'cache', asOf: null });
    expect(third.value).toBe((await second).value);
  });

  it("keeps an answer only under the corpus version its own snapshot saw, never under the primary's newer one", async () => {
    // The primary is at version 7; the computation's snapshot (a lagging replica's) saw version 6.
    let primary = 7;
    const cache = new AnswerCache({ maxBytes: 1_000_000, readVersion: () => Promise.resolve(primary) });
    const lagging = await cache.answer('key', () =>
      Promise.resolve({
        value: Buffer.from('as of 6'),
        version: 6,
        from: 'replica' as const,
        asOf: new Date(0),
      }),
    );
    expect(lagging.value.json.toString()).toBe('as of 6');
    expect(cache.stats).toMatchObject({ stored: 0, discarded: 1 });
    // Not served again: the next request computes, and one whose snapshot saw 7 is kept.
    let computed = 0;
    const current = () => {
      computed += 1;
      return Promise.resolve({
        value: Buffer.from('as of 7'),
        version: 7,
        from: 'replica' as const,
        asOf: null,
      });
    };
    expect((await cache.answer('key', current)).value.json.toString()).toBe('as of 7');
    expect((await cache.answer('key', current)).from).toBe('cache');
    expect(computed).toBe(1);
    // A snapshot newer than the version looked up (a write committed after the look-up) is not kept either, nor one
    // whose statements saw different versions (null).
    primary = 8;
    await cache.answer('other', () =>
      Promise.resolve({ value: Buffer.from('as of 9'), version: 9, from: 'primary' as const, asOf: null }),
    );
    await cache.answer('third', () =>
      Promise.resolve({ value: Buffer.from('mixed'), version: null, from: 'primary' as const, asOf: null }),
    );
    expect(cache.stats).toMatchObject({ stored: 1, discarded: 3 });
  });

  it('takes the version an answer is kept under from the transaction that computed it', async () => {
    // A write commits between the look-up (version v) and the computation, whose snapshot therefore sees v + 1: the
    // answer is returned, with v + 1, and not kept under v.
    const cache = new AnswerCache({ maxBytes: 1_000_000, readVersion: corpusVersionOf(server.db) });
    const before = await corpusVersionOf(server.db)();
    const read = await cache.answer('key', (version) =>
      server.app.analytics.reads.read(async (db) => {
        // A change of the corpus, through its change path (migration 0016).
        await touchCorpus();
        return readOnly(
          db,
          async (tx) =>
            Buffer.from(JSON.stringify((await tx.execute(sql`SELECT count(*)::int AS n FROM posts`)).rows)),
          {
            timeZone: 'UTC',
          },
        );
      }, version),
    );
    expect(read).toMatchObject({ version: before + 1, from: 'primary', asOf: null });
    expect(cache.stats).toMatchObject({ stored: 0, discarded: 1 });
  });

  it('computes anew once posts or profiles change, whoever changed them', async () => {
    const before = (await overview(workspaceId)).json<OverviewResponse>();
    expect((await overview(workspaceId)).json()).toEqual(before);
    const [author] = await server.db.select().from(profiles).limit(1);
    const [postId] = await insertPosts(server.db, [
      {
        authorId: author!.id,
        platform: author!.platform,
        externalId: 'cache-new-post',
        text: 'a fresh outage report',
        language: 'en',
        postedAt: new Date('2026-11-01T12:00:00Z'),
        likes: 5,
        comments: 0,
        shares: 0,
        sentiment: 0,
        sentimentLabel: 'neutral',
      },
    ]);
    const afterInsert = (await overview(workspaceId)).json<OverviewResponse>();
    expect(totalMentions(afterInsert)).toBe(totalMentions(before) + 1);

    await server.db.execute(sql`SELECT corpus_update_posts(${`id = ${postId}`}, 'likes = 105')`);
    const afterUpdate = (await overview(workspaceId)).json<OverviewResponse>();
    expect(afterUpdate.totals.engagement.value).toBe(afterInsert.totals.engagement.value + 100);

    await server.db.execute(
      sql`SELECT corpus_update_profiles(${`id = ${author!.id}`}, ${`followers = ${author!.followers + 1_000_000}`})`,
    );
    const afterFollowers = (await overview(workspaceId)).json<OverviewResponse>();
    expect(afterFollowers.totals.reach.value).toBe(afterUpdate.totals.reach.value + 1_000_000);

    await server.db.execute(sql`SELECT corpus_delete_posts(${`id = ${postId}`})`);
    const afterDelete = (await overview(workspaceId)).json<OverviewResponse>();
    expect(totalMentions(afterDelete)).toBe(totalMentions(before));
  });

  it('raises the corpus version in the writing transaction, once per change, and not for a rolled-back write', async () => {
    const version = async () =>
      Number(
        (await server.db.execute<{ v: string }>(sql`SELECT version::text AS v FROM corpus_state`)).rows[0]!.v,
      );
    const start = await version();
    await server.db.execute(
      sql`SELECT corpus_update_posts('id IN (SELECT id FROM posts LIMIT 3)', 'views = 1')`,
    );
    expect(await version()).toBe(start + 1);
    await server.db
      .transaction(async (tx) => {
        await tx.execute(
          sql`SELECT corpus_update_posts('id IN (SELECT id FROM posts LIMIT 1)', 'views = 2')`,
        );
        throw new Error('roll back');
      })
      .catch(() => {});
    expect(await version()).toBe(start + 1);
  });

  it('never serves one workspace the answer of another', async () => {
    const other = (await createWorkspace(server, [[viewer, 'viewer']], { timeZone: 'America/New_York' })).id;
    // The same name in both workspaces, different texts.
    const mine = await insertSavedQuery(server, workspaceId, 'outage');
    const theirs = await insertSavedQuery(server, other, 'nova');
    await server.db.update(savedQueries).set({ name: 'Brand' }).where(eq(savedQueries.id, mine));
    await server.db.update(savedQueries).set({ name: 'Brand' }).where(eq(savedQueries.id, theirs));
    const a = await overview(workspaceId, { query: undefined, saved_query_id: mine });
    const misses = server.app.analytics.cache.stats.misses;
    const b = await overview(other, { query: undefined, saved_query_id: theirs });
    expect(server.app.analytics.cache.stats.misses).toBe(misses + 1);
    expect(b.json<OverviewResponse>().query).toBe('nova');
    expect(a.json<OverviewResponse>().query).toBe('outage');
    // The same ad-hoc request in two workspaces: two computations, not one answer shared.
    await overview(workspaceId, { query: 'latte' });
    const before = server.app.analytics.cache.stats.misses;
    await overview(other, { query: 'latte' });
    expect(server.app.analytics.cache.stats.misses).toBe(before + 1);
  });

  it("keys by the workspace's time zone and the saved query's current text", async () => {
    const zoned = (await createWorkspace(server, [[viewer, 'viewer']], { timeZone: 'America/New_York' })).id;
    const saved = await insertSavedQuery(server, zoned, 'outage');
    const first = (
      await overview(zoned, { query: undefined, saved_query_id: saved })
    ).json<OverviewResponse>();
    await server.db.update(workspaces).set({ timeZone: 'Asia/Kolkata' }).where(eq(workspaces.id, zoned));
    const rezoned = (
      await overview(zoned, { query: undefined, saved_query_id: saved })
    ).json<OverviewResponse>();
    expect(first.time_zone).toBe('America/New_York');
    expect(rezoned.time_zone).toBe('Asia/Kolkata');
    await server.db.update(savedQueries).set({ query: 'nova' }).where(eq(savedQueries.id, saved));
    const edited = (
      await overview(zoned, { query: undefined, saved_query_id: saved })
    ).json<OverviewResponse>();
    expect(edited.query).toBe('nova');
  });

  it('moves a relative range ("the last 30 days", no dates given) with time instead of serving the old one', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-08T12:00:00Z'));
    const body = { filters: undefined };
    const first = (await overview(workspaceId, body)).json<OverviewResponse>();
    expect(first.range.to).toBe('2026-11-08T12:00:00.000Z');
    // Asked again at the same instant: the same absolute range, the cached answer.
    const hits = server.app.analytics.cache.stats.hits;
    expect((await overview(workspaceId, body)).json()).toEqual(first);
    expect(server.app.analytics.cache.stats.hits).toBe(hits + 1);
    vi.setSystemTime(new Date('2026-11-08T12:01:00Z'));
    const later = (await overview(workspaceId, body)).json<OverviewResponse>();
    expect(later.range).toEqual({ from: '2026-10-09T12:01:00.000Z', to: '2026-11-08T12:01:00.000Z' });
  });
});
