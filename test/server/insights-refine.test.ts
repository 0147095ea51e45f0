// Drill-down refinements: each field, included and excluded, against a brute force over every row (through
// filtered-posts, which lists exactly the posts a chart counts); refinements ANDed; saved queries and their filters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostsResponse } from '../../src/contract/insights-responses';
import { createTestServer, type TestServer } from '../support/server-harness';
import { as, createWorkspace, type Person } from '../support/workspaces.fixtures';
import { allRows, insertCorpus, insertSavedQuery, matchingIds, type Row } from '../support/insights.fixtures';
import { bucketKey, inScope } from '../support/insights-brute-force';

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
