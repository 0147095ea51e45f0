// Discover, the query editor's count and the saved queries' volume answer from the analytics store when the store holds
// exactly the corpus version PostgreSQL's snapshot sees, and each answer is the same as PostgreSQL's: every page of
// discover with its cursor and the first page's profiles, counts with and without the cap reached, and the sparklines
// of several saved queries in zones across DST changes. A store that is behind is not read, and the answer comes from
// PostgreSQL. Through the routes too: the running service is what they read.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DiscoverSort } from '@contract/discover';
import type { ApplyPoint } from '@server/analytics/applier';
import type { AnalyticsService } from '@server/analytics/service';
import { insertPosts } from '@server/social/corpus/changes';
import type { Cursor } from '@server/social/discover/cursor';
import { discoverPosts, type SearchResult } from '@server/social/discover/search';
import type { InsightScope } from '@server/social/insights/request';
import { savedQueryVolume } from '@server/social/insights/saved-query-volume';
import { countQueryMatches } from '@server/social/query/count';
import { parseQuery } from '@server/query/index';
import { ReadRouter } from '@server/social/reads';
import { insertSavedQuery } from '@test/support/insights.fixtures';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, createWorkspace, type Team } from '@test/support/workspaces.fixtures';
import {
  contextOf,
  RANGES,
  storeBehind,
  TYPED_QUERIES,
  type Case,
  runningService,
  generatedCorpus,
} from './dashboards.fixtures';

let server: TestServer;
let running: Awaited<ReturnType<typeof runningService>>;
let service: AnalyticsService;
let team: Team;
/** The change feed's next round is held at this point (the store then stays behind), until released. */
let holdAt: ApplyPoint | null = null;
let held: { release: () => void } | null = null;
let reachedHold: (() => void) | null = null;

/**
 * The millisecond of the posts that tie in it: posted_at differs in the microseconds only, and the later-inserted
 * posts (higher ids) are the earlier ones, so the order by (posted_at, id) is not the order by (millisecond, id).
 */
const TIED_MS = Date.parse('2026-10-20T12:00:00.123Z');
/** Fourteen tied posts and their neighbours, 20 in all, matching `microtie`. */
const TIED_POSTS = 20;

/** A posted_at to the microsecond as PostgreSQL reads it. */
const atMicros = (ms: number, micros: number) =>
  sql`${new Date(ms).toISOString().replace('Z', `${String(micros).padStart(3, '0')}Z`)}::timestamptz`;

beforeAll(async () => {
  server = await createTestServer();
  await generatedCorpus(server, 31);
  const { rows } = await server.pool.query<{ id: string }>('SELECT id FROM profiles ORDER BY id LIMIT 4');
  await insertPosts(
    server.db,
    Array.from({ length: TIED_POSTS }, (_, i) => {
      // 0–9: one millisecond, microseconds falling as ids rise; 10–13: the same millisecond and microsecond (the id
      // decides); 14–19: the milliseconds around it.
      const postedAt =
        i < 10
          ? atMicros(TIED_MS, 900 - i * 90)
          : i < 14
            ? atMicros(TIED_MS, 500)
            : atMicros(TIED_MS + (i % 2 ? 1 : -1) * (i - 13), 0);
      return {
        platform: 'x' as const,
        externalId: `microtie${i}`,
        authorId: Number(rows[i % rows.length]!.id),
        text: `microtie coffee ${i}`,
        language: 'en',
        postedAt: postedAt as unknown as Date,
        kind: 'original' as const,
        media: 'text' as const,
        // Engagement ties too (the id decides).
        likes: i % 3,
        comments: 0,
        shares: 0,
        views: null,
        hashtags: [],
        mentions: [],
        domains: [],
        sentiment: 0,
        sentimentLabel: 'neutral' as const,
      };
    }),
  );
  team = await createTeam(server);
  running = await runningService(server, 'discover-source', {
    // A store behind by a batch written within a minute may answer (where a read allows it).
    maxLagMs: 60_000,
    at: async (point) => {
      if (point !== holdAt) return;
      holdAt = null;
      await new Promise<void>((release) => {
        held = { release };
        reachedHold?.();
      });
    },
  });
  service = running.service;
}, 240_000);
afterAll(async () => {
  held?.release();
  await running?.close();
  await server?.close();
});

/**
 * The service as if its store were a version behind PostgreSQL: it must not be read (this service's lag bound lets a
 * store behind answer only by a batch still in the outbox, and there is none).
 */
const behind = () => storeBehind(service);

/** Runs `read` with a spy on the store's statements: what it answered, and whether the store was asked. */
async function spied<T>(read: () => Promise<T>): Promise<{ answer: T; asked: boolean }> {
  const query = vi.spyOn(service.store!, 'query');
  try {
    const answer = await read();
    return { answer, asked: query.mock.calls.length > 0 };
  } finally {
    query.mockRestore();
  }
}

describe('discover from the analytics store', () => {
  interface Search extends Case {
    sort: DiscoverSort;
    limit: number;
  }
  const searches: Search[] = [
    ...TYPED_QUERIES.flatMap((query) =>
      (['recency', 'engagement'] as const).map((sort) => ({
        name: `${query}, ${sort}`,
        zone: 'Asia/Kolkata',
        range: RANGES['120 days of weeks']!,
        query,
        sort,
        limit: 10,
      })),
    ),
    // Pages of two and three, so that cursors fall inside the tied millisecond.
    ...([2, 3] as const).flatMap((limit) =>
      (['recency', 'engagement'] as const).map((sort) => ({
        name: `microtie, ${sort}, pages of ${limit}`,
        zone: 'UTC',
        range: RANGES['30 days of days']!,
        query: 'microtie',
        sort,
        limit,
      })),
    ),
    {
      name: 'filters, odd bounds',
      zone: 'America/New_York',
      range: RANGES['a week at odd bounds']!,
      query: 'nova OR coffee OR clou*',
      platforms: ['x', 'reddit', 'instagram'],
      languages: ['en', 'es'],
      sort: 'recency',
      limit: 7,
    },
    {
      name: 'no match',
      zone: 'UTC',
      range: RANGES['30 days of days']!,
      query: 'microtie NOT microtie',
      sort: 'recency',
      limit: 10,
    },
  ];

  /** The cursor of the page after `result` (discover's cursor carries more; the search reads its key and id). */
  const cursorAfter = (context: InsightScope, sort: DiscoverSort, result: SearchResult): Cursor | null =>
    result.next && {
      v: 1,
      s: sort,
      ...result.next,
      from: context.scope.from.toISOString(),
      to: context.scope.to.toISOString(),
      r: context.namedRange,
      h: 'x'.repeat(22),
    };

  it.each(searches)(
    'gives every page as PostgreSQL does, read from the store: $name',
    async (c) => {
      const context = await contextOf(server, c);
      let cursor: Cursor | null = null;
      const seen = new Set<number>();
      let pages = 0;
      do {
        const options = { sort: c.sort, cursor, limit: c.limit };
        const { answer, asked } = await spied(() => discoverPosts(server.db, context, options, service));
        expect(asked, `page ${pages + 1} read from the store`).toBe(true);
        const expected = await discoverPosts(server.db, context, options, undefined);
        expect(answer, `page ${pages + 1}`).toEqual(expected);
        for (const post of answer.posts) seen.add(post.id);
        cursor = cursorAfter(context, c.sort, answer);
        pages += 1;
      } while (cursor && pages < 200);
      if (c.query === 'microtie') expect(seen.size).toBe(TIED_POSTS);
      if (c.name !== 'no match') expect(seen.size).toBeGreaterThan(c.limit);
    },
    120_000,
  );

  it('is cancelled when the store passes discover’s time limit (503 search_timeout), as PostgreSQL’s would be', async () => {
    const context = await contextOf(server, searches[0]!);
    const query = vi
      .spyOn(service.store!, 'query')
      .mockRejectedValue(
        new Error('The analytics store refused a query: Code: 159. Timeout exceeded (TIMEOUT_EXCEEDED)'),
      );
    try {
      await expect(
        discoverPosts(server.db, context, { sort: 'recency', cursor: null, limit: 5 }, service),
      ).rejects.toMatchObject({ statusCode: 503, code: 'search_timeout' });
      expect(query.mock.calls[0]![0]).toContain('max_execution_time = 5');
    } finally {
      query.mockRestore();
    }
  });

  it('is not read when it is behind PostgreSQL: the answer comes from PostgreSQL', async () => {
    const context = await contextOf(server, searches[0]!);
    const options = { sort: 'recency' as const, cursor: null, limit: 25 };
    const { answer, asked } = await spied(() => discoverPosts(server.db, context, options, behind()));
    expect(asked).toBe(false);
    expect(answer).toEqual(await discoverPosts(server.db, context, options, undefined));
  });
});

describe('the query editor’s count from the analytics store', () => {
  const scopes = TYPED_QUERIES.flatMap((query) => {
    const parsed = parseQuery(query);
    if (!parsed.ok) throw new Error(query);
    return [
      { name: `${query}, every post`, scope: { query: parsed.ast, platforms: [], languages: [] } },
      {
        name: `${query}, discover's scope`,
        scope: {
          query: parsed.ast,
          platforms: ['x', 'reddit', 'youtube'],
          languages: ['en', 'ko'],
          from: new Date(RANGES['120 days of weeks']![0]),
          to: new Date(RANGES['120 days of weeks']![1]),
        },
      },
    ];
  });

  it.each(scopes)('counts as PostgreSQL does, capped or not: $name', async ({ scope }) => {
    const exact = await countQueryMatches(server.db, scope, undefined, { cap: 100_000 });
    expect(exact.capped).toBe(false);
    const n = exact.matches!;
    // Not reached, reached exactly (not capped), and passed (capped at the cap).
    for (const cap of [100_000, n, Math.max(0, n - 1), 1]) {
      const { answer, asked } = await spied(() => countQueryMatches(server.db, scope, service, { cap }));
      expect(asked).toBe(true);
      expect(answer, `cap ${cap}`).toEqual(await countQueryMatches(server.db, scope, undefined, { cap }));
    }
    expect(n, 'some posts match').toBeGreaterThan(0);
  });

  it('is unknown (null) when the store cancels the count past its time limit, as PostgreSQL’s would be', async () => {
    const scope = scopes[0]!.scope;
    const query = vi
      .spyOn(service.store!, 'query')
      .mockRejectedValueOnce(
        new Error('The analytics store refused a query: Code: 159. Timeout exceeded (TIMEOUT_EXCEEDED)'),
      );
    try {
      expect(await countQueryMatches(server.db, scope, service, { timeoutMs: 1500 })).toEqual({
        matches: null,
        capped: false,
      });
      expect(query.mock.calls[0]![0]).toContain('max_execution_time = 1.5');
    } finally {
      query.mockRestore();
    }
  });

  it('is not read when it is behind PostgreSQL: the count comes from PostgreSQL', async () => {
    const scope = scopes[1]!.scope;
    const { answer, asked } = await spied(() => countQueryMatches(server.db, scope, behind()));
    expect(asked).toBe(false);
    expect(answer).toEqual(await countQueryMatches(server.db, scope, undefined));
  });
});

describe('the saved queries’ volume from the analytics store', () => {
  const SAVED: Array<{ query: string; filters?: { platforms?: string[]; languages?: string[] } }> = [
    ...TYPED_QUERIES.map((query) => ({ query })),
    { query: 'nova OR launch', filters: { platforms: ['x', 'tiktok'], languages: ['en'] } },
    { query: 'platform:x' },
    { query: '' },
    // Stored before the language changed: it no longer parses, and is listed without counts.
    { query: 'nova AND' },
    { query: 'chatham' },
  ];
  /** Now, in zones whose 8 days hold a change of the clocks (and two that hold none). */
  const NOWS: Array<[zone: string, now: string]> = [
    ['America/New_York', '2026-11-05T15:00:00Z'],
    ['America/New_York', '2026-03-10T04:30:00Z'],
    ['Pacific/Chatham', '2026-09-30T09:10:00Z'],
    ['Asia/Kolkata', '2026-10-21T20:00:00Z'],
    ['UTC', '2026-11-02T00:00:00Z'],
  ];
  let workspaceId: string;

  beforeAll(async () => {
    workspaceId = (await createWorkspace(server, [])).id;
    for (const saved of SAVED) await insertSavedQuery(server, workspaceId, saved.query, saved.filters);
  });

  it.each(NOWS)('counts each saved query per day as PostgreSQL does, in %s at %s', async (zone, now) => {
    const workspace = { id: workspaceId, timeZone: zone };
    const options = { now: new Date(now) };
    const { answer, asked } = await spied(() =>
      savedQueryVolume(server.db, workspace, { ...options, analytics: service }),
    );
    expect(asked).toBe(true);
    const expected = await savedQueryVolume(server.db, workspace, options);
    expect(answer).toEqual(expected);
    // Something is counted, and the query that no longer parses is listed without counts.
    expect(expected.saved_queries.some((q) => (q.total ?? 0) > 0)).toBe(true);
    expect(expected.saved_queries.filter((q) => q.counts === null)).toHaveLength(1);
  });

  it('is not read when it is behind PostgreSQL: the counts come from PostgreSQL', async () => {
    const workspace = { id: workspaceId, timeZone: 'America/New_York' };
    const options = { now: new Date(NOWS[0]![1]) };
    const { answer, asked } = await spied(() =>
      savedQueryVolume(server.db, workspace, { ...options, analytics: behind() }),
    );
    expect(asked).toBe(false);
    expect(answer).toEqual(await savedQueryVolume(server.db, workspace, options));
  });
});

describe('the routes', () => {
  /** The route's answer with the running service as the app's, and without a store. */
  async function both(url: string, payload: Record<string, unknown>) {
    const call = async () => {
      const res = await as(server, team.viewer, { method: 'POST', url, payload });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<Record<string, unknown>>();
    };
    server.app.deps.analytics = service;
    let read;
    try {
      read = await spied(call);
    } finally {
      server.app.deps.analytics = undefined;
    }
    return { ...read, expected: await call() };
  }

  it('discover reads the store', async () => {
    const payload = {
      workspace_id: team.workspaceId,
      query: 'nova',
      filters: { from: RANGES['120 days of weeks']![0], to: RANGES['120 days of weeks']![1] },
      limit: 5,
    };
    const { answer, asked, expected } = await both('/social/discover', payload);
    expect(asked).toBe(true);
    // Cursors are sealed afresh each time: compared by what they lead to.
    expect({ ...answer, next_cursor: null }).toEqual({ ...expected, next_cursor: null });
    const next = await both('/social/discover', { ...payload, cursor: answer.next_cursor });
    expect(next.asked).toBe(true);
    expect({ ...next.answer, next_cursor: null }).toEqual({ ...next.expected, next_cursor: null });
  });

  it('the query editor’s count reads the store', async () => {
    const { answer, asked, expected } = await both('/social/query/validate', {
      workspace_id: team.workspaceId,
      query: 'nova NOT #unboxing',
    });
    expect(asked).toBe(true);
    expect(answer).toEqual(expected);
  });

  it('the saved queries’ volume reads the store', async () => {
    await insertSavedQuery(server, team.workspaceId, 'nova');
    // Now is inside the corpus, and the same for both answers.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2026-11-05T15:00:00Z') });
    try {
      const { answer, asked, expected } = await both('/social/saved-queries/volume', {
        workspace_id: team.workspaceId,
      });
      expect(asked).toBe(true);
      expect(answer).toEqual(expected);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('a store behind PostgreSQL by a batch within the bound', () => {
  const router = () =>
    new ReadRouter({ primary: server.db, replicas: [], maxLagMs: 0, primaryVersion: async () => 0 });

  it('answers the count and the volume as of its version (data_as_of), but not discover', async () => {
    const c: Case = { name: 'microtie', zone: 'UTC', range: RANGES['30 days of days']!, query: 'microtie' };
    const context = await contextOf(server, c);
    const parsed = parseQuery('microtie');
    if (!parsed.ok) throw new Error('microtie');
    const scope = { query: parsed.ast, platforms: [], languages: [] };
    const workspace = { id: (await createWorkspace(server, [])).id, timeZone: 'UTC' };
    await insertSavedQuery(server, workspace.id, 'microtie');
    const now = new Date('2026-10-22T00:00:00Z');
    const volume = (db = server.db, analytics?: AnalyticsService) =>
      savedQueryVolume(db, workspace, { now, analytics });
    const page = { sort: 'recency' as const, cursor: null, limit: 5 };
    const [countBefore, volumeBefore] = [
      await countQueryMatches(server.db, scope, undefined),
      await volume(),
    ];

    // One more post of the query, its round held after it has read PostgreSQL: the store stays a batch behind.
    holdAt = 'read';
    const reached = new Promise<void>((resolve) => (reachedHold = resolve));
    await insertPosts(server.db, [
      {
        platform: 'x',
        externalId: 'microtie-late',
        authorId: Number(
          (await server.pool.query<{ id: string }>('SELECT id FROM profiles LIMIT 1')).rows[0]!.id,
        ),
        text: 'microtie coffee late',
        language: 'en',
        postedAt: new Date(TIED_MS + 60_000),
        likes: 0,
        comments: 0,
        shares: 0,
        sentiment: 0,
        sentimentLabel: 'neutral',
      },
    ]);
    await reached;
    try {
      const count = await spied(() => router().read((db) => countQueryMatches(db, scope, service)));
      expect(count.asked).toBe(true);
      expect(count.answer.value).toEqual(countBefore);
      expect(count.answer.asOf).not.toBeNull();
      expect((await countQueryMatches(server.db, scope, undefined)).matches).toBe(countBefore.matches! + 1);

      const sparklines = await spied(() => router().read((db) => volume(db, service)));
      expect(sparklines.asked).toBe(true);
      expect(sparklines.answer.value).toEqual(volumeBefore);
      expect(sparklines.answer.asOf).not.toBeNull();
      expect((await volume()).saved_queries[0]!.total).toBe(volumeBefore.saved_queries[0]!.total! + 1);

      const search = await spied(() => router().read((db) => discoverPosts(db, context, page, service)));
      expect(search.asked).toBe(false);
      expect(search.answer.asOf).toBeNull();
      expect(search.answer.value).toEqual(await discoverPosts(server.db, context, page, undefined));
      expect(search.answer.value.posts[0]!.external_id).toBe('microtie-late');
    } finally {
      const caughtUp = service.caughtUpOnce();
      held!.release();
      held = null;
      await caughtUp;
    }
  });
});
