// "Not rated" counted apart (issue 53, item 4; docs/sentiment.md, "Not rated in the dashboards"), through the routes
// and a running analytics store: posts recorded as too short to rate (posts.sentiment_rated false) are the
// overview's `not_rated`, in no label of its split, and out of its averages and the performance dashboard's; a post
// without a rating (stored before migration 0041) counts as rated; a corrected post is rated; the `sentiment`
// refinement's `neutral` takes the not-rated posts with the neutral ones.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OverviewResponse, PerformanceResponse } from '@contract/insights-responses';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createWorkspace, type Person } from '@test/support/workspaces.fixtures';

let server: TestServer;
let viewer: Person;
let workspaceId: string;
let ids: number[];

// The posts: [sentiment, label, rated (undefined: not recorded, as before migration 0041)].
const POSTS = [
  [0.8, 'positive', true],
  [-0.6, 'negative', true],
  [0.1, 'neutral', true],
  [0.05, 'neutral', false],
  [-0.02, 'neutral', false],
  [0.2, 'neutral', undefined],
] as const;
const RANGE = { from: '2026-09-01T00:00:00Z', to: '2026-09-02T00:00:00Z' };

beforeAll(async () => {
  server = await createTestServer();
  viewer = await server.createUser();
  workspaceId = (await createWorkspace(server, [[viewer, 'owner']], { timeZone: 'UTC' })).id;
  const [authorId] = await insertProfiles(server.db, [
    { platform: 'x', externalId: 'nr-a', handle: 'nr', displayName: 'NR', followers: 10 },
  ]);
  ids = await insertPosts(
    server.db,
    POSTS.map(([sentiment, label, rated], i) => ({
      platform: 'x' as const,
      externalId: `nr-${i}`,
      authorId: authorId!,
      text: `post ${i}`,
      postedAt: new Date(Date.parse(RANGE.from) + (i + 1) * 3_600_000),
      sentiment,
      sentimentLabel: label,
      ...(rated === undefined ? {} : { sentimentRated: rated }),
    })),
  );
}, 120_000);
afterAll(() => server?.close());

async function figures<T>(dashboard: string, extra = {}) {
  const res = await as(server, viewer, {
    method: 'POST',
    url: `/social/insights/${dashboard}`,
    payload: { workspace_id: workspaceId, query: '', filters: RANGE, ...extra },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<T>();
}

const average = (values: number[]) => values.reduce((s, v) => s + v, 0) / values.length;

describe('"not rated" in the dashboards', () => {
  it('is counted apart from the split, and left out of the averages', async () => {
    const body = await figures<OverviewResponse>('overview');
    expect(body.totals.mentions.value).toBe(6);
    expect(body.sentiment).toMatchObject({ positive: 1, negative: 1, neutral: 2, not_rated: 2 });
    const rated = average([0.8, -0.6, 0.1, 0.2]);
    expect(body.sentiment.average).toBeCloseTo(rated, 6);
    const buckets = body.over_time.filter((b) => b.mentions > 0);
    expect(buckets.reduce((s, b) => s + (b.not_rated ?? 0), 0)).toBe(2);
    for (const b of buckets) {
      expect(b.positive + b.neutral + b.negative + b.not_rated!).toBe(b.mentions);
      // A bucket of one not-rated post has no average.
      if (b.not_rated === b.mentions) expect(b.average_sentiment).toBeNull();
    }
    expect(body.counted).toContain('count rated posts only');

    const performance = await figures<PerformanceResponse>('performance');
    expect(performance.totals.average_sentiment).toBeCloseTo(rated, 6);
    expect(performance.counted).toContain('the average sentiment is over the rated posts');
  });

  it('counts a corrected post as rated, with its correction', async () => {
    await server.pool.query(
      `INSERT INTO sentiment_corrections (workspace_id, post_id, label, corrected_by) VALUES ($1, $2, 'negative', $3)`,
      [workspaceId, ids[3], viewer.id],
    );
    try {
      const body = await figures<OverviewResponse>('overview');
      expect(body.sentiment).toMatchObject({ positive: 1, negative: 2, neutral: 2, not_rated: 1 });
      expect(body.sentiment.average).toBeCloseTo(average([0.8, -0.6, 0.1, 0.2, -1]), 6);
    } finally {
      await server.pool.query('DELETE FROM sentiment_corrections WHERE workspace_id = $1', [workspaceId]);
    }
  });

  it('drills down to each row of the split: `neutral` the rated neutral posts, `not_rated` the others', async () => {
    const neutral = await figures<OverviewResponse>('overview', {
      refine: [{ field: 'sentiment', values: ['neutral'] }],
    });
    expect(neutral.totals.mentions.value).toBe(2);
    expect(neutral.sentiment).toMatchObject({ positive: 0, negative: 0, neutral: 2, not_rated: 0 });
    const unrated = await figures<OverviewResponse>('overview', {
      refine: [{ field: 'sentiment', values: ['not_rated'] }],
    });
    expect(unrated.totals.mentions.value).toBe(2);
    expect(unrated.sentiment).toMatchObject({ positive: 0, negative: 0, neutral: 0, not_rated: 2 });
    expect(unrated.counted).toContain('sentiment not rated');
  });
});
