// A long query's matches found once a read (server/analytics/figures/match-sets.ts), through the overview's route
// code: one set for its three statements over two periods, dropped after the read; a short query reads its slices.
// That the figures stay exact with sets is the overview's property test's (test/server/insights/overview.property.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeMatch } from '@server/analytics/figures/match';
import { LONG_QUERY_TERMS, queryTerms, SCRATCH_DATABASE } from '@server/analytics/figures/match-sets';
import { storeOverview } from '@server/analytics/figures/overview';
import type { AnalyticsStore } from '@server/analytics/store';
import { englishWords } from '@server/social/corpus/generate/vocab-en';
import { overview } from '@server/social/insights/overview';
import { bucketFor } from '@server/social/insights/time';
import { parsed } from '@test/support/reference/query';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { contextOf, generatedCorpus, RANGES, runningService, watchedService } from './dashboards.fixtures';

let server: TestServer;
let running: Awaited<ReturnType<typeof runningService>>;
let store: AnalyticsStore;

beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  await generatedCorpus(server, 81, 2_000);
  running = await runningService(server, 'match-sets');
  store = running.service.store!;
}, 120_000);
afterAll(async () => {
  await running?.close();
  await server?.close();
});

/** Words of the generator's English posts: a brand team's long OR of names, less one. */
const words = englishWords();
const longQuery = `(${words.slice(0, 30).join(' OR ')}) NOT ${words[40]}`;

const scratchTables = async () =>
  (
    await store.query<{ name: string }>(
      `SELECT name FROM system.tables WHERE database = '${SCRATCH_DATABASE}' ORDER BY name`,
    )
  ).map((row) => row.name);

/** Waits for the read's sets to be dropped (a read drops them as it ends, without waiting). */
async function noScratchTables() {
  for (let i = 0; i < 50 && (await scratchTables()).length; i += 1)
    await new Promise((resolve) => setTimeout(resolve, 100));
  expect(await scratchTables()).toEqual([]);
}

describe("a long query's matches found once a read", () => {
  it('counts the terms of a query', () => {
    expect(queryTerms(parsed('nova'))).toBe(1);
    expect(queryTerms(parsed('(nova OR lumen OR "a b") NOT #x'))).toBe(4);
    expect(queryTerms(parsed('(a OR b) NEAR/3 c platform:x'))).toBe(4);
    expect(queryTerms(parsed(longQuery))).toBeGreaterThanOrEqual(LONG_QUERY_TERMS);
  });

  it("answers the overview from one set of the query's matches, dropped after the read", async () => {
    const context = await contextOf(server, {
      name: 'long',
      zone: 'America/New_York',
      range: RANGES['30 days of days']!,
      query: longQuery,
    });
    const statements: string[] = [];
    const answer = await overview(server.db, context, watchedService(running.service, statements));
    const sets = new Set(statements.flatMap((sql) => sql.match(/murmur_scratch\.m_[0-9a-f]{32}/g) ?? []));
    // The three statements (both periods, the timeline, the top posts) name one set.
    expect(statements.filter((sql) => sql.includes('murmur_scratch.m_'))).toHaveLength(3);
    expect(sets.size).toBe(1);
    await noScratchTables();
    // The same figures as each statement finding the matches itself.
    const direct = await storeOverview(
      store,
      { context, match: storeMatch() },
      bucketFor(context.scope.from, context.scope.to),
      5,
    );
    const current = direct.periods.find((period) => period.cur);
    expect(current?.mentions).toBeGreaterThan(100);
    expect(answer.totals.mentions.value).toBe(current?.mentions);
    expect(answer.top_posts.map((post) => post.id)).toEqual(direct.top_posts.map((post) => post.id));
  });

  it('reads a short query from its slices, with no set', async () => {
    const context = await contextOf(server, {
      name: 'short',
      zone: 'America/New_York',
      range: RANGES['30 days of days']!,
      query: words.slice(0, 3).join(' OR '),
    });
    const statements: string[] = [];
    await overview(server.db, context, watchedService(running.service, statements));
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.some((sql) => sql.includes(SCRATCH_DATABASE))).toBe(false);
  });
});
