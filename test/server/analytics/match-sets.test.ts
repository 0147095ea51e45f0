// A long query's matches found once (server/analytics/figures/match-sets.ts), through the dashboards' route code: one
// set for the overview's three statements over two periods, kept after the read and read again by the people
// dashboard, ended by a round of the change feed, at most KEPT_SETS kept; a short query reads its slices. That the
// figures stay exact with sets is the overview's property test's (test/server/insights/overview.property.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeMatch } from '@server/analytics/figures/match';
import {
  KEPT_SETS,
  LONG_QUERY_TERMS,
  queryTerms,
  SCRATCH_DATABASE,
} from '@server/analytics/figures/match-sets';
import { storePeople } from '@server/analytics/figures/people';
import { storeOverview } from '@server/analytics/figures/overview';
import type { AnalyticsStore } from '@server/analytics/store';
import { englishWords } from '@server/social/corpus/generate/vocab-en';
import { overview } from '@server/social/insights/overview';
import { people } from '@server/social/insights/people';
import { bucketFor } from '@server/social/insights/time';
import { parsed } from '@test/support/reference/query';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import {
  contextOf,
  generatedCorpus,
  RANGES,
  runningService,
  watchedService,
  writeOnePost,
} from './dashboards.fixtures';

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

/** Waits for the scratch tables to be `expected` (a read drops its sets as it ends, without waiting). */
async function scratchTablesAre(expected: string[]) {
  for (let i = 0; i < 50 && (await scratchTables()).join() !== expected.join(); i += 1)
    await new Promise((resolve) => setTimeout(resolve, 100));
  expect(await scratchTables()).toEqual(expected);
}

const setsNamed = (statements: string[]) =>
  new Set(statements.flatMap((sql) => sql.match(/murmur_scratch\.m_[0-9a-f]{32}/g) ?? []));

const longCase = (query: string) =>
  contextOf(server, { name: 'long', zone: 'America/New_York', range: RANGES['30 days of days']!, query });

let made = 0;
/** A post written to PostgreSQL and applied to the store: a round of the change feed. */
async function applyRound() {
  const before = running.service.reading()!.generation;
  await writeOnePost(server, `match-sets-${++made}`, `${words[0]} post ${made}`);
  for (let i = 0; i < 600 && running.service.reading()?.generation === before; i += 1)
    await new Promise((resolve) => setTimeout(resolve, 50));
  expect(running.service.reading()!.generation).toBeGreaterThan(before);
}

describe("a long query's matches found once", () => {
  it('counts the terms of a query', () => {
    expect(queryTerms(parsed('nova'))).toBe(1);
    expect(queryTerms(parsed('(nova OR lumen OR "a b") NOT #x'))).toBe(4);
    expect(queryTerms(parsed('(a OR b) NEAR/3 c platform:x'))).toBe(4);
    expect(queryTerms(parsed(longQuery))).toBeGreaterThanOrEqual(LONG_QUERY_TERMS);
  });

  it("answers the overview from one set of the query's matches, kept for the people dashboard, ended by a round", async () => {
    const context = await longCase(longQuery);
    const statements: string[] = [];
    const answer = await overview(server.db, context, watchedService(running.service, statements));
    const [set, ...others] = setsNamed(statements);
    // The three statements (both periods, the timeline, the top posts) name one set, kept after the read.
    expect(statements.filter((sql) => sql.includes('murmur_scratch.m_'))).toHaveLength(3);
    expect(others).toEqual([]);
    await scratchTablesAre([set!.split('.')[1]!]);
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

    // The people dashboard (which writes no set) reads the kept one, with the figures of its slices.
    const read: string[] = [];
    const kept = await people(server.db, await longCase(longQuery), 5, watchedService(running.service, read));
    expect([...setsNamed(read)]).toEqual([set]);
    const sliced = await storePeople(store, { context, match: storeMatch() }, 5);
    expect(sliced.authors).toBeGreaterThan(10);
    expect(kept.unique_authors).toBe(sliced.authors);
    expect(kept.by_mentions.map((person) => [person.mentions, person.engagement])).toEqual(
      sliced.by_mentions.map((person) => [Number(person.mentions), Number(person.engagement)]),
    );

    // A round of the change feed ends it: the next overview writes another, and the first is dropped.
    await applyRound();
    const after: string[] = [];
    await overview(server.db, await longCase(longQuery), watchedService(running.service, after));
    const [next] = setsNamed(after);
    expect(next).not.toBe(set);
    await scratchTablesAre([next!.split('.')[1]!]);
  });

  it(`keeps at most ${KEPT_SETS} sets, the least recently used dropped first`, async () => {
    const names: string[] = [];
    for (let i = 0; i < KEPT_SETS + 1; i += 1) {
      const statements: string[] = [];
      const query = `(${words.slice(i, i + 30).join(' OR ')}) NOT ${words[40 + i]}`;
      await overview(server.db, await longCase(query), watchedService(running.service, statements));
      names.push([...setsNamed(statements)][0]!.split('.')[1]!);
    }
    await scratchTablesAre(names.slice(1).sort());
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
