// The paged lists (posts, filtered-posts, filtered-profiles) and the people dashboard against a brute force: every
// page in order, totals, the documented tie-breaks, overperformance, and cursors that keep the first page's range.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PeopleResponse, PostsResponse, ProfilesResponse } from '@contract/insights-responses';
import { CURSOR_RANGE_CONFLICT } from '@server/social/cursor-range';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createWorkspace, type Person } from '@test/support/workspaces.fixtures';
import { allRows, insertCorpus, matchingIds, type Row } from '@test/support/insights.fixtures';
import {
  byEngagement,
  byRecency,
  inScope,
  overperformance,
  PERSON_ORDER,
  perAuthor,
  sum,
  type Scope,
} from '@test/support/insights-brute-force';

let server: TestServer;
let viewer: Person;
let workspaceId: string;
let rows: Row[];

beforeAll(async () => {
  server = await createTestServer();
  viewer = await server.createUser();
  workspaceId = (await createWorkspace(server, [[viewer, 'viewer']], { timeZone: 'America/New_York' })).id;
  await insertCorpus(server);
  rows = await allRows(server);
});
afterAll(() => server.close());

const FROM = '2026-10-25T04:00:00Z';
const TO = '2026-11-08T05:00:00Z';

const post = (url: string, body: Record<string, unknown>) =>
  as(server, viewer, {
    method: 'POST',
    url: `/social/insights/${url}`,
    payload: { workspace_id: workspaceId, ...body },
  });

async function pages<T extends PostsResponse | ProfilesResponse>(url: string, body: Record<string, unknown>) {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    const res = await post(url, { ...body, ...(cursor && { cursor }) });
    expect(res.statusCode, res.body).toBe(200);
    const page = res.json<T>();
    all.push(page);
    cursor = page.next_cursor ?? undefined;
  } while (cursor && all.length < 200);
  return all;
}

const REFINE = [{ field: 'kind', values: ['repost'], exclude: true }];
const notRepost = (r: Row) => r.kind !== 'repost';

describe('posts and filtered-posts: every page, in order', () => {
  const cases = [
    ['posts', 'engagement', '', undefined],
    ['posts', 'recency', 'coffee OR tea', undefined],
    ['posts', 'overperformance', '', undefined],
    ['posts', 'overperformance', 'coffee OR tea', REFINE],
    ['filtered-posts', 'recency', '#launch', REFINE],
    ['filtered-posts', 'engagement', '', REFINE],
    ['filtered-posts', 'recency', '', [{ field: 'platform', values: ['x', 'reddit'] }]],
    ['posts', 'recency', 'platform:x OR lang:es', undefined],
  ] as const;

  it.each(cases)('%s by %s, query %j, refine %j', async (url, sort, query, refine) => {
    const ids = await matchingIds(server, query);
    const scope: Scope = { ids, from: Date.parse(FROM), to: Date.parse(TO) };
    const unrefined = rows.filter(inScope(scope));
    const kept =
      refine?.[0]?.field === 'platform' ? (r: Row) => ['x', 'reddit'].includes(r.platform) : notRepost;
    const expected = rows.filter(inScope({ ...scope, ...(refine && { refine: kept }) }));
    const score = overperformance(unrefined);
    if (sort === 'engagement') expected.sort(byEngagement);
    if (sort === 'recency') expected.sort(byRecency);
    if (sort === 'overperformance') expected.sort((a, b) => score(b) - score(a) || b.id - a.id);

    const all = await pages<PostsResponse>(url, {
      query,
      filters: { from: FROM, to: TO },
      sort,
      limit: 7,
      refine,
    });
    const listed = all.flatMap((page) => page.posts);
    expect(listed.map((p) => p.id)).toEqual(expected.map((r) => r.id));
    for (const page of all) {
      expect(page.total).toBe(expected.length);
      expect(page.sort).toBe(sort);
      expect(page.range).toEqual({ from: new Date(FROM).toISOString(), to: new Date(TO).toISOString() });
    }
    for (const p of listed) {
      const row = expected.find((r) => r.id === p.id)!;
      expect(p.engagement).toBe(row.engagement);
      expect(p.author.id).toBe(row.authorId);
      expect(p.posted_at).toBe(new Date(row.at).toISOString());
      expect(p.overperformance).toBe(sort === 'overperformance' ? score(row) : null);
    }
    expect(all.at(-1)!.next_cursor).toBeNull();
    expect(all.length).toBe(Math.max(1, Math.ceil(expected.length / 7)));
  });

  it('gives the author of a single post an overperformance of 1', async () => {
    const all = await pages<PostsResponse>('posts', {
      query: '',
      filters: { from: '2026-10-01T00:00:00Z', to: '2026-11-10T00:00:00Z' },
      sort: 'overperformance',
      limit: 100,
      refine: [{ field: 'author', values: ['solo'] }],
    });
    expect(all[0]!.posts.map((p) => p.overperformance)).toEqual([1]);
  });

  it('keeps the range of the first page when the range ends "now"', async () => {
    const first = await post('posts', { query: '', sort: 'recency', limit: 1 });
    const body = first.json<PostsResponse>();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = await post('posts', { query: '', sort: 'recency', limit: 1, cursor: body.next_cursor });
    expect(second.json<PostsResponse>().range).toEqual(body.range);
  });
});

describe('a cursor with another date range', () => {
  // The range a cursor pages through is the first page's: a request naming another is refused, as discover does.
  it.each(['posts', 'filtered-posts', 'filtered-profiles'])(
    'is a 400 naming the conflict on %s',
    async (url) => {
      const first = await post(url, { query: '', filters: { from: FROM, to: TO }, limit: 1 });
      const cursor = first.json<PostsResponse>().next_cursor;
      expect(cursor).toEqual(expect.any(String));
      for (const filters of [
        { from: '2026-10-26T04:00:00Z', to: TO },
        { from: FROM, to: '2026-11-07T05:00:00Z' },
        { to: TO },
        {},
      ]) {
        const res = await post(url, { query: '', filters, limit: 1, cursor });
        expect(res.statusCode, `${JSON.stringify(filters)}: ${res.body}`).toBe(400);
        expect(res.json()).toEqual({ error: 'invalid_cursor', message: CURSOR_RANGE_CONFLICT });
      }
      // The same range, written with another offset, is the same range.
      const same = await post(url, {
        query: '',
        filters: { from: '2026-10-25T00:00:00-04:00', to: TO },
        limit: 1,
        cursor,
      });
      expect(same.statusCode, same.body).toBe(200);
    },
  );
});

describe('people and filtered-profiles', () => {
  it.each(['', 'coffee OR tea'])('people, query %j', async (query) => {
    const res = await post('people', { query, filters: { from: FROM, to: TO }, limit: 4 });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<PeopleResponse>();
    const ids = await matchingIds(server, query);
    const current = rows.filter(inScope({ ids, from: Date.parse(FROM), to: Date.parse(TO) }));
    const authors = perAuthor(current);
    expect(body.unique_authors).toBe(authors.length);
    expect(body.average_mentions_per_author).toBeCloseTo(current.length / authors.length, 12);
    for (const [key, order] of [
      ['by_mentions', PERSON_ORDER.mentions],
      ['by_followers', PERSON_ORDER.followers],
      ['by_engagement', PERSON_ORDER.engagement],
    ] as const) {
      expect(body[key].map((p) => [p.id, p.mentions, p.engagement, p.followers])).toEqual(
        [...authors]
          .sort(order)
          .slice(0, 4)
          .map((a) => [a.id, a.mentions, a.engagement, a.followers]),
      );
    }
    const alice = body.by_mentions.concat(body.by_followers).find((p) => p.handle === 'Alice');
    if (alice) expect(alice).toMatchObject({ platform: 'x', verified: true, country: 'US', language: 'en' });
  });

  it.each(['mentions', 'followers', 'engagement'] as const)(
    'filtered-profiles by %s, every page',
    async (sort) => {
      const refine = [{ field: 'followers', values: [{ min: 10 }] }];
      const all = await pages<ProfilesResponse>('filtered-profiles', {
        query: '',
        filters: { from: FROM, to: TO },
        sort,
        limit: 3,
        refine,
      });
      const current = rows.filter(
        inScope({ ids: new Set(rows.map((r) => r.id)), from: Date.parse(FROM), to: Date.parse(TO) }),
      );
      const expected = perAuthor(current.filter((r) => r.followers >= 10)).sort(PERSON_ORDER[sort]);
      expect(all.flatMap((p) => p.profiles).map((p) => [p.id, p.mentions, p.engagement])).toEqual(
        expected.map((a) => [a.id, a.mentions, a.engagement]),
      );
      expect(all.every((p) => p.total === expected.length)).toBe(true);
      expect(sum(all.flatMap((p) => p.profiles).map((p) => p.mentions))).toBe(
        current.filter((r) => r.followers >= 10).length,
      );
    },
  );
});
