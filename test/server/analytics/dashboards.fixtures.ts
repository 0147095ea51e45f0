// What the store's tests share: a generated corpus (a few thousand posts over 180 days) with the insights tests'
// corpus (posts around both DST changes of America/New_York in 2026), a running analytics service caught up with it,
// scopes (typed queries, ranges across DST changes), and a service whose store statements are watched.
import { AnalyticsService, type AnalyticsServiceOptions, type StoreReading } from '@server/analytics/service';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Refine } from '@contract/insights';
import type { PLATFORM_VALUES } from '@contract/social-scope';
import type { AnalyticsStore } from '@server/analytics/store';
import { insertPosts } from '@server/social/corpus/changes';
import { generateCorpus } from '@server/social/corpus/generate/load';
import { resolveInsightScope } from '@server/social/insights/request';
import { insertCorpus } from '@test/support/insights.fixtures';
import type { TestServer } from '@test/support/server-harness';

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

/** Each typed query over 120 days of weeks in `zone`, named by the query. */
export const typedCases = (zone = 'Asia/Kolkata'): Case[] =>
  TYPED_QUERIES.map((query) => ({ name: query, zone, range: RANGES['120 days of weeks']!, query }));

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

/** The match sets (server/analytics/figures/match-sets.ts) that some statements name. */
export const setsNamed = (statements: string[]) =>
  new Set(statements.flatMap((sql) => sql.match(/murmur_scratch\.m_[0-9a-f]{32}/g) ?? []));

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

/** One post of `text` written to PostgreSQL (by the corpus's first author, on 30 May 2025); the corpus's new version. */
export async function writeOnePost(
  server: TestServer,
  externalId: string,
  text: string,
  postedAt = new Date('2025-05-30T10:00:00Z'),
): Promise<number> {
  const { rows } = await server.pool.query<{ a: string }>('SELECT author_id::text AS a FROM posts LIMIT 1');
  await insertPosts(server.db, [
    {
      authorId: Number(rows[0]!.a),
      platform: 'x',
      externalId,
      text,
      language: 'en',
      postedAt,
      likes: 1,
      comments: 0,
      shares: 0,
      sentiment: 0,
      sentimentLabel: 'neutral',
    },
  ]);
  return Number((await server.pool.query<{ v: string }>('SELECT version AS v FROM corpus_state')).rows[0]!.v);
}
