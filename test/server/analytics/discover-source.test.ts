// Discover and the query editor's count from the analytics store: every page of discover with its cursor, the posts
// of one millisecond that differ in their microseconds (the store keeps milliseconds, PostgreSQL orders the page's
// candidates) against their known order, each post of a typed query once and in order, as many as the count; counts
// with and without the cap reached; the store's time limits (503 search_timeout, an unknown count); the routes read the
// store; and a store behind PostgreSQL by a batch answers as of its version (data_as_of).
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
import { countQueryMatches } from '@server/social/editor/count';
import { parseQuery } from '@server/query/index';
import { ReadRouter } from '@server/social/reads';
import { insertSavedQuery } from '@test/support/insights.fixtures';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, createWorkspace, type Team } from '@test/support/workspaces.fixtures';
import {
  contextOf,
  RANGES,
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

/** Each `microtie` post: its id, posted_at in microseconds and engagement. */
let tied: Array<{ id: number; micros: number; engagement: number }>;

/** A posted_at to the microsecond as PostgreSQL reads it. */
const atMicros = (ms: number, micros: number) =>
  sql`${new Date(ms).toISOString().replace('Z', `${String(micros).padStart(3, '0')}Z`)}::timestamptz`;

beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  await generatedCorpus(server, 31);
  const { rows } = await server.pool.query<{ id: string }>('SELECT id FROM profiles ORDER BY id LIMIT 4');
  const specs = Array.from({ length: TIED_POSTS }, (_, i) => {
    // 0–9: one millisecond, microseconds falling as ids rise; 10–13: the same millisecond and microsecond (the id
    // decides); 14–19: the milliseconds around it.
    const [ms, micros] =
      i < 10 ? [TIED_MS, 900 - i * 90] : i < 14 ? [TIED_MS, 500] : [TIED_MS + (i % 2 ? 1 : -1) * (i - 13), 0];
    return { ms, micros, likes: i % 3 };
  });
  const ids = await insertPosts(
    server.db,
    specs.map(({ ms, micros, likes }, i) => ({
      platform: 'x' as const,
      externalId: `microtie${i}`,
      authorId: Number(rows[i % rows.length]!.id),
      text: `microtie coffee ${i}`,
      language: 'en',
      postedAt: atMicros(ms, micros) as unknown as Date,
      kind: 'original' as const,
      media: 'text' as const,
      // Engagement ties too (the id decides).
      likes,
      comments: 0,
      shares: 0,
      views: null,
      hashtags: [],
      mentions: [],
      domains: [],
      sentiment: 0,
      sentimentLabel: 'neutral' as const,
    })),
  );
  tied = specs.map(({ ms, micros, likes }, i) => ({
    id: ids[i]!,
    micros: ms * 1000 + micros,
    engagement: likes,
  }));
  team = await createTeam(server);
  running = await runningService(server, 'discover-source', {
    // A reader does not wait for the applier (readWaitMs 0): a store behind answers as it is.
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

const TIMEOUT = new Error(
  'The analytics store refused a query: Code: 159. Timeout exceeded (TIMEOUT_EXCEEDED)',
);

describe('discover from the analytics store', () => {
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

  /** Every page of the search, in order, each read from the store. */
  async function pagesOf(c: Case, sort: DiscoverSort, limit: number) {
    const context = await contextOf(server, c);
    const pages: SearchResult[] = [];
    let cursor: Cursor | null = null;
    do {
      const options = { sort, cursor, limit };
      const { answer, asked } = await spied(() => discoverPosts(server.db, context, options, service));
      expect(asked, `page ${pages.length + 1} read from the store`).toBe(true);
      expect(answer.posts.length, `page ${pages.length + 1}`).toBeLessThanOrEqual(limit);
      if (answer.next) expect(answer.posts).toHaveLength(limit);
      // Only the first page lists the profiles.
      expect(answer.profiles === null, `page ${pages.length + 1}`).toBe(pages.length > 0);
      pages.push(answer);
      cursor = cursorAfter(context, sort, answer);
    } while (cursor && pages.length < 200);
    return pages;
  }

  const microtie: Case = {
    name: 'microtie',
    zone: 'UTC',
    range: RANGES['30 days of days']!,
    query: 'microtie',
  };
  const ORDER: Record<DiscoverSort, (a: (typeof tied)[number], b: (typeof tied)[number]) => number> = {
    recency: (a, b) => b.micros - a.micros || b.id - a.id,
    engagement: (a, b) => b.engagement - a.engagement || b.id - a.id,
  };

  for (const sort of ['recency', 'engagement'] as const) {
    for (const limit of [2, 3]) {
      it(`gives the posts of one millisecond in PostgreSQL's order by ${sort}, in pages of ${limit}`, async () => {
        const pages = await pagesOf(microtie, sort, limit);
        expect(pages.flatMap((page) => page.posts.map((post) => post.id))).toEqual(
          [...tied].sort(ORDER[sort]).map((post) => post.id),
        );
      });
    }
  }

  it.each(TYPED_QUERIES)(
    'gives each matching post once, in order, as many as the count: %s',
    async (query) => {
      const range = RANGES['120 days of weeks']!;
      const c: Case = { name: query, zone: 'Asia/Kolkata', range, query };
      const parsed = parseQuery(query);
      if (!parsed.ok) throw new Error(query);
      const counted = await countQueryMatches(
        server.db,
        { query: parsed.ast, platforms: [], languages: [], from: new Date(range[0]), to: new Date(range[1]) },
        service,
        { cap: 100_000 },
      );
      for (const sort of ['recency', 'engagement'] as const) {
        const posts = (await pagesOf(c, sort, 10)).flatMap((page) => page.posts);
        expect(new Set(posts.map((post) => post.id)).size, sort).toBe(posts.length);
        expect(posts.length, sort).toBe(counted.matches);
        for (let i = 1; i < posts.length; i += 1) {
          const [a, b] = [posts[i - 1]!, posts[i]!];
          if (sort === 'engagement')
            expect(a.engagement > b.engagement || (a.engagement === b.engagement && a.id > b.id)).toBe(true);
          else expect(Date.parse(a.posted_at)).toBeGreaterThanOrEqual(Date.parse(b.posted_at));
        }
      }
      expect(counted.matches, 'some posts match').toBeGreaterThan(10);
    },
    120_000,
  );

  it('is cancelled when the store passes discover’s time limit (503 search_timeout)', async () => {
    const context = await contextOf(server, microtie);
    const query = vi.spyOn(service.store!, 'query').mockRejectedValue(TIMEOUT);
    try {
      await expect(
        discoverPosts(server.db, context, { sort: 'recency', cursor: null, limit: 5 }, service),
      ).rejects.toMatchObject({ statusCode: 503, code: 'search_timeout' });
      expect(query.mock.calls[0]![0]).toContain('max_execution_time = 5');
    } finally {
      query.mockRestore();
    }
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

  it.each(scopes)('counts up to the cap, capped past it: $name', async ({ scope }) => {
    const exact = await countQueryMatches(server.db, scope, service, { cap: 100_000 });
    expect(exact.capped).toBe(false);
    const n = exact.matches!;
    expect(n, 'some posts match').toBeGreaterThan(0);
    // Reached exactly (not capped), and passed (capped at the cap).
    for (const cap of [n, n - 1, 1]) {
      expect(await countQueryMatches(server.db, scope, service, { cap }), `cap ${cap}`).toEqual(
        cap >= n ? { matches: n, capped: false } : { matches: cap, capped: true },
      );
    }
  });

  it('is unknown (null) when the store cancels the count past its time limit', async () => {
    const scope = scopes[0]!.scope;
    const query = vi.spyOn(service.store!, 'query').mockRejectedValueOnce(TIMEOUT);
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
});

describe('the routes read the store', () => {
  /** The route's answer with the running service as the app's, and whether the store was asked. */
  async function called(url: string, payload: Record<string, unknown>) {
    server.app.deps.analytics = service;
    try {
      return await spied(async () => {
        const res = await as(server, team.viewer, { method: 'POST', url, payload });
        expect(res.statusCode, res.body).toBe(200);
        return res.json<Record<string, unknown>>();
      });
    } finally {
      server.app.deps.analytics = undefined;
    }
  }

  it('discover, and the next page by its cursor', async () => {
    const payload = {
      workspace_id: team.workspaceId,
      query: 'microtie',
      filters: { from: RANGES['30 days of days']![0], to: RANGES['30 days of days']![1] },
      limit: 5,
    };
    const first = await called('/social/discover', payload);
    expect(first.asked).toBe(true);
    const next = await called('/social/discover', { ...payload, cursor: first.answer.next_cursor });
    expect(next.asked).toBe(true);
    const ids = [first, next].flatMap(({ answer }) =>
      (answer.posts as Array<{ id: number }>).map((p) => p.id),
    );
    expect(ids).toEqual(
      [...tied]
        .sort((a, b) => b.micros - a.micros || b.id - a.id)
        .slice(0, 10)
        .map((p) => p.id),
    );
  });

  it('the query editor’s count', async () => {
    const { answer, asked } = await called('/social/query/validate', {
      workspace_id: team.workspaceId,
      query: 'microtie',
    });
    expect(asked).toBe(true);
    expect(answer).toMatchObject({ valid: true, matches: TIED_POSTS, matches_capped: false });
  });
});

describe('a store behind PostgreSQL by a batch', () => {
  const router = () =>
    new ReadRouter({ primary: server.db, replicas: [], maxLagMs: 0, primaryVersion: async () => 0 });

  it('answers discover, the count and the volume as of its version (data_as_of)', async () => {
    const context = await contextOf(server, {
      name: 'microtie',
      zone: 'UTC',
      range: RANGES['30 days of days']!,
      query: 'microtie',
    });
    const parsed = parseQuery('microtie');
    if (!parsed.ok) throw new Error('microtie');
    const scope = { query: parsed.ast, platforms: [], languages: [] };
    const workspace = { id: (await createWorkspace(server, [])).id, timeZone: 'UTC' };
    await insertSavedQuery(server, workspace.id, 'microtie');
    const now = new Date('2026-10-22T00:00:00Z');
    const volume = (db = server.db) => savedQueryVolume(db, workspace, { now, analytics: service });
    const page = { sort: 'recency' as const, cursor: null, limit: 5 };
    const [countBefore, volumeBefore, pageBefore] = [
      await countQueryMatches(server.db, scope, service),
      await volume(),
      await discoverPosts(server.db, context, page, service),
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
      const count = await router().read((db) => countQueryMatches(db, scope, service));
      expect(count.value).toEqual(countBefore);
      expect(count.asOf).not.toBeNull();

      const sparklines = await router().read((db) => volume(db));
      expect(sparklines.value).toEqual(volumeBefore);
      expect(sparklines.asOf).not.toBeNull();

      const search = await router().read((db) => discoverPosts(db, context, page, service));
      expect(search.value).toEqual(pageBefore);
      expect(search.asOf).not.toBeNull();
    } finally {
      const caughtUp = service.caughtUpOnce();
      held!.release();
      held = null;
      await caughtUp;
    }
    // Caught up: the late post counted, and first by recency.
    expect((await countQueryMatches(server.db, scope, service)).matches).toBe(countBefore.matches! + 1);
    expect((await volume()).saved_queries[0]!.total).toBe(volumeBefore.saved_queries[0]!.total! + 1);
    const after = await discoverPosts(server.db, context, page, service);
    expect(after.posts[0]!.external_id).toBe('microtie-late');
  });
});
