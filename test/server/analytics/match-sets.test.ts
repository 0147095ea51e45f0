// A long query's matches found once (server/analytics/figures/match-sets.ts), through the dashboards' route code: one
// set for the overview's three statements over two periods, kept after the read and read again by the people
// dashboard; carried through rounds of the change feed and to a later end, ended when it cannot follow; at most
// KEPT_SETS kept; a short query reads its slices. That the figures stay exact with sets is the overview's property
// test's (test/server/insights/overview.property.test.ts), and this file's against the figures read without a set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeMatch } from '@server/analytics/figures/match';
import { EXTEND_MS, FOLLOW_SPAN_MS, KEPT_SETS, SCRATCH_DATABASE } from '@server/analytics/figures/kept-sets';
import { LONG_QUERY_TERMS, queryTerms } from '@server/analytics/figures/match-sets';
import { storeConversationTags } from '@server/analytics/figures/conversation';
import { storePeople } from '@server/analytics/figures/people';
import { storeOverview } from '@server/analytics/figures/overview';
import type { AnalyticsStore } from '@server/analytics/store';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import { englishWords } from '@server/social/corpus/generate/vocab-en';
import { conversation } from '@server/social/insights/conversation';
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
  setsNamed,
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

/**
 * Waits for the scratch tables to be those of the sets `names` (each set's ids and its rows; a read drops its sets as
 * it ends, without waiting).
 */
async function scratchTablesAre(names: string[]) {
  const expected = names.flatMap((name) => [name, `${name}_rows`]).sort();
  for (let i = 0; i < 50 && (await scratchTables()).join() !== expected.join(); i += 1)
    await new Promise((resolve) => setTimeout(resolve, 100));
  expect(await scratchTables()).toEqual(expected);
}

const longCase = (query: string, range = RANGES['30 days of days']!) =>
  contextOf(server, { name: 'long', zone: 'America/New_York', range, query });

/**
 * The overview of `query` over `range`, the sets its statements named (the statements noted in `statements`); its
 * figures are those read without a set.
 */
async function overviewRead(
  query = longQuery,
  range = RANGES['30 days of days']!,
  statements: string[] = [],
) {
  const context = await longCase(query, range);
  const answer = await overview(server.db, context, watchedService(running.service, statements));
  const direct = await storeOverview(
    store,
    { context, match: storeMatch() },
    bucketFor(context.scope.from, context.scope.to),
    5,
  );
  const current = direct.periods.find((period) => period.cur);
  expect(answer.totals.mentions.value).toBe(current?.mentions);
  expect(answer.totals.engagement.value).toBe(current?.engagement);
  expect(answer.top_posts.map((post) => post.id)).toEqual(direct.top_posts.map((post) => post.id));
  return { mentions: answer.totals.mentions.value, sets: [...setsNamed(statements)] };
}

/** A post that `set` holds within the cases' range, and its author. */
async function heldPost(set: string): Promise<{ id: string; author: string }> {
  const [from, to] = RANGES['30 days of days']!.map((at) => Date.parse(at));
  const [held] = await store.query<{ id: string; author: string }>(
    `SELECT toString(p.id) AS id, toString(p.author_id) AS author FROM murmur.posts p
      WHERE p.id IN ${set} AND p.ts >= ${from} AND p.ts < ${to} ORDER BY p.id LIMIT 1`,
  );
  return held!;
}
const heldAuthor = async (set: string) => (await heldPost(set)).author;

/** `write`'s change applied to the store: a round of the change feed. */
async function applyRound(write: () => Promise<unknown>) {
  const before = running.service.reading()!.generation;
  await write();
  for (let i = 0; i < 600 && running.service.reading()?.generation === before; i += 1)
    await new Promise((resolve) => setTimeout(resolve, 50));
  expect(running.service.reading()!.generation).toBeGreaterThan(before);
}

let made = 0;
/** A post of `text` (at `at`, or on 30 May 2025, outside the cases' range) applied to the store; its id. */
async function postRound(text: string, at?: Date): Promise<number> {
  const externalId = `match-sets-${++made}`;
  await applyRound(() => writeOnePost(server, externalId, text, at));
  const { rows } = await server.pool.query<{ id: string }>('SELECT id FROM posts WHERE external_id = $1', [
    externalId,
  ]);
  return Number(rows[0]!.id);
}

const DAY_MS = 86_400_000;
const inRange = (days: number) => new Date(Date.parse(RANGES['30 days of days']![0]) + days * DAY_MS);

describe("a long query's matches found once", () => {
  it('counts the terms of a query', () => {
    expect(queryTerms(parsed('nova'))).toBe(1);
    expect(queryTerms(parsed('(nova OR lumen OR "a b") NOT #x'))).toBe(4);
    expect(queryTerms(parsed('(a OR b) NEAR/3 c platform:x'))).toBe(4);
    expect(queryTerms(parsed(longQuery))).toBeGreaterThanOrEqual(LONG_QUERY_TERMS);
  });

  it("answers the overview from one set of the query's matches, kept for the people dashboard", async () => {
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
  });

  it('follows the change feed: adds its matching posts, ends when a post it holds no longer matches', async () => {
    const first = await overviewRead();
    const [set] = first.sets;
    // A post outside the range, then a matching one inside it: the same set, with the new post counted.
    await postRound(`${words[0]} far away`);
    expect(await overviewRead()).toEqual(first);
    const id = await postRound(`${words[1]} inside`, inRange(10));
    expect(await overviewRead()).toEqual({ mentions: first.mentions + 1, sets: [set] });
    // A post that no longer matches: the set cannot lose it, so it ends, and the next read writes another.
    await applyRound(() =>
      server.pool.query(`SELECT corpus_update_posts('id = ${id}', 'text = ''nothing of the query''')`),
    );
    const after = await overviewRead();
    expect(after.mentions).toBe(first.mentions);
    expect(after.sets).toHaveLength(1);
    expect(after.sets[0]).not.toBe(set);
    await scratchTablesAre([after.sets[0]!.split('.')[1]!]);
  });

  it("reads the overview from its set's rows, which follow a post's change and deletion", async () => {
    const statements: string[] = [];
    const first = await overviewRead(longQuery, undefined, statements);
    const [set] = first.sets;
    // The three statements read the set's rows, not the posts table.
    const fromRows = statements.filter((sql) => sql.includes(`${set}_rows p`));
    expect(fromRows).toHaveLength(3);
    expect(fromRows.some((sql) => sql.includes('murmur.posts'))).toBe(false);
    // A post it holds gains engagement enough to be the top post, then is deleted: the same set, the figures as read
    // without it (overviewRead), the top post then gone.
    const held = await heldPost(set!);
    await applyRound(() =>
      server.pool.query(`SELECT corpus_update_posts('id = ${held.id}', 'likes = likes + 1000000')`),
    );
    const raised: string[] = [];
    expect(await overviewRead(longQuery, undefined, raised)).toEqual(first);
    expect(raised.some((sql) => sql.includes(`${set}_rows p`))).toBe(true);
    await applyRound(() => server.pool.query(`SELECT corpus_delete_posts('id = ${held.id}')`));
    expect(await overviewRead()).toEqual({ mentions: first.mentions - 1, sets: [set] });
  });

  it("keeps a set through profiles' changes its query does not read, and ends it at one it reads", async () => {
    const byAuthor = `${longQuery} NOT author:nobody_here`;
    const first = await overviewRead(byAuthor);
    const [set] = first.sets;
    // A new profile (its posts come with it or after it), and an author's followers, which the query does not read.
    await applyRound(() =>
      insertProfiles(server.db, [
        { platform: 'x', externalId: `p-${++made}`, handle: `h${made}`, displayName: 'H', followers: 3 },
      ]),
    );
    expect(await overviewRead(byAuthor)).toEqual(first);
    const held = await heldAuthor(set!);
    await applyRound(() =>
      server.pool.query(`SELECT corpus_update_profiles('id = ${held}', 'followers = followers + 1')`),
    );
    expect(await overviewRead(byAuthor)).toEqual(first);
    // The handle of an author of its posts, now excluded by the query: the set cannot lose them, so it ends.
    await applyRound(() =>
      server.pool.query(`SELECT corpus_update_profiles('id = ${held}', 'handle = ''nobody_here''')`),
    );
    const after = await overviewRead(byAuthor);
    expect(after.mentions).toBeLessThan(first.mentions);
    expect(after.sets[0]).not.toBe(set);
  });

  it("keeps a set through follower counts within its query's bounds, and ends it at one crossing them", async () => {
    const byFollowers = `${longQuery} NOT followers:[900000000 TO *]`;
    const first = await overviewRead(byFollowers);
    const [set] = first.sets;
    const held = await heldAuthor(set!);
    const followers = (value: string) =>
      applyRound(() =>
        server.pool.query(`SELECT corpus_update_profiles('id = ${held}', 'followers = ${value}')`),
      );
    await followers('followers + 5');
    expect(await overviewRead(byFollowers)).toEqual(first);
    await followers('900000000');
    const after = await overviewRead(byFollowers);
    expect(after.mentions).toBeLessThan(first.mentions);
    expect(after.sets[0]).not.toBe(set);
  });

  it('ends a set when a round spreads its posts wider than a round may match', async () => {
    const [held] = (await overviewRead()).sets;
    const { rows } = await server.pool.query<{ a: string }>('SELECT author_id::text AS a FROM posts LIMIT 1');
    await applyRound(() =>
      insertPosts(
        server.db,
        [0, FOLLOW_SPAN_MS / DAY_MS + 2].map((days) => ({
          authorId: Number(rows[0]!.a),
          platform: 'x' as const,
          externalId: `match-sets-${++made}`,
          text: `${words[2]} spread`,
          language: 'en',
          postedAt: inRange(days + 1),
          likes: 1,
          comments: 0,
          shares: 0,
          sentiment: 0,
          sentimentLabel: 'neutral' as const,
        })),
      ),
    );
    const [fresh] = (await overviewRead()).sets;
    expect(fresh).not.toBe(held);
  });

  it('carries a kept set to a later end or an earlier start, within EXTEND_MS: a view asked again later', async () => {
    const [from, to] = RANGES['30 days of days']!;
    const slid = (ms: number): [string, string] => [
      new Date(Date.parse(from) + ms).toISOString(),
      new Date(Date.parse(to) + ms).toISOString(),
    ];
    const { sets } = await overviewRead();
    // Two hours later, then a day later: the same set, its figures those read without one.
    expect((await overviewRead(longQuery, slid(2 * 3_600_000))).sets).toEqual(sets);
    expect((await overviewRead(longQuery, slid(EXTEND_MS))).sets).toEqual(sets);
    // A view starting earlier (its previous period too) and ending within the set: the same set, carried back.
    const earlier: [string, string] = [slid(-3 * 3_600_000)[0], slid(2 * 3_600_000)[1]];
    expect((await overviewRead(longQuery, earlier)).sets).toEqual(sets);
    // Further than EXTEND_MS past its end: the previous period still reads it, the current one another set.
    const further = (await overviewRead(longQuery, slid(3 * EXTEND_MS))).sets;
    expect(further.filter((name) => name !== sets[0])).toHaveLength(1);
  });

  it("counts the conversation's three lists of a kept set in one pass, as read without it", async () => {
    const { sets } = await overviewRead();
    const context = await longCase(longQuery);
    const statements: string[] = [];
    const answer = await conversation(
      server.db,
      context,
      10,
      undefined,
      watchedService(running.service, statements),
    );
    const lists = statements.filter((sql) => sql.includes('p.tags') || sql.includes('arrayDistinct'));
    expect(lists).toHaveLength(1);
    expect([...setsNamed(lists)]).toEqual(sets);
    const direct = await storeConversationTags(store, { context, match: storeMatch() }, 10);
    expect(direct.hashtags.length).toBeGreaterThan(3);
    expect({ hashtags: answer.hashtags, mentions: answer.mentions, domains: answer.domains }).toEqual(direct);
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
