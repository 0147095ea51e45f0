// The post lists (the posts dashboard and the filtered-posts drill-down) answer from the analytics store when it holds
// exactly the corpus version PostgreSQL's snapshot sees, page after page the same as PostgreSQL's, field by field:
// the posts, their overperformance, the total and the next cursor's text. Every page of each list is walked with the
// cursors of each source, and with the sources taking turns (a page started on one is continued on the other), for
// each sort, over every post and the typed queries of the bench mix, the filters, zones across DST and every
// refinement with and without exclude. Posts sharing a millisecond with their microseconds against their ids' order
// check the recency order the store cannot see alone. A store behind PostgreSQL is not read.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PostSort } from '@contract/insights';
import type { PostsResponse } from '@contract/insights-responses';
import { float8Text } from '@server/analytics/insights/posts';
import type { AnalyticsService } from '@server/analytics/service';
import { insertPosts } from '@server/social/corpus/changes';
import { postList } from '@server/social/insights/posts';
import type { InsightScope } from '@server/social/insights/request';
import { fromStore } from '@server/social/insights/store-source';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import {
  contextOf,
  loadCorpus,
  picksOf,
  RANGES,
  refinements,
  typedCases,
  type Case,
  type Picks,
  storeBehind,
  runningService,
} from './dashboards.fixtures';

// fromStore as it is, watched: whether a page's answer came from the store (its result not null).
vi.mock('@server/social/insights/store-source', async (importOriginal) => {
  const original = await importOriginal<typeof import('@server/social/insights/store-source')>();
  return { fromStore: vi.fn(original.fromStore) };
});

let server: TestServer;
let running: Awaited<ReturnType<typeof runningService>>;
let service: AnalyticsService;
let picks: Picks;

/**
 * Posts of the word "microsecond" in three milliseconds, which the store keeps as whole milliseconds: nine in one
 * whose microseconds fall as their ids rise (PostgreSQL lists the lowest id first, the store alone would list it
 * last), four at one instant (by id), and five whose microseconds repeat and interleave. Offsets in ms from the first
 * millisecond and microseconds within it, in the order of their ids.
 */
const MICROSECONDS: Array<[number, number]> = [
  ...Array.from({ length: 9 }, (_, i): [number, number] => [0, (8 - i) * 100]),
  ...Array.from({ length: 4 }, (): [number, number] => [-1, 0]),
  [-2, 999],
  [-2, 500],
  [-2, 999],
  [-2, 1],
  [-2, 500],
];

async function insertMicroseconds() {
  const { rows } = await server.pool.query<{ id: string }>('SELECT id FROM profiles ORDER BY id LIMIT 3');
  const at = Date.UTC(2026, 9, 20, 12, 0, 0, 500);
  const ids = await insertPosts(
    server.db,
    MICROSECONDS.map(([ms], i) => ({
      platform: 'x' as const,
      externalId: `microsecond${i}`,
      authorId: Number(rows[i % rows.length]!.id),
      text: `microsecond tick ${i}`,
      language: 'en',
      postedAt: new Date(at + ms),
      kind: 'original' as const,
      media: 'text' as const,
      likes: i % 3,
      comments: i % 2,
      shares: 0,
      views: null,
      hashtags: [],
      mentions: [],
      domains: [],
      sentiment: 0,
      sentimentLabel: 'neutral' as const,
    })),
  );
  // The microseconds through the change path (a Date holds milliseconds only).
  const shift = ids
    .map((id, i) => `WHEN ${id} THEN interval '${MICROSECONDS[i]![1]} microseconds'`)
    .join(' ');
  await server.pool.query('SELECT corpus_update_posts($1, $2)', [
    `id = ANY ('{${ids.join(',')}}'::bigint[])`,
    `posted_at = posted_at + CASE id ${shift} END`,
  ]);
}

beforeAll(async () => {
  server = await createTestServer();
  await loadCorpus(server, 2_000);
  await insertMicroseconds();
  picks = await picksOf(server);
  running = await runningService(server, 'posts-source-');
  service = running.service;
}, 300_000);
afterAll(async () => {
  await running?.close();
  await server?.close();
});

type Source = 'store' | 'postgres';
const SORTS: PostSort[] = ['engagement', 'recency', 'overperformance'];
const LIMIT = 50;

/** One page from one source; a page asked of the store must be the store's (fromStore gave it). */
async function pageOf(
  context: InsightScope,
  sort: PostSort,
  limit: number,
  cursor: string | undefined,
  source: Source,
): Promise<PostsResponse> {
  // A cursor sets the context's range (decodeCursor), as each request resolves its own context.
  const own = { ...context };
  if (source === 'postgres') return postList(server.db, own, { sort, limit, cursor });
  const query = vi.spyOn(service.store!, 'query');
  const watched = vi.mocked(fromStore);
  const before = watched.mock.results.length;
  try {
    const answer = await postList(server.db, own, { sort, limit, cursor }, service);
    expect(query).toHaveBeenCalled();
    expect(watched.mock.results.length).toBe(before + 1);
    expect(await watched.mock.results.at(-1)!.value, 'the page came from the store').not.toBeNull();
    return answer;
  } finally {
    query.mockRestore();
  }
}

/** Every page of the list, each asked of the source `sources` names for its number, with the last page's cursor. */
async function walk(context: InsightScope, sort: PostSort, limit: number, sources: (page: number) => Source) {
  const pages: PostsResponse[] = [];
  let cursor: string | undefined;
  do {
    const page = await pageOf(context, sort, limit, cursor, sources(pages.length));
    pages.push(page);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return pages;
}

/**
 * The walks from the store, from PostgreSQL and, when `turns`, with the sources taking turns from each end, equal
 * page by page; the pages list every matching post once.
 */
async function compare(c: Case, limit = LIMIT, turns = false) {
  const context = await contextOf(server, c);
  let posts = 0;
  for (const sort of SORTS) {
    const postgres = await walk(context, sort, limit, () => 'postgres');
    const store = await walk(context, sort, limit, () => 'store');
    expect(store, `${c.name}, ${sort}`).toEqual(postgres);
    if (turns) {
      for (const first of ['store', 'postgres'] as const) {
        const other = first === 'store' ? 'postgres' : 'store';
        const mixed = await walk(context, sort, limit, (n) => (n % 2 ? other : first));
        expect(mixed, `${c.name}, ${sort}, ${first} first, then by turns`).toEqual(postgres);
      }
    }
    const ids = postgres.flatMap((page) => page.posts.map((p) => p.id));
    expect(new Set(ids).size, `${c.name}, ${sort}: every post once`).toBe(postgres[0]!.total);
    posts = ids.length;
  }
  return posts;
}

const everyPost: Case[] = [
  { name: 'every post, 120 days', zone: 'America/New_York', range: RANGES['120 days of weeks']! },
  {
    name: 'every post, hours over the clocks going forward',
    zone: 'America/New_York',
    range: RANGES['hours over the clocks going forward']!,
  },
  {
    name: 'every post, a day over the clocks going back',
    zone: 'UTC',
    range: RANGES['a day of hours over the clocks going back']!,
  },
  {
    name: 'every post, hours over Chatham going forward',
    zone: 'Pacific/Chatham',
    range: RANGES['hours over Chatham going forward']!,
  },
  { name: 'every post, a week at odd bounds', zone: 'Asia/Kolkata', range: RANGES['a week at odd bounds']! },
];
const filtered: Case[] = [
  {
    name: 'platforms x and tiktok',
    zone: 'America/New_York',
    range: RANGES['30 days of days']!,
    platforms: ['x', 'tiktok'],
  },
  { name: 'language en', zone: 'Asia/Kolkata', range: RANGES['120 days of weeks']!, languages: ['en'] },
  {
    name: 'platform:x OR #launch',
    zone: 'Pacific/Chatham',
    range: RANGES['120 days of weeks']!,
    query: 'platform:x OR #launch',
  },
  ...typedCases(),
];
const refined = (zone: string, range: [string, string]): Case[] =>
  refinements(zone, picks).flatMap((refine) =>
    [false, true].map((exclude) => ({
      name: `${zone}, ${refine.field} ${exclude ? 'excluded' : 'kept'}`,
      zone,
      range,
      refine: [{ ...refine, exclude }],
    })),
  );

describe('the post lists from the analytics store', () => {
  it('print an overperformance key as PostgreSQL prints a float8', async () => {
    // Edges of the fixed and exponent notations, and numbers of every magnitude (a fixed sequence).
    const values = [0, 1, 0.5, 1 / 3, 2 / 3, 0.1 + 0.2, 100, 1e-4, 1.5e-4, 9.99e-5, 1e-5, 1.2345e-7];
    values.push(
      1e14,
      99999999999999.9,
      123456789012345.6,
      1e15,
      1234567890123456,
      1e16,
      1e21,
      1e22,
      1e23,
      1e100,
    );
    values.push(22447067499160768, 2 ** 60, 2 ** 52 + 0.5, 2 ** 51 + 0.25, 2 ** 53 + 4, 2 ** 52 + 1.5);
    values.push(5e-324, 2.2250738585072014e-308, Number.MAX_VALUE, 2 ** 53, 2 ** 53 + 2);
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 2_000; i++) values.push(next() * 10 ** Math.floor(next() * 44 - 22));
    for (let i = 0; i < 200; i++) values.push(Math.floor(next() * 1000) / Math.floor(1 + next() * 1000));
    const { rows } = await server.pool.query<{ t: string }>(
      'SELECT v::text AS t FROM unnest($1::float8[]) WITH ORDINALITY u (v, n) ORDER BY n',
      [values.map(String)],
    );
    expect(values.map(float8Text)).toEqual(rows.map((row) => row.t));
  });

  it('keep PostgreSQL’s order among posts of one millisecond, pages cut inside it, the sources taking turns', async () => {
    const posts = await compare(
      { name: 'microsecond', zone: 'UTC', range: RANGES['30 days of days']!, query: 'microsecond' },
      4,
      true,
    );
    expect(posts).toBe(MICROSECONDS.length);
  });

  it.each(everyPost)('equal PostgreSQL’s, page by page, the sources taking turns: $name', async (c) => {
    expect(await compare(c, LIMIT, true)).toBeGreaterThan(0);
  });

  it.each(filtered)('equal PostgreSQL’s, page by page: $name', async (c) => {
    await compare(c);
  });

  it('equal PostgreSQL’s with every refinement, with and without exclude', async () => {
    for (const c of [
      ...refined('America/New_York', RANGES['30 days of days']!),
      ...refined('Pacific/Chatham', RANGES['hours over Chatham going forward']!),
    ])
      await compare(c, 40).catch((error: Error) => {
        error.message = `${c.name}: ${error.message}`;
        throw error;
      });
  }, 600_000);

  it('are not read from a store behind PostgreSQL: the answer comes from PostgreSQL', async () => {
    const context = await contextOf(server, everyPost[0]!);
    const behind = storeBehind(service);
    for (const sort of SORTS) {
      const query = vi.spyOn(service.store!, 'query');
      const answer = await postList(server.db, { ...context }, { sort, limit: LIMIT }, behind);
      expect(query).not.toHaveBeenCalled();
      query.mockRestore();
      expect(answer).toEqual(await postList(server.db, { ...context }, { sort, limit: LIMIT }));
    }
  });
});
