// A saved long query's matches prepared before its first dashboard (server/social/insights/prepared-sets.ts): saving it
// keeps the set of its matches, which the overview of the saved query then reads rather than writing its own; a changed
// text prepares its own set, and so does an edited list for the saved queries that read it; the figures are those read
// without a set; the start prepares the long saved queries changed last, and no short one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { savedQueries } from '@server/db/social-schema';
import { storeMatch } from '@server/analytics/figures/match';
import { endKeptSets, keptOf, type MatchSet } from '@server/analytics/figures/kept-sets';
import { storeOverview } from '@server/analytics/figures/overview';
import type { AnalyticsService } from '@server/analytics/service';
import { englishWords } from '@server/social/corpus/generate/vocab-en';
import { overview } from '@server/social/insights/overview';
import { PREPARED_MS, prepareQuery, prepareSavedQueries } from '@server/social/insights/prepared-sets';
import { parsedQuery } from '@server/lists/store';
import { bucketFor } from '@server/social/insights/time';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, type Team } from '@test/support/workspaces.fixtures';
import { contextOf, generatedCorpus, RANGES, setsNamed, watchedService } from './dashboards.fixtures';

let server: TestServer;
let service: AnalyticsService;
let team: Team;

beforeAll(async () => {
  server = await createTestServer();
  await generatedCorpus(server, 87, 1_500);
  await server.storeCaughtUp();
  service = server.analytics!;
  team = await createTeam(server);
}, 120_000);
afterAll(() => server?.close());

const words = englishWords();
/** A long OR of the generator's words (LONG_QUERY_TERMS or more), less one. */
const longQuery = (first: number) =>
  `(${words.slice(first, first + 25).join(' OR ')}) NOT ${words[first + 40]}`;

const keyOf = async (text: string) =>
  JSON.stringify((await parsedQuery(server.db, team.workspaceId, text)).ast);

/** The kept set of `text`'s matches, once written (a saved query's is written in the background). */
async function keptSetOf(text: string): Promise<MatchSet | undefined> {
  const key = await keyOf(text);
  for (let i = 0; i < 200; i += 1) {
    const set = keptOf(service.store!).find((kept) => kept.kept!.key === key);
    if (set) return set.written!.then(() => set);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

/** The overview of `body` through the route, with the sets its statements named (app.deps' service watched). */
async function routeOverview(body: Record<string, unknown>) {
  const statements: string[] = [];
  server.app.deps.analytics = watchedService(service, statements);
  try {
    const response = await as(server, team.viewer, {
      method: 'POST',
      url: '/social/insights/overview',
      payload: { workspace_id: team.workspaceId, ...body },
    });
    expect(response.statusCode, response.body).toBe(200);
    const answer = response.json<{
      totals: { mentions: { value: number } };
      top_posts: Array<{ id: string }>;
    }>();
    return {
      mentions: answer.totals.mentions.value,
      tops: answer.top_posts.map((post) => post.id),
      statements,
    };
  } finally {
    server.app.deps.analytics = service;
  }
}

describe("a saved long query's matches prepared", () => {
  it('keeps the set of a saved query, which its first overview reads, and one for its changed text', async () => {
    endKeptSets(service.store!);
    const text = longQuery(0);
    const saved = await as(server, team.manager, {
      method: 'POST',
      url: `/api/workspaces/${team.workspaceId}/saved-queries`,
      payload: { name: 'Brands', query: text },
    });
    expect(saved.statusCode, saved.body).toBe(201);
    const id = saved.json<{ id: string }>().id;
    const prepared = await keptSetOf(text);
    expect(prepared).toBeDefined();
    // It holds a 90-day view and the period before it.
    expect(prepared!.range.to.getTime() - prepared!.range.from.getTime()).toBe(PREPARED_MS);

    const to = new Date();
    const filters = { from: new Date(to.getTime() - 90 * 86_400_000).toISOString(), to: to.toISOString() };
    const read = await routeOverview({ saved_query_id: id, filters });
    expect([...setsNamed(read.statements)]).toEqual([prepared!.table]);
    // The same figures as a read that finds the matches itself.
    endKeptSets(service.store!);
    const own = await routeOverview({ query: text, filters });
    expect([...setsNamed(own.statements)]).not.toContain(prepared!.table);
    expect(own.mentions).toBe(read.mentions);
    expect(own.tops).toEqual(read.tops);

    const changed = longQuery(50);
    const patched = await as(server, team.manager, {
      method: 'PATCH',
      url: `/api/workspaces/${team.workspaceId}/saved-queries/${id}`,
      payload: { query: changed },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(await keptSetOf(changed)).toBeDefined();
  });

  it('reads a prepared set with the figures of its matches found by each statement', async () => {
    endKeptSets(service.store!);
    const text = longQuery(10);
    const range = RANGES['30 days of days']!;
    // Prepared when the range ends: the overview of a month before it reads the set as it was written.
    expect(await prepareQuery(server.db, service, team.workspaceId, text, new Date(range[1]))).toBe(true);
    const set = await keptSetOf(text);
    const context = await contextOf(server, { name: 'prepared', zone: 'Europe/Paris', range, query: text });
    const statements: string[] = [];
    const answer = await overview(server.db, context, watchedService(service, statements));
    expect([...setsNamed(statements)]).toEqual([set!.table]);
    const direct = await storeOverview(
      service.store!,
      { context, match: storeMatch() },
      bucketFor(context.scope.from, context.scope.to),
      5,
    );
    expect(answer.totals.mentions.value).toBeGreaterThan(0);
    expect(answer.totals.mentions.value).toBe(direct.periods.find((period) => period.cur)?.mentions);
    expect(answer.top_posts.map((post) => post.id)).toEqual(direct.top_posts.map((post) => post.id));
  });

  it('prepares again the saved queries that read a list when it is edited', async () => {
    endKeptSets(service.store!);
    const lists = `/api/workspaces/${team.workspaceId}/lists`;
    const made = await as(server, team.manager, {
      method: 'POST',
      url: lists,
      payload: { name: 'brands', kind: 'words', items: words.slice(30, 55) },
    });
    expect(made.statusCode, made.body).toBe(201);
    const text = `list(brands) NOT ${words[70]}`;
    const saved = await as(server, team.manager, {
      method: 'POST',
      url: `/api/workspaces/${team.workspaceId}/saved-queries`,
      payload: { name: 'Listed', query: text },
    });
    expect(saved.statusCode, saved.body).toBe(201);
    const before = await keptSetOf(text);
    const edited = await as(server, team.manager, {
      method: 'PUT',
      url: `${lists}/brands`,
      payload: { items: words.slice(31, 56) },
    });
    expect(edited.statusCode, edited.body).toBe(200);
    // The same text, another expanded query: its own set.
    const after = await keptSetOf(text);
    expect(after).toBeDefined();
    expect(after!.table).not.toBe(before!.table);
  });

  it('prepares nothing for a short query', async () => {
    expect(await prepareQuery(server.db, service, team.workspaceId, 'nova OR lumen')).toBe(false);
  });

  it('prepares at start the long saved queries changed last', async () => {
    endKeptSets(service.store!);
    const texts = [longQuery(90), longQuery(100), longQuery(110), 'nova'];
    for (const [i, query] of texts.entries())
      await server.db.insert(savedQueries).values({
        workspaceId: team.workspaceId,
        name: `start ${i}`,
        query,
        updatedAt: new Date(Date.now() + (i + 1) * 60_000),
      });
    // The short one changed last is passed over; the three long ones changed before it are prepared, no more.
    expect(await prepareSavedQueries(server.db, service)).toBe(3);
    for (const text of texts.slice(0, 3)) expect(await keptSetOf(text)).toBeDefined();
    expect(keptOf(service.store!)).toHaveLength(3);
  });
});
