// The workspace's time zone, set in Settings › General: owners and managers change it (viewers are refused, on the
// server), only a zone the runtime's Intl lists (or an IANA alias of one, as PostgreSQL spells it) is kept, and the
// dashboards count days and hours in it at once: the same request answers anew (the answer cache keys on the zone), a
// post at 23:30 UTC falls on the next day in Asia/Tokyo, and half-hour zones (Asia/Kolkata) are exact.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspaces } from '@server/db/schema';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import type { OverviewResponse, PerformanceResponse } from '@contract/insights-responses';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, type Person, type Team } from '@test/support/workspaces.fixtures';

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer();
});
afterAll(() => server.close());

const patch = (team: Team, person: Person, payload: unknown) =>
  as(server, person, {
    method: 'PATCH',
    url: `/api/workspaces/${team.workspaceId}`,
    payload: payload as object,
  });

async function storedZone(team: Team) {
  const [row] = await server.db
    .select({ timeZone: workspaces.timeZone })
    .from(workspaces)
    .where(eq(workspaces.id, team.workspaceId));
  return row!.timeZone;
}

describe('PATCH /api/workspaces/:id time_zone', () => {
  it('lets an owner set the zone; the workspace and the user list say it', async () => {
    const team = await createTeam(server);
    expect(await storedZone(team)).toBe('UTC');
    const res = await patch(team, team.owner, { time_zone: 'Asia/Tokyo' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ time_zone: 'Asia/Tokyo', privilege: 'owner' });
    const read = await as(server, team.viewer, { method: 'GET', url: `/api/workspaces/${team.workspaceId}` });
    expect(read.json()).toMatchObject({ time_zone: 'Asia/Tokyo' });
    const me = await as(server, team.viewer, { method: 'GET', url: '/api/users/me' });
    expect(me.json().workspaces).toEqual([expect.objectContaining({ time_zone: 'Asia/Tokyo' })]);
  });

  it('lets a manager set it, with the name in the same request', async () => {
    const team = await createTeam(server);
    const res = await patch(team, team.manager, { name: 'Night shift', time_zone: 'America/New_York' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ name: 'Night shift', time_zone: 'America/New_York' });
  });

  it('refuses a viewer (and a non-member) and keeps the zone', async () => {
    const team = await createTeam(server);
    const refused = await patch(team, team.viewer, { time_zone: 'Asia/Tokyo' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({
      error: 'forbidden',
      message: 'Only owners and managers can change workspace settings.',
    });
    expect((await patch(team, team.outsider, { time_zone: 'Asia/Tokyo' })).statusCode).toBe(404);
    expect(await storedZone(team)).toBe('UTC');
  });

  it.each([
    'UTC',
    'Europe/Berlin',
    'Asia/Kathmandu',
    'Asia/Kolkata',
    'Asia/Calcutta',
    'America/Argentina/Salta',
  ])('accepts %s', async (zone) => {
    const team = await createTeam(server);
    const res = await patch(team, team.owner, { time_zone: zone });
    expect(res.statusCode, res.body).toBe(200);
    expect(await storedZone(team)).toBe(zone);
  });

  it.each([
    ['an unknown zone', 'Mars/Olympus_Mons'],
    ['a zone in the wrong case', 'asia/tokyo'],
    // Intl takes it (as Asia/Calcutta), PostgreSQL's list does not.
    ['an alias in the wrong case', 'asia/kolkata'],
    ['a zone with spaces around it', ' Asia/Tokyo'],
    ['an offset', '+09:00'],
    ['an abbreviation', 'JST'],
    ['nothing', ''],
    ['a very long text', `Asia/${'x'.repeat(300)}`],
    ['a number', 9],
    ['null', null],
  ])('refuses %s with a message on the field, and keeps the zone', async (_name, zone) => {
    const team = await createTeam(server);
    const res = await patch(team, team.owner, { name: 'Kept as it was', time_zone: zone });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({
      error: 'invalid_request',
      fields: [
        {
          path: 'time_zone',
          message: typeof zone === 'string' ? 'Choose a time zone from the list' : expect.any(String),
        },
      ],
    });
    expect(await storedZone(team)).toBe('UTC');
    const [row] = await server.db.select().from(workspaces).where(eq(workspaces.id, team.workspaceId));
    expect(row!.name).not.toBe('Kept as it was');
  });
});

describe('the dashboards in the zone set', () => {
  let team: Team;
  // 6 days: the overview counts days.
  const range = { from: '2026-06-08T00:00:00Z', to: '2026-06-14T00:00:00Z' };
  // 1 day: hours.
  const hours = { from: '2026-06-10T12:00:00Z', to: '2026-06-11T12:00:00Z' };
  const QUERY = 'zonecheck';

  beforeAll(async () => {
    team = await createTeam(server);
    const [author] = (
      await insertProfiles(server.db, [
        {
          platform: 'x',
          externalId: 'tz-author',
          handle: 'night_owl',
          displayName: 'Night Owl',
          followers: 3,
        },
      ])
    ).map((id) => ({ id }));
    // In Tokyo (UTC+9) all three are on 11 June; in Kolkata (UTC+5:30) the first is at 05:00 on the 11th, the second
    // at 23:50 on the 10th and the third at 00:10 on the 11th.
    await insertPosts(
      server.db,
      ['2026-06-10T23:30:00Z', '2026-06-10T18:20:00Z', '2026-06-10T18:40:00Z'].map((at, i) => ({
        platform: 'x' as const,
        externalId: `tz-post-${i}`,
        authorId: author!.id,
        text: `${QUERY} post ${i}`,
        language: 'en',
        postedAt: new Date(at),
      })),
    );
  });

  const overview = async (filters: { from: string; to: string }) => {
    const res = await as(server, team.viewer, {
      method: 'POST',
      url: '/social/insights/overview',
      payload: { workspace_id: team.workspaceId, query: QUERY, filters },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<OverviewResponse>();
  };
  const counted = (body: OverviewResponse) =>
    Object.fromEntries(body.over_time.filter((b) => b.mentions).map((b) => [b.local, b.mentions]));
  const setZone = async (zone: string) =>
    expect((await patch(team, team.owner, { time_zone: zone })).statusCode).toBe(200);

  it('counts a post of 23:30 UTC on the next day in Asia/Tokyo, the same request answered anew', async () => {
    const cache = server.app.analytics.cache;
    const utc = await overview(range);
    expect(utc.time_zone).toBe('UTC');
    expect(counted(utc)).toEqual({ '2026-06-10T00:00:00': 3 });
    // The same request again comes from the cache…
    const hits = cache.stats.hits;
    expect(counted(await overview(range))).toEqual({ '2026-06-10T00:00:00': 3 });
    expect(cache.stats.hits).toBe(hits + 1);

    // …but not once the zone has changed: nothing was written to the posts, only the workspace.
    await setZone('Asia/Tokyo');
    const tokyo = await overview(range);
    expect(tokyo.time_zone).toBe('Asia/Tokyo');
    expect(counted(tokyo)).toEqual({ '2026-06-11T00:00:00': 3 });
    expect(tokyo.over_time[0]).toMatchObject({
      local: '2026-06-08T00:00:00',
      start: '2026-06-07T15:00:00.000Z',
    });

    await setZone('UTC');
    expect(counted(await overview(range))).toEqual({ '2026-06-10T00:00:00': 3 });
  });

  it('moves the hours by the whole-hour offset (the hourly rollup) and the best-time grid with them', async () => {
    await setZone('Asia/Tokyo');
    const tokyo = await overview(hours);
    expect(tokyo.bucket).toBe('hour');
    expect(counted(tokyo)).toEqual({ '2026-06-11T03:00:00': 2, '2026-06-11T08:00:00': 1 });
    const res = await as(server, team.viewer, {
      method: 'POST',
      url: '/social/insights/performance',
      payload: { workspace_id: team.workspaceId, query: QUERY, filters: range },
    });
    expect(res.statusCode, res.body).toBe(200);
    const cells = res.json<PerformanceResponse>().best_time.filter((cell) => cell.posts);
    // 11 June 2026 is a Thursday (ISO day 4).
    expect(cells.map((cell) => [cell.day, cell.hour, cell.posts])).toEqual([
      [4, 3, 2],
      [4, 8, 1],
    ]);
  });

  it('counts a half-hour zone exactly: Asia/Kolkata days and hours start at :30 UTC', async () => {
    await setZone('Asia/Kolkata');
    const days = await overview(range);
    expect(counted(days)).toEqual({ '2026-06-10T00:00:00': 1, '2026-06-11T00:00:00': 2 });
    const kolkata = await overview(hours);
    expect(counted(kolkata)).toEqual({
      '2026-06-10T23:00:00': 1,
      '2026-06-11T00:00:00': 1,
      '2026-06-11T05:00:00': 1,
    });
    const bucket = kolkata.over_time.find((b) => b.local === '2026-06-11T05:00:00');
    expect(bucket?.start).toBe('2026-06-10T23:30:00.000Z');
  });
});
