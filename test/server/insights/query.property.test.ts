// The store's matching held to the reference evaluator (test/support/reference): on a generated corpus written
// through the change path and fed to a running store, for generated queries of every operator of the query language
// (words in any case, phrases, NEAR/n, wildcards, hashtags, mentions, fields, CJK and emoji substrings, NOT, AND, OR),
// the same posts (by id) and the count the query editor shows, over the whole corpus and over scopes.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_DATABASE } from '@server/analytics/layout';
import { countStoreMatches, storeCondition } from '@server/analytics/query/count';
import type { StoreScope } from '@server/analytics/query/compile';
import type { AnalyticsStore } from '@server/analytics/store';
import { generatedCorpus, queryArb, writeCorpus } from '@test/support/reference/corpus';
import { matching, parsed, type RefPost } from '@test/support/reference/query';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { runningService } from '../analytics/dashboards.fixtures';

let server: TestServer;
let running: Awaited<ReturnType<typeof runningService>>;
let store: AnalyticsStore;
let posts: RefPost[];

beforeAll(async () => {
  server = await createTestServer();
  posts = await writeCorpus(server, generatedCorpus(52, 400));
  running = await runningService(server, 'query-property');
  store = running.service.store!;
}, 120_000);
afterAll(async () => {
  await running?.close();
  await server?.close();
});

async function storeIds(scope: StoreScope): Promise<number[]> {
  const condition = await storeCondition(server.pool, scope);
  const rows = await store.query<{ id: string }>(
    `SELECT toString(p.id) AS id FROM ${STORE_DATABASE}.posts p WHERE ${condition.sql} ORDER BY p.id`,
    condition.params,
  );
  return rows.map((row) => Number(row.id));
}

/** The reference's matches in the scope: from ≤ posted_at < to, the platforms and languages given (none: any). */
function referenceIds(scope: StoreScope): number[] {
  return matching(scope.query, posts)
    .filter(
      (p) =>
        (!scope.from || p.at >= scope.from.getTime()) &&
        (!scope.to || p.at < scope.to.getTime()) &&
        (!scope.platforms.length || scope.platforms.includes(p.platform)) &&
        (!scope.languages.length || (p.language !== null && scope.languages.includes(p.language))),
    )
    .map((p) => p.id)
    .sort((a, b) => a - b);
}

const scopeArb = fc.record({
  platforms: fc.subarray(['x', 'instagram', 'tiktok', 'youtube', 'facebook', 'reddit']),
  languages: fc.subarray(['en', 'es', 'ko', 'ja']),
  range: fc.option(
    fc
      .tuple(
        fc.integer({ min: Date.parse('2026-03-01T00:00:00Z'), max: Date.parse('2026-11-15T00:00:00Z') }),
        fc.integer({ min: 1, max: 60 * 24 * 3_600_000 }),
      )
      .map(([from, length]) => ({ from: new Date(from), to: new Date(from + length) })),
    { nil: undefined },
  ),
});

describe('the store matches as the reference evaluator', () => {
  it('the same posts over the whole corpus, for queries of every operator', async () => {
    let matched = 0;
    await fc.assert(
      fc.asyncProperty(queryArb, async (query) => {
        const scope: StoreScope = { query: parsed(query), platforms: [], languages: [] };
        const expected = referenceIds(scope);
        if (expected.length > 0 && expected.length < posts.length) matched += 1;
        expect({ query, ids: await storeIds(scope) }).toEqual({ query, ids: expected });
      }),
      { seed: 5201, numRuns: 250, endOnFailure: true },
    );
    // Not vacuous: most queries keep some posts and drop others.
    expect(matched).toBeGreaterThan(125);
  }, 90_000);

  it('the same posts within scopes (a range, platforms, languages)', async () => {
    await fc.assert(
      fc.asyncProperty(queryArb, scopeArb, async (query, { platforms, languages, range }) => {
        const scope: StoreScope = { query: parsed(query), platforms, languages, ...range };
        expect({ query, ids: await storeIds(scope) }).toEqual({ query, ids: referenceIds(scope) });
      }),
      { seed: 5202, numRuns: 120, endOnFailure: true },
    );
  }, 90_000);

  it('counts as the query editor shows it, capped as it caps', async () => {
    await fc.assert(
      fc.asyncProperty(queryArb, fc.constantFrom(3, 100_000), async (query, cap) => {
        const scope: StoreScope = { query: parsed(query), platforms: [], languages: [] };
        const n = referenceIds(scope).length;
        expect({ query, ...(await countStoreMatches(store, server.pool, scope, { cap })) }).toEqual({
          query,
          matches: Math.min(n, cap),
          capped: n > cap,
        });
      }),
      { seed: 5203, numRuns: 80, endOnFailure: true },
    );
  }, 90_000);
});
