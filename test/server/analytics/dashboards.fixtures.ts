// The corpus and the scopes the store's dashboards are compared on with PostgreSQL's: a generated corpus (a few
// thousand posts over 180 days), the insights tests' corpus (posts around both DST changes of America/New_York in
// 2026), posts around Pacific/Chatham's change of 27 September 2026 (02:45 → 03:45, at a quarter past the UTC hour),
// the store rebuilt from PostgreSQL, and scopes in four zones with every refinement, with and without exclude.
import { AnalyticsService, type AnalyticsServiceOptions, type StoreReading } from '@server/analytics/service';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Refine } from '@contract/insights';
import type { PLATFORM_VALUES } from '@contract/social-scope';
import { instantOfWallClock } from '@contract/zoned-time';
import { storeMatch } from '@server/analytics/insights/match';
import { rebuildStore } from '@server/analytics/rebuild';
import { type AnalyticsStore, EmbeddedStore } from '@server/analytics/store';
import { insertPosts } from '@server/social/corpus/changes';
import { generateCorpus } from '@server/social/corpus/generate/load';
import { resolveInsightScope, type InsightScope } from '@server/social/insights/request';
import { insertCorpus } from '@test/support/insights.fixtures';
import { createTestServer, type TestServer } from '@test/support/server-harness';

export interface Bench {
  server: TestServer;
  store: AnalyticsStore;
  close(): Promise<void>;
}

/**
 * The corpus in PostgreSQL: `posts` generated (seed 29), the insights tests' posts, and 48 posts around
 * Pacific/Chatham's change of 27 September 2026 (insertChathamPosts).
 */
export async function loadCorpus(server: TestServer, posts = 3_000) {
  await generateCorpus(server.pool, { seed: 29, posts, end: Date.UTC(2026, 10, 15), batchSize: 1_000 });
  await insertCorpus(server);
  await insertChathamPosts(server);
}

/** `posts` generated posts (seed `seed`, ending 15 November 2026) and the insights tests' posts. */
export async function generatedCorpus(server: TestServer, seed: number, posts = 2_000) {
  await generateCorpus(server.pool, { seed, posts, end: Date.UTC(2026, 10, 15), batchSize: 1_000 });
  await insertCorpus(server);
}

/**
 * The analytics service as the server runs it (with `options` beside), on a temporary directory, caught up with
 * `server`'s corpus.
 */
export async function runningService(
  server: TestServer,
  name: string,
  options: Partial<AnalyticsServiceOptions> = {},
) {
  const dataDir = mkdtempSync(join(tmpdir(), `murmur-${name}-`));
  const service = AnalyticsService.start({
    db: server.db,
    pool: server.pool,
    dataDir,
    log: () => {},
    ...options,
  });
  await service.caughtUpOnce();
  return {
    service,
    async close() {
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The corpus in PostgreSQL (loadCorpus) and the store rebuilt from it. */
export async function openBench(posts = 3_000): Promise<Bench> {
  const server = await createTestServer();
  await loadCorpus(server, posts);
  const dataDir = mkdtempSync(join(tmpdir(), 'murmur-dashboards-'));
  const store = await EmbeddedStore.open({ dataDir });
  await rebuildStore(server, store);
  return {
    server,
    store,
    async close() {
      await store.close();
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * 48 posts every 5 minutes from 2 hours before Pacific/Chatham's change of 27 September 2026 (02:45 standard time →
 * 03:45 daylight time, at a quarter past the UTC hour) to 2 hours after, by the first profiles.
 */
export async function insertChathamPosts(server: TestServer) {
  const { rows } = await server.pool.query<{ id: string }>('SELECT id FROM profiles ORDER BY id LIMIT 6');
  const chatham = Date.UTC(2026, 8, 26, 14, 0); // 02:45 Chatham standard time → 03:45 daylight time
  await insertPosts(
    server.db,
    Array.from({ length: 48 }, (_, i) => ({
      platform: 'x' as const,
      externalId: `chatham${i}`,
      authorId: Number(rows[i % rows.length]!.id),
      text: `chatham clocks ${i % 3 ? 'forward' : 'spring'} #chatham`,
      language: i % 4 ? 'en' : null,
      // Every 5 minutes from 2 hours before the change to 2 hours after.
      postedAt: new Date(chatham - 2 * 3_600_000 + i * 300_000 + (i % 7) * 1_000),
      kind: 'original' as const,
      media: 'text' as const,
      likes: i % 5,
      comments: i % 2,
      shares: 0,
      views: null,
      hashtags: ['chatham'],
      mentions: [],
      domains: [],
      sentiment: ((i % 9) - 4) / 5,
      sentimentLabel:
        i % 9 > 5 ? ('positive' as const) : i % 9 < 3 ? ('negative' as const) : ('neutral' as const),
    })),
  );
}

/** The store's compiler for the case's query (its words asked of PostgreSQL once). */
export const matchOf = (server: TestServer, context: InsightScope) =>
  storeMatch(server.pool, context.scope.query);

export interface Case {
  name: string;
  zone: string;
  range: [string, string];
  query?: string;
  platforms?: Array<(typeof PLATFORM_VALUES)[number]>;
  languages?: string[];
  refine?: Refine[];
}

export const contextOf = (server: TestServer, c: Case) =>
  resolveInsightScope(
    server.db,
    { timeZone: c.zone },
    {
      workspace_id: 'w',
      query: c.query ?? '',
      filters: { from: c.range[0], to: c.range[1], platforms: c.platforms, languages: c.languages },
      refine: c.refine ?? [],
    },
  );

/**
 * Typed queries of the bench's mix (server/query/README.md's operators on the generated corpus's words: a broad term, a
 * phrase, an OR, a NOT with a hashtag, NEAR, a wildcard, CJK terms of one word and of two characters, field filters:
 * read from their token slices), compiled by the store's own compiler.
 */
export const TYPED_QUERIES = [
  'nova',
  '"midnight harbor"',
  'cloudnest OR outage OR downdetector',
  'nova NOT #unboxing',
  'nova NEAR/3 launch',
  'clou*',
  '노바X',
  '노바',
  'platform:x lang:en',
];

export const RANGES: Record<string, [string, string]> = {
  'a day of hours over the clocks going back': ['2026-10-31T16:00:00Z', '2026-11-01T16:00:00Z'],
  'hours over the clocks going forward': ['2026-03-07T17:00:00Z', '2026-03-09T04:00:00Z'],
  'hours over Chatham going forward': ['2026-09-26T00:00:00Z', '2026-09-27T12:00:00Z'],
  '30 days of days': ['2026-10-10T00:00:00Z', '2026-11-09T00:00:00Z'],
  'a week at odd bounds': ['2026-10-28T13:37:00.000Z', '2026-11-04T08:12:30.000Z'],
  '120 days of weeks': ['2026-07-15T00:00:00Z', '2026-11-12T00:00:00Z'],
};
export const ZONES = ['UTC', 'America/New_York', 'Asia/Kolkata', 'Pacific/Chatham'];

/** Each typed query over 120 days of weeks in `zone`, named by the query. */
export const typedCases = (zone = 'Asia/Kolkata'): Case[] =>
  TYPED_QUERIES.map((query) => ({ name: query, zone, range: RANGES['120 days of weeks']!, query }));

/** Values of the generated corpus: an author of many posts, its most common link domain and word. */
export interface Picks {
  author: number;
  domain: string;
  word: string;
}

export async function picksOf(server: TestServer): Promise<Picks> {
  const one = async (sql: string) => (await server.pool.query<{ v: string }>(sql)).rows[0]!.v;
  return {
    author: Number(
      await one(
        `SELECT author_id AS v FROM posts GROUP BY author_id ORDER BY count(*) DESC, author_id LIMIT 1 OFFSET 3`,
      ),
    ),
    domain: await one(
      `SELECT d AS v FROM posts, unnest(domains) d GROUP BY d ORDER BY count(*) DESC, d LIMIT 1`,
    ),
    word: await one(
      `SELECT word AS v FROM ts_stat('SELECT search FROM posts') WHERE word ~ '^[a-z]{4,}$' ORDER BY ndoc DESC, word LIMIT 1 OFFSET 5`,
    ),
  };
}

/** Every refinement, one or two values, for the zone (date values are bucket starts there). */
export function refinements(zone: string, picks: Picks): Refine[] {
  const at = (local: string) => instantOfWallClock(local, zone).toISOString();
  return [
    { field: 'platform', values: ['instagram', 'reddit'] },
    { field: 'hashtag', values: ['#Launch', 'chatham'] },
    { field: 'mention', values: ['@alice', 'novamobile'] },
    { field: 'domain', values: ['example.com', picks.domain] },
    { field: 'term', values: ['Coffee', 'outage', picks.word] },
    { field: 'author', values: [picks.author, '@Hana'] },
    { field: 'sentiment', values: ['positive'] },
    { field: 'language', values: ['es', 'ko'] },
    { field: 'media', values: ['video'] },
    { field: 'kind', values: ['reply', 'quote'] },
    { field: 'followers', values: [{ min: 100, max: 5_000 }, { min: 50_000 }] },
    {
      field: 'hour_of_week',
      values: [
        { day: 7, hour: 1 },
        { day: 3, hour: 14 },
      ],
    },
    { field: 'date', bucket: 'hour', values: [at('2026-11-01T01:00:00'), at('2026-09-27T03:00:00')] },
    { field: 'date', bucket: 'day', values: [at('2026-11-01T00:00:00'), at('2026-10-15T00:00:00')] },
    { field: 'date', bucket: 'week', values: [at('2026-10-26T00:00:00')] },
  ];
}

/**
 * Refinements on a post's lists (hashtag, mention, domain), which a text query's token rows answer from `tags`: each
 * with the list's most frequent value among the posts of `nova` (so that it keeps some) and one it may not have.
 */
export async function listRefinements(server: TestServer): Promise<Refine[]> {
  const top = async (list: 'hashtags' | 'mentions' | 'domains') =>
    (
      await server.pool.query<{ v: string }>(
        `SELECT v FROM posts, unnest(${list}) v WHERE search @@ 'nova'::tsquery GROUP BY v ORDER BY count(*) DESC, v LIMIT 1`,
      )
    ).rows[0]!.v;
  return [
    { field: 'hashtag', values: [`#${await top('hashtags')}`, 'chatham'] },
    { field: 'mention', values: [`@${await top('mentions')}`, 'alice'] },
    { field: 'domain', values: [await top('domains'), 'example.com'] },
  ];
}

/** Sums of floating sentiment may differ in their last bits between the engines: 12 significant digits are kept. */
export const rounded = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value), (_key, v: unknown) =>
    typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(12)) : v,
  );

/** Equal within a relative tolerance (sums of sentiment added in another order). */
export function expectClose(actual: number | null, expected: number | null, what: string) {
  if (expected === null || actual === null) return expect(actual, what).toBe(expected);
  expect(Math.abs(actual - expected), `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(
    1e-9 * Math.max(1, Math.abs(expected)),
  );
}

/**
 * The running service as it would be with its store one corpus version behind PostgreSQL; with no lag allowed (a
 * service started without maxLagMs), a dashboard does not read it.
 */
export const storeBehind = (service: AnalyticsService) =>
  Object.create(service, {
    reading: {
      value: () => ({ ...service.reading()!, corpusVersion: service.reading()!.corpusVersion - 1 }),
    },
  }) as AnalyticsService;

/**
 * The running service as it is, every statement sent to its store noted in `statements` (so that a test sees a
 * figure read from the store rather than from PostgreSQL).
 */
export function watchedService(service: AnalyticsService, statements: string[]): AnalyticsService {
  return Object.create(service, {
    reading: {
      value: () => {
        const reading = service.reading();
        if (!reading) return reading;
        const store = Object.create(reading.store, {
          query: {
            value: (statement: string, params?: Record<string, unknown>) => {
              statements.push(statement);
              return reading.store.query(statement, params);
            },
          },
        }) as AnalyticsStore;
        return { ...reading, store };
      },
    },
    // The reading's store is the watched one, whose own is its prototype.
    unchangedSince: {
      value: (reading: StoreReading) =>
        service.unchangedSince({ ...reading, store: Object.getPrototypeOf(reading.store) as AnalyticsStore }),
    },
  }) as AnalyticsService;
}
