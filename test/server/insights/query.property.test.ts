// The store's matching held to the reference evaluator (test/support/reference): on a generated corpus written
// through the change path and fed to a running store, for generated queries of every operator of the query language
// (words in any case, phrases, NEAR/n, wildcards, hashtags, mentions, fields, CJK and emoji substrings, NOT, AND, OR),
// the same posts (by id) and the count the query editor shows, over the whole corpus and over scopes.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeMatch } from '@server/analytics/figures/match';
import { storeDayCounts } from '@server/analytics/figures/volume';
import { STORE_DATABASE } from '@server/analytics/layout';
import { countStoreMatches, storeCondition } from '@server/analytics/matching/count';
import type { StoreScope } from '@server/analytics/matching/compile';
import type { AnalyticsStore } from '@server/analytics/store';
import { NO_CORRECTIONS } from '@server/social/corrections';
import { resolveInsightScope } from '@server/social/insights/request';
import { generatedCorpus, subredditQueryArb as queryArb, writeCorpus } from '@test/support/reference/corpus';
import { withDomains, withUrls } from '@test/support/reference/links';
import { dayCounts, type RefScope } from '@test/support/reference/figures';
import { matching, parsed, type RefPost } from '@test/support/reference/query';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { runningService } from '../analytics/dashboards.fixtures';

let server: TestServer;
let running: Awaited<ReturnType<typeof runningService>>;
let store: AnalyticsStore;
let posts: RefPost[];

beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  posts = await writeCorpus(server, withUrls(withDomains(generatedCorpus(52, 400), 53), 54));
  running = await runningService(server, 'query-property');
  store = running.service.store!;
}, 120_000);
afterAll(async () => {
  await running?.close();
  await server?.close();
});

async function storeIds(scope: StoreScope): Promise<number[]> {
  const condition = storeCondition(scope);
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
  it('binds every value of a query as a parameter: hostile text is matched as text, never spliced into the SQL', async () => {
    const scope: StoreScope = {
      query: parsed(`"x' OR 1=1 --" OR author:a.b OR #x OR lang:en OR drop*`),
      platforms: [],
      languages: [],
    };
    const condition = storeCondition(scope);
    for (const text of ["x'", '1=1', 'drop', 'a.b']) expect(condition.sql).not.toContain(text);
    expect(Object.values(condition.params)).toContain('drop');
    expect(await storeIds(scope)).toEqual(referenceIds(scope));
  });

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

  it("subreddit: the Reddit posts whose permalink names it, none of another platform's that link there", async () => {
    for (const query of [
      'subreddit:coffee',
      'subreddit:r/Tea',
      'subreddit:latteart',
      'NOT subreddit:coffee',
    ]) {
      const scope: StoreScope = { query: parsed(query), platforms: [], languages: [] };
      expect({ query, ids: await storeIds(scope) }).toEqual({ query, ids: referenceIds(scope) });
    }
    // Not vacuous: each subreddit has posts, and other platforms' posts link to it.
    for (const name of ['coffee', 'tea', 'latteart']) {
      const scope: StoreScope = { query: parsed(`subreddit:${name}`), platforms: [], languages: [] };
      expect(referenceIds(scope).length).toBeGreaterThan(0);
    }
    expect(posts.some((p) => p.platform !== 'reddit' && /\/r\/coffee/i.test(p.url ?? ''))).toBe(true);
  });

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
        expect({ query, ...(await countStoreMatches(store, scope, { cap })) }).toEqual({
          query,
          matches: Math.min(n, cap),
          capped: n > cap,
        });
      }),
      { seed: 5203, numRuns: 80, endOnFailure: true },
    );
  }, 90_000);

  it("counts the saved queries' posts per wall-clock day (their sparklines), several queries in one statement", async () => {
    const savedArb = fc.record({
      query: fc.option(queryArb, { freq: 4, nil: null }),
      platforms: fc.oneof(fc.constant<string[]>([]), fc.subarray(['x', 'instagram', 'tiktok'])),
      languages: fc.oneof(fc.constant<string[]>([]), fc.subarray(['en', 'ko', 'ja'])),
    });
    const volumeArb = fc.record({
      zone: fc.constantFrom('UTC', 'America/New_York', 'Asia/Kolkata', 'Pacific/Chatham'),
      // The sparklines' 30 days, ending on a day around the corpus's DST changes.
      end: fc.constantFrom(
        '2026-11-03T00:00:00Z',
        '2026-11-15T00:00:00Z',
        '2026-03-20T00:00:00Z',
        '2026-10-01T00:00:00Z',
      ),
      saved: fc.array(fc.option(savedArb, { freq: 6, nil: null }), { minLength: 1, maxLength: 4 }),
    });
    let counted = 0;
    await fc.assert(
      fc.asyncProperty(volumeArb, async ({ zone, end, saved }) => {
        const to = Date.parse(end);
        const from = to - 30 * 86_400_000;
        const scopes: Array<RefScope | null> = saved.map(
          (s) =>
            s && {
              zone,
              from,
              to,
              query: s.query === null ? null : parsed(s.query),
              platforms: s.platforms,
              languages: s.languages,
              refine: [],
              corrections: new Map(),
            },
        );
        const contexts = await Promise.all(
          saved.map(
            (s) =>
              s &&
              resolveInsightScope(
                server.db,
                { timeZone: zone },
                {
                  workspace_id: 'w',
                  query: s.query ?? '',
                  filters: {
                    from: new Date(from).toISOString(),
                    to: new Date(to).toISOString(),
                    platforms: s.platforms as never,
                    languages: s.languages,
                  },
                },
                undefined,
                NO_CORRECTIONS,
              ),
          ),
        );
        const match = storeMatch();
        const got = await storeDayCounts(
          store,
          contexts.map((context) => context && { context, match }),
        );
        const expected = dayCounts(posts, scopes);
        counted += expected.length;
        expect(got.sort((a, b) => a.i - b.i || (a.local < b.local ? -1 : 1))).toEqual(expected);
      }),
      { seed: 5204, numRuns: 40, endOnFailure: true },
    );
    expect(counted).toBeGreaterThan(100);
  }, 90_000);
});
