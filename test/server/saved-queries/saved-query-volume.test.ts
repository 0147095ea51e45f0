// POST /social/saved-queries/volume against a brute force over every row: each saved query's matching posts per
// wall-clock day of the workspace's zone (the last 7 whole days and today), across the clocks going back in New York,
// in a half-hour zone and in UTC (where platform-only queries read the hourly rollup); day boundaries at local
// midnight; who may call it. "Now" is a fixed instant inside the fixture corpus (only Date is faked).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { profiles } from '@server/db/social-schema';
import type { SavedQueryVolume } from '@contract/saved-queries';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, createWorkspace, type Person, type Team } from '@test/support/workspaces.fixtures';
import {
  allRows,
  insertCorpus,
  insertSavedQuery,
  matchingIds,
  type Row,
} from '@test/support/insights.fixtures';
import { bucketKey, inScope } from '@test/support/insights-brute-force';
import { insertPosts } from '@server/social/corpus/changes';

/** Thursday 5 November 2026, 10:00 in New York: the 7 days before hold the clocks going back and a spike. */
const NOW = Date.parse('2026-11-05T15:00:00Z');
const DAY = 86_400_000;

const SAVED: Array<{ query: string; filters?: { platforms?: string[]; languages?: string[] } }> = [
  { query: 'coffee' },
  { query: 'coffee NOT tea', filters: { languages: ['en'] } },
  { query: 'platform:x' },
  { query: 'lang:es OR platform:tiktok' },
  { query: '#launch OR outage', filters: { platforms: ['x', 'instagram', 'youtube'] } },
  { query: '' },
  { query: 'midnightmarker' },
  { query: 'edgemarker' },
];

let server: TestServer;
let viewer: Person;
let team: Team;
let rows: Row[];
const zones = new Map<string, string>();

beforeAll(async () => {
  vi.useFakeTimers({ toFake: ['Date'], now: NOW });
  server = await createTestServer();
  viewer = await server.createUser();
  team = await createTeam(server);
  await insertCorpus(server);
  const [author] = await server.db.select({ id: profiles.id }).from(profiles).limit(1);
  // Around midnight in Tokyo (15:00 UTC), and around the New York window's bounds: its first instant (midnight EDT
  // on 29 October, 04:00 UTC) is in, the millisecond before is out; now is out, the millisecond before is in.
  const marker = (externalId: string, at: string, word: string) => ({
    authorId: author!.id,
    platform: 'x' as const,
    externalId,
    text: `${word} post`,
    postedAt: new Date(at),
  });
  await insertPosts(server.db, [
    marker('m1', '2026-11-02T14:59:59.999Z', 'midnightmarker'),
    marker('m2', '2026-11-02T15:00:00.000Z', 'midnightmarker'),
    marker('e1', '2026-10-29T03:59:59.999Z', 'edgemarker'),
    marker('e2', '2026-10-29T04:00:00.000Z', 'edgemarker'),
    marker('e3', new Date(NOW - 1).toISOString(), 'edgemarker'),
    marker('e4', new Date(NOW).toISOString(), 'edgemarker'),
  ]);
  for (const zone of ['America/New_York', 'Asia/Kolkata', 'UTC', 'Asia/Tokyo']) {
    const workspace = await createWorkspace(server, [[viewer, 'viewer']], { timeZone: zone });
    zones.set(zone, workspace.id);
    for (const saved of SAVED) await insertSavedQuery(server, workspace.id, saved.query, saved.filters);
  }
  rows = await allRows(server);
});
afterAll(async () => {
  await server.close();
  vi.useRealTimers();
});

async function volume(zone: string) {
  const res = await as(server, viewer, {
    method: 'POST',
    url: '/social/saved-queries/volume',
    payload: { workspace_id: zones.get(zone) },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<SavedQueryVolume>();
}

/** The 8 wall-clock dates ending today, from the calendar, not from the server's arithmetic. */
function expectedDays(zone: string) {
  const today = bucketKey(NOW, zone, 'day').slice(0, 10);
  const [y, m, d] = today.split('-').map(Number);
  return Array.from({ length: 8 }, (_, i) =>
    new Date(Date.UTC(y!, m! - 1, d!) - (7 - i) * DAY).toISOString().slice(0, 10),
  );
}

describe('counts', () => {
  it.each(['America/New_York', 'Asia/Kolkata', 'UTC', 'Asia/Tokyo'])(
    'equal a recount of every post in %s',
    async (zone) => {
      const body = await volume(zone);
      const days = expectedDays(zone);
      expect(body.time_zone).toBe(zone);
      expect(body.days).toEqual(days);
      // The range starts at the first day's first instant and ends now.
      const from = Date.parse(body.range.from);
      expect(bucketKey(from, zone, 'day').slice(0, 10)).toBe(days[0]);
      expect(bucketKey(from - 1, zone, 'day').slice(0, 10)).not.toBe(days[0]);
      expect(body.range.to).toBe(new Date(NOW).toISOString());
      expect(body.counted).toContain(zone);

      // Newest first, as the list: the insertion order reversed.
      expect(body.saved_queries).toHaveLength(SAVED.length);
      for (const [index, saved] of [...SAVED].reverse().entries()) {
        const ids = await matchingIds(server, saved.query);
        const scoped = rows.filter(inScope({ ids, from, to: NOW, ...saved.filters }));
        const expected = days.map(
          (day) => scoped.filter((r) => bucketKey(r.at, zone, 'day').slice(0, 10) === day).length,
        );
        const answer = body.saved_queries[index]!;
        expect(answer.counts, `${zone} ${JSON.stringify(saved)}`).toEqual(expected);
        expect(answer.total).toBe(scoped.length);
      }
      // Not an all-zero agreement: the week holds hundreds of the corpus's posts.
      expect(body.saved_queries.find((q) => q.counts?.some((n) => n > 20))).toBeDefined();
    },
  );

  it('puts a post at local midnight on the new day and the millisecond before on the old one', async () => {
    const tokyo = await volume('Asia/Tokyo');
    const markers =
      tokyo.saved_queries[SAVED.length - 1 - SAVED.findIndex((s) => s.query === 'midnightmarker')]!;
    expect(markers.counts![tokyo.days.indexOf('2026-11-02')]).toBe(1);
    expect(markers.counts![tokyo.days.indexOf('2026-11-03')]).toBe(1);
    const newYork = await volume('America/New_York');
    const both =
      newYork.saved_queries[SAVED.length - 1 - SAVED.findIndex((s) => s.query === 'midnightmarker')]!;
    expect(both.counts![newYork.days.indexOf('2026-11-02')]).toBe(2);
  });

  it("counts from the first day's first instant up to now, not after", async () => {
    const body = await volume('America/New_York');
    expect(body.range.from).toBe('2026-10-29T04:00:00.000Z');
    const edges = body.saved_queries[SAVED.length - 1 - SAVED.findIndex((s) => s.query === 'edgemarker')]!;
    expect(edges.counts).toEqual([1, 0, 0, 0, 0, 0, 0, 1]);
  });

  it('lists a stored query that no longer parses without counts, and the others with theirs', async () => {
    const workspace = await createWorkspace(server, [[viewer, 'viewer']]);
    await insertSavedQuery(server, workspace.id, 'coffee');
    await insertSavedQuery(server, workspace.id, 'coffee AND (');
    const res = await as(server, viewer, {
      method: 'POST',
      url: '/social/saved-queries/volume',
      payload: { workspace_id: workspace.id },
    });
    expect(res.statusCode, res.body).toBe(200);
    const [broken, coffee] = res.json<SavedQueryVolume>().saved_queries;
    expect(broken).toMatchObject({ counts: null, total: null });
    expect(coffee!.counts).toHaveLength(8);
  });

  it('answers an empty list for a workspace without saved queries', async () => {
    const res = await as(server, team.owner, {
      method: 'POST',
      url: '/social/saved-queries/volume',
      payload: { workspace_id: team.workspaceId },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<SavedQueryVolume>()).toMatchObject({ saved_queries: [], days: expect.any(Array) });
  });
});

describe('who may call it', () => {
  const call = (person: Person | null, workspaceId = team.workspaceId) =>
    as(server, person, {
      method: 'POST',
      url: '/social/saved-queries/volume',
      payload: { workspace_id: workspaceId },
    });

  it('members (viewer and up) 200, outsiders and unknown workspaces the same 404, signed out 401', async () => {
    for (const person of [team.owner, team.manager, team.viewer]) {
      expect((await call(person)).statusCode).toBe(200);
    }
    const outsider = await call(team.outsider);
    expect(outsider.statusCode).toBe(404);
    const missing = await call(team.viewer, 'no-such-workspace');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual(outsider.json());
    expect((await call(null)).statusCode).toBe(401);
  });
});
