// The conversation's hashtags, mentioned accounts and linked domains from the store (storeConversationTags) held to
// the reference evaluator (test/support/reference/figures.ts, conversationTags): on a generated corpus with linked
// domains written through the change path and fed to a running store, for generated scopes
// (test/support/reference/scopes.ts: a text query or none, filters, refinements, corrections), each list's elements
// and posts, most first, ties in code-point order, cut at the limit.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeConversationTags } from '@server/analytics/figures/conversation';
import type { AnalyticsStore } from '@server/analytics/store';
import { generatedCorpus, withDomains, writeCorpus } from '@test/support/reference/corpus';
import { conversationTags } from '@test/support/reference/figures';
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
  posts = await writeCorpus(server, withDomains(generatedCorpus(5280, 400), 5289));
  running = await runningService(server, 'tags-property');
  store = running.service.store!;
}, 120_000);
afterAll(async () => {
  await running?.close();
  await server?.close();
});

describe("the store's conversation tags equal the reference's", () => {
  it('hashtags, mentions and domains on generated scopes', async () => {
    const corrections = correctionsOf(posts);
    let listed = 0;
    await fc.assert(
      fc.asyncProperty(caseArb(posts), fc.integer({ min: 1, max: 12 }), async (c, limit) => {
        const { scope, context, match } = await scopesOf(server, c, corrections);
        const expected = conversationTags(posts, scope, limit);
        if (expected.domains.length > 1 && expected.hashtags.length > 1) listed += 1;
        const got = await storeConversationTags(store, { context, match }, limit);
        expect({ query: c.query, ...got }).toEqual({ query: c.query, ...expected });
      }),
      { seed: 5281, numRuns: 100, endOnFailure: true },
    );
    // Not vacuous: most scopes list several of each.
    expect(listed).toBeGreaterThan(30);
  }, 120_000);
});
