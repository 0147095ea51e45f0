// Drill-down refinements: each field, included and excluded, against a brute force over every row (through
// filtered-posts, which lists exactly the posts a chart counts); refinements ANDed; each cell of the best-time grid
// drilled down to exactly the posts it counts, across DST changes; saved queries and their filters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PerformanceResponse, PostsResponse } from '@contract/insights-responses';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createWorkspace, type Person } from '@test/support/workspaces.fixtures';
import {
  allRows,
  insertCorpus,
  insertSavedQuery,
  matchingIds,
  type Row,
} from '@test/support/insights.fixtures';
import { bucketKey, inScope, wall } from '@test/support/insights-brute-force';

let server: TestServer;
let viewer: Person;
let workspaceId: string;
let rows: Row[];
const ZONE = 'America/New_York';

beforeAll(async () => {
  server = await createTestServer();
  viewer = await server.createUser();
  workspaceId = (await createWorkspace(server, [[viewer, 'viewer']], { timeZone: ZONE })).id;
  await insertCorpus(server);
  rows = await allRows(server);
});
afterAll(() => server.close());

const FROM = '2026-10-08T00:00:00Z';
const TO = '2026-11-10T00:00:00Z';

async function listed(body: Record<string, unknown>) {
  const ids: number[] = [];
  let cursor: string | undefined;
  let total: number | undefined;
  do {
    const res = await as(server, viewer, {
      method: 'POST',
      url: '/social/insights/filtered-posts',
      payload: {
        workspace_id: workspaceId,
        filters: { from: FROM, to: TO },
        limit: 100,
        ...body,
        ...(cursor && { cursor }),
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const page = res.json<PostsResponse>();
    ids.push(...page.posts.map((p) => p.id));
    total = page.total;
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  expect(ids.length).toBe(total);
  return ids.sort((a, b) => a - b);
}

const expected = (test: (row: Row) => boolean, ids?: Set<number>) =>
  rows
    .filter(
      inScope({ ids: ids ?? new Set(rows.map((r) => r.id)), from: Date.parse(FROM), to: Date.parse(TO) }),
    )
    .filter(test)
    .map((r) => r.id)
    .sort((a, b) => a - b);

const authorId = (handle: string) => rows.find((r) => r.handle === handle)!.authorId;

const CASES: Array<[string, () => Record<string, unknown>, (row: Row) => boolean]> = [
  [
    'platform',
    () => ({ field: 'platform', values: ['x', 'tiktok'] }),
    (r) => ['x', 'tiktok'].includes(r.platform),
  ],
  [
    'hashtag (with # and any case)',
    () => ({ field: 'hashtag', values: ['#Launch', 'novax'] }),
    (r) => r.hashtags.includes('launch') || r.hashtags.includes('novax'),
  ],
  [
    'mention',
    () => ({ field: 'mention', values: ['@NovaMobile', 'cafe.bar'] }),
    (r) => r.mentions.includes('novamobile') || r.mentions.includes('cafe.bar'),
  ],
  [
    'term',
    () => ({ field: 'term', values: ['Coffee', '커피'] }),
    (r) => r.words.includes('coffee') || r.words.includes('커피'),
  ],
  [
    'author (id or handle)',
    () => ({ field: 'author', values: [authorId('Alice'), 'bob.kim', '@FRANK'] }),
    (r) => ['Alice', 'bob.kim', 'Frank'].includes(r.handle),
  ],
  ['sentiment', () => ({ field: 'sentiment', values: ['positive'] }), (r) => r.label === 'positive'],
  [
    'language',
    () => ({ field: 'language', values: ['es', 'ko'] }),
    (r) => r.language === 'es' || r.language === 'ko',
  ],
  ['media', () => ({ field: 'media', values: ['video'] }), (r) => r.media === 'video'],
  [
    'kind',
    () => ({ field: 'kind', values: ['reply', 'quote'] }),
    (r) => r.kind === 'reply' || r.kind === 'quote',
  ],
  ['domain', () => ({ field: 'domain', values: ['Example.com'] }), (r) => r.domains.includes('example.com')],
  [
    'followers',
    () => ({ field: 'followers', values: [{ min: 100, max: 3000 }, { max: 10 }] }),
    (r) => (r.followers >= 100 && r.followers < 3000) || r.followers < 10,
  ],
  [
    'date (a day of New York)',
    () => ({ field: 'date', bucket: 'day', values: ['2026-11-03T00:00:00-05:00'] }),
    (r) => bucketKey(r.at, ZONE, 'day') === '2026-11-03T00:00:00',
  ],
  [
    'date (the repeated hour, given by its second start)',
    () => ({ field: 'date', bucket: 'hour', values: ['2026-11-01T06:00:00Z', '2026-10-31T12:00:00-04:00'] }),
    (r) => ['2026-11-01T01:00:00', '2026-10-31T12:00:00'].includes(bucketKey(r.at, ZONE, 'hour')),
  ],
  [
    'hour_of_week (Sundays 01:00–01:59, the repeated hour of 1 November among them, and Mondays 09:00–09:59)',
    () => ({
      field: 'hour_of_week',
      values: [
        { day: 7, hour: 1 },
        { day: 1, hour: 9 },
      ],
    }),
    (r) => {
      const w = wall(r.at, ZONE);
      return (w.weekday === 7 && w.h === 1) || (w.weekday === 1 && w.h === 9);
    },
  ],
  [
    'date (a week from Monday)',
    () => ({ field: 'date', bucket: 'week', values: ['2026-10-26T00:00:00-04:00'] }),
    (r) => bucketKey(r.at, ZONE, 'week') === '2026-10-26T00:00:00',
  ],
];

describe('each refinement, included and excluded', () => {
  it.each(CASES)('%s', async (_name, refine, test) => {
    const included = await listed({ query: '', refine: [refine()] });
    expect(included).toEqual(expected(test));
    expect(included.length).toBeGreaterThan(0);
    const excluded = await listed({ query: '', refine: [{ ...refine(), exclude: true }] });
    expect(excluded).toEqual(expected((r) => !test(r)));
    expect(excluded.length).toBeGreaterThan(0);
  });

  it('ANDs refinements with each other and with the query', async () => {
    const ids = await matchingIds(server, 'coffee OR tea');
    const got = await listed({
      query: 'coffee OR tea',
      refine: [
        { field: 'platform', values: ['x', 'instagram'] },
        { field: 'hashtag', values: ['launch'], exclude: true },
      ],
    });
    expect(got).toEqual(
      expected((r) => ['x', 'instagram'].includes(r.platform) && !r.hashtags.includes('launch'), ids),
    );
  });
});

describe('a cell of the best-time grid', () => {
  // Both DST changes of New York in 2026 (8 March, 1 November) and of St. John's (the same days, offsets of half
  // hours), with a query and without.
  const RANGE = { from: '2026-03-01T00:00:00Z', to: '2026-11-10T00:00:00Z' };
  const cases = [
    ['America/New_York', ''],
    ['America/New_York', 'coffee OR tea'],
    ['America/St_Johns', ''],
    ['America/St_Johns', 'coffee OR tea'],
  ] as const;

  it.each(cases)(
    'in %s, query %j: every cell lists as many posts as it counts, and exclude the rest',
    async (zone, query) => {
      const workspace = (await createWorkspace(server, [[viewer, 'viewer']], { timeZone: zone })).id;
      const call = (url: string, body: Record<string, unknown>) =>
        as(server, viewer, {
          method: 'POST',
          url: `/social/insights/${url}`,
          payload: { workspace_id: workspace, query, filters: RANGE, ...body },
        });
      const performance = (await call('performance', {})).json<PerformanceResponse>();
      const all = performance.totals.posts;
      const cells = performance.best_time.filter((cell) => cell.posts > 0);
      expect(cells.length).toBeGreaterThan(20);
      for (const { day, hour, posts } of cells) {
        const cell = { field: 'hour_of_week', values: [{ day, hour }] };
        const included = (await call('filtered-posts', { refine: [cell], limit: 1 })).json<PostsResponse>();
        expect(included.total, `day ${day} hour ${hour}`).toBe(posts);
        const excluded = (
          await call('filtered-posts', { refine: [{ ...cell, exclude: true }], limit: 1 })
        ).json<PostsResponse>();
        expect(excluded.total, `day ${day} hour ${hour} excluded`).toBe(all - posts);
      }
      const empty = performance.best_time.find((cell) => cell.posts === 0);
      if (empty) {
        const res = await call('filtered-posts', {
          refine: [{ field: 'hour_of_week', values: [{ day: empty.day, hour: empty.hour }] }],
        });
        expect(res.json<PostsResponse>().total).toBe(0);
      }
      // Two cells at once: their posts, every one in the zone's wall clock, and their complement.
      const [a, b] = [cells[0]!, cells.at(-1)!];
      const two = { field: 'hour_of_week', values: [a, b].map(({ day, hour }) => ({ day, hour })) };
      const inCells = (r: Row) => {
        const w = wall(r.at, zone);
        return [a, b].some((c) => c.day === w.weekday && c.hour === w.h);
      };
      const ids = await matchingIds(server, query);
      const scope = { ids, from: Date.parse(RANGE.from), to: Date.parse(RANGE.to) };
      const expectedIds = (test: (r: Row) => boolean) =>
        rows
          .filter(inScope({ ...scope, refine: test }))
          .map((r) => r.id)
          .sort((x, y) => x - y);
      const listedIds = async (refine: Record<string, unknown>) => {
        const page = (await call('filtered-posts', { refine: [refine], limit: 100 })).json<PostsResponse>();
        return page.posts.map((p) => p.id).sort((x, y) => x - y);
      };
      expect(a.posts + b.posts).toBeLessThanOrEqual(100);
      expect(await listedIds(two)).toEqual(expectedIds(inCells));
      const counted = (
        await call('filtered-posts', { refine: [{ ...two, exclude: true }], limit: 1 })
      ).json<PostsResponse>();
      expect(counted.total).toBe(expectedIds((r) => !inCells(r)).length);
      const DAYS = ['Mondays', 'Tuesdays', 'Wednesdays', 'Thursdays', 'Fridays', 'Saturdays', 'Sundays'];
      const words = ({ day, hour }: { day: number; hour: number }) =>
        `${DAYS[day - 1]} ${String(hour).padStart(2, '0')}:00–${String(hour).padStart(2, '0')}:59`;
      expect(counted.counted).toContain(
        `, refined to not posted on ${words(a)} or ${words(b)} (${zone} wall-clock time);`,
      );
    },
  );
});

describe('saved queries', () => {
  it('uses the saved text and filters; request filters override them key by key', async () => {
    const id = await insertSavedQuery(server, workspaceId, 'coffee OR tea', {
      platforms: ['x'],
      languages: ['en'],
    });
    const ids = await matchingIds(server, 'coffee OR tea');
    expect(await listed({ saved_query_id: id })).toEqual(
      expected((r) => r.platform === 'x' && r.language === 'en', ids),
    );
    expect(
      await listed({ saved_query_id: id, filters: { from: FROM, to: TO, platforms: ['tiktok'] } }),
    ).toEqual(expected((r) => r.platform === 'tiktok' && r.language === 'en', ids));
    const res = await as(server, viewer, {
      method: 'POST',
      url: '/social/insights/overview',
      payload: { workspace_id: workspaceId, saved_query_id: id, filters: { from: FROM, to: TO } },
    });
    expect(res.json<{ counted: string }>().counted).toContain('the saved query "Saved coffee OR tea"');
  });
});
