// Compare's overlap from the store (storeOverlap) held to the reference evaluator (test/support/reference/lists.ts):
// on a generated corpus written through the change path and fed to a running store, for two to four compared queries
// of generated scopes sharing a zone and a range (each its own query of every operator or none, platforms and
// languages, a post of unknown language under a language filter matching none), each query's matching posts, the
// posts matched by two or more, and each pair's; and for Compare's tags mode, two or three of the workspace's tags
// within one generated scope (its refinements, then each column's tag), the posts carrying two or more, and per pair.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeOverlap } from '@server/analytics/figures/overlap';
import type { AnalyticsStore } from '@server/analytics/store';
import { generatedCorpus, REF_TAGS, writeCorpus } from '@test/support/reference/corpus';
import { overlapOf } from '@test/support/reference/lists';
import type { RefPost } from '@test/support/reference/query';
import { caseArb, correctionsOf, scopesOf } from '@test/support/reference/scopes';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { runningService } from '../analytics/dashboards.fixtures';

let server: TestServer;
let running: Awaited<ReturnType<typeof runningService>>;
let store: AnalyticsStore;
let posts: RefPost[];

beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  posts = await writeCorpus(server, generatedCorpus(5270, 400));
  running = await runningService(server, 'overlap-property');
  store = running.service.store!;
}, 120_000);
afterAll(async () => {
  await running?.close();
  await server?.close();
});

/** Two to four compared queries: the first's zone and range shared by all, no refinements or corrections (Compare). */
const comparedArb = () =>
  fc.array(caseArb(posts), { minLength: 2, maxLength: 4 }).map((cases) =>
    cases.map((c) => ({
      ...c,
      zone: cases[0]!.zone,
      range: cases[0]!.range,
      refine: [],
      corrected: false,
    })),
  );

describe("the store's overlap equals the reference's", () => {
  it('each query, the posts matched by two or more, and each pair, on generated queries', async () => {
    let overlapping = 0;
    await fc.assert(
      fc.asyncProperty(comparedArb(), async (cases) => {
        const scopes = await Promise.all(cases.map((c) => scopesOf(server, c, new Map())));
        const expected = overlapOf(
          posts,
          scopes.map((s) => s.scope),
        );
        const queries = cases.map((c) => c.query);
        // Each query's flags: a query compared with itself overlaps in exactly its own posts.
        const each = await Promise.all(scopes.map(async (s) => (await storeOverlap(store, [s, s])).posts));
        expect({ queries, each }).toEqual({
          queries,
          each: scopes.map((_, i) => [...expected.flags.values()].filter((f) => f[i]).length),
        });
        const got = await storeOverlap(store, scopes);
        if (expected.posts > 0) overlapping += 1;
        expect({ queries, ...got }).toEqual({ queries, posts: expected.posts, pairs: expected.pairs });
      }),
      { seed: 5271, numRuns: 80, endOnFailure: true },
    );
    // Not vacuous: many comparisons overlap.
    expect(overlapping).toBeGreaterThan(25);
  }, 120_000);

  it("each tag's posts within one scope, those carrying two or more of the tags, and each pair (tags mode)", async () => {
    const corrections = correctionsOf(posts);
    let overlapping = 0;
    const tagsArb = fc.shuffledSubarray(Object.values(REF_TAGS), { minLength: 2, maxLength: 3 });
    await fc.assert(
      fc.asyncProperty(caseArb(posts), tagsArb, async (c, tags) => {
        // Each column: the scope's refinements, then its tag, as Compare resolves a tag's column.
        const columns = tags.map((tag) => ({
          ...c,
          refine: [...c.refine, { field: 'tag' as const, values: [tag] }],
        }));
        const scopes = await Promise.all(columns.map((column) => scopesOf(server, column, corrections)));
        const expected = overlapOf(
          posts,
          scopes.map((s) => s.scope),
        );
        const got = await storeOverlap(store, scopes);
        if (expected.posts > 0) overlapping += 1;
        expect({ query: c.query, tags, ...got }).toEqual({
          query: c.query,
          tags,
          posts: expected.posts,
          pairs: expected.pairs,
        });
      }),
      { seed: 5272, numRuns: 60, endOnFailure: true },
    );
    // Not vacuous: Drinks and Coffee share posts in a fair share of the scopes (12 of these 60).
    expect(overlapping).toBeGreaterThan(8);
  }, 120_000);
});
