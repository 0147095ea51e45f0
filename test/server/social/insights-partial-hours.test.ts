// Hours the clocks skip only part of, on PostgreSQL's path (no analytics store): Australia/Lord_Howe goes from 02:00 to
// 02:30 on 4 October 2026 (15:30 UTC on the 3rd) and Pacific/Chatham from 02:45 to 03:45 on 27 September 2026 (14:00
// UTC on the 26th). The wall-clock hour that remains is a bucket of the overview's timeline, starting at its first
// instant (the jump); every post falls in exactly one bucket, the buckets add up to the mentions, and the bucket's
// drill-down lists its posts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OverviewResponse, PostsResponse } from '@contract/insights-responses';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createWorkspace, type Person } from '@test/support/workspaces.fixtures';

let server: TestServer;
let viewer: Person;
const workspaces = new Map<string, string>();

const CASES = {
  'Australia/Lord_Howe': {
    range: ['2026-10-03T12:00:00Z', '2026-10-04T12:00:00Z'],
    // 01:40 and 01:59 before the jump; 02:30, 02:45 and 02:59 in the half hour that remains; 03:10 after.
    posts: [
      '2026-10-03T15:10:00Z',
      '2026-10-03T15:29:00Z',
      '2026-10-03T15:30:00Z',
      '2026-10-03T15:45:00Z',
      '2026-10-03T15:59:00Z',
      '2026-10-03T16:10:00Z',
    ],
    partial: { local: '2026-10-04T02:00:00', start: '2026-10-03T15:30:00.000Z', mentions: 3 },
    inside: ['2026-10-03T15:30:00Z', '2026-10-03T15:45:00Z', '2026-10-03T15:59:00Z'],
  },
  'Pacific/Chatham': {
    range: ['2026-09-26T00:00:00Z', '2026-09-27T12:00:00Z'],
    // 02:30 before the jump; 03:45 and 03:55 in the quarter hour that remains; 04:05 after.
    posts: ['2026-09-26T13:45:00Z', '2026-09-26T14:00:00Z', '2026-09-26T14:10:00Z', '2026-09-26T14:20:00Z'],
    partial: { local: '2026-09-27T03:00:00', start: '2026-09-26T14:00:00.000Z', mentions: 2 },
    inside: ['2026-09-26T14:00:00Z', '2026-09-26T14:10:00Z'],
  },
} as const;
type Zone = keyof typeof CASES;

beforeAll(async () => {
  server = await createTestServer();
  viewer = await server.createUser();
  const [author] = await insertProfiles(server.db, [
    { platform: 'x', externalId: 'a0', handle: 'kiri', displayName: 'Kiri', followers: 10 },
  ]);
  for (const [zone, { posts }] of Object.entries(CASES)) {
    const workspace = await createWorkspace(server, [[viewer, 'viewer']], { timeZone: zone });
    workspaces.set(zone, workspace.id);
    await insertPosts(
      server.db,
      posts.map((at, i) => ({
        authorId: author!,
        platform: 'x' as const,
        externalId: `${zone}-${i}`,
        text: 'tide',
        postedAt: new Date(at),
        likes: 1,
        comments: 0,
        shares: 0,
        hashtags: [],
        mentions: [],
        domains: [],
        sentiment: 0,
        sentimentLabel: 'neutral' as const,
      })),
    );
  }
});
afterAll(() => server.close());

async function post<T>(url: string, zone: Zone, extra: object = {}) {
  const [from, to] = CASES[zone].range;
  const res = await as(server, viewer, {
    method: 'POST',
    url,
    payload: { workspace_id: workspaces.get(zone), query: '', filters: { from, to }, ...extra },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<T>();
}

describe('an hour the clocks skip part of', () => {
  it.each(Object.keys(CASES) as Zone[])(
    '%s: is a bucket from the jump, and the buckets add up to the mentions',
    async (zone) => {
      const { posts, partial } = CASES[zone];
      const body = await post<OverviewResponse>('/social/insights/overview', zone);
      expect(body.bucket).toBe('hour');
      expect(body.totals.mentions.value).toBe(posts.length);
      expect(body.over_time.reduce((n, b) => n + b.mentions, 0)).toBe(posts.length);
      const bucket = body.over_time.find((b) => b.local === partial.local);
      expect(bucket && { local: bucket.local, start: bucket.start, mentions: bucket.mentions }).toEqual(
        partial,
      );
      // Starts strictly increase: no bucket begins before the one before it ends.
      const starts = body.over_time.map((b) => Date.parse(b.start));
      expect(starts.every((s, i) => i === 0 || s > starts[i - 1]!)).toBe(true);
    },
  );

  it.each(Object.keys(CASES) as Zone[])('%s: its drill-down lists its posts', async (zone) => {
    const { partial, inside } = CASES[zone];
    const body = await post<PostsResponse>('/social/insights/filtered-posts', zone, {
      refine: [{ field: 'date', bucket: 'hour', values: [partial.start] }],
      limit: 100,
    });
    expect(body.posts.map((p) => new Date(p.posted_at).toISOString()).sort()).toEqual(
      inside.map((at) => new Date(at).toISOString()),
    );
  });
});
