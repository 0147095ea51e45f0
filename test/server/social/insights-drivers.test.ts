// POST /social/insights/drivers on a generated corpus (server/social/corpus/generate: its outage topic bursts 12 days
// before the corpus's end): the overview's spike bucket explained by the outage's own hashtags and words; the window's
// posts are the bucket's mentions; every driver's drill-down (filtered-posts with its refinement over the window) lists
// exactly its posts; the first driver's top posts carry it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driverRefine, type DriversResponse } from '@contract/insights-drivers';
import type { OverviewResponse, PostsResponse } from '@contract/insights-responses';
import { generateCorpus } from '@server/social/corpus/generate/load';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createWorkspace, type Person } from '@test/support/workspaces.fixtures';

let server: TestServer;
let viewer: Person;
let workspaceId: string;
const RANGE = { from: '2026-10-16T00:00:00Z', to: '2026-11-15T00:00:00Z' };

beforeAll(async () => {
  server = await createTestServer();
  viewer = await server.createUser();
  workspaceId = (await createWorkspace(server, [[viewer, 'viewer']], { timeZone: 'UTC' })).id;
  await generateCorpus(server.pool, { seed: 56, posts: 4_000, end: Date.parse(RANGE.to), batchSize: 2_000 });
}, 120_000);
afterAll(() => server.close());

async function post<T>(url: string, body: Record<string, unknown>): Promise<T> {
  const res = await as(server, viewer, {
    method: 'POST',
    url: `/social/insights/${url}`,
    payload: { workspace_id: workspaceId, query: '', ...body },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<T>();
}

describe('why this spike', () => {
  it("explains the outage's spike by its own values, each a drill-down to exactly its posts", async () => {
    const overview = await post<OverviewResponse>('overview', { filters: RANGE });
    // The outage bursts from 08:00 UTC 12 days before the end (3 November); other topics spike on other days.
    const spike = overview.over_time.find((b) => b.spike && b.start === '2026-11-03T00:00:00.000Z');
    expect(spike, 'the outage makes a spike').toBeDefined();
    const window = {
      from: spike!.start,
      to: new Date(Date.parse(spike!.start) + 86_400_000).toISOString(),
    };
    const answer = await post<DriversResponse>('drivers', { filters: window });
    expect(answer.range).toEqual({ from: window.from, to: window.to });
    expect(answer.baseline.kind).toBe('same_hours');
    expect(answer.baseline.windows).toHaveLength(7);
    expect(answer.posts.window).toBe(spike!.mentions);
    expect(answer.posts.excess).toBeGreaterThan(0);
    expect(answer.counted).toMatch(/Dunning's log-likelihood G²/);
    // The outage's own hashtags lead.
    const first = answer.drivers.slice(0, 3).map((d) => d.label.toLowerCase());
    expect(
      first.some((label) => /cloudnest|outage/.test(label)),
      first.join(', '),
    ).toBe(true);
    // Ranked by G², each over-represented: a larger share of the window than of the baseline.
    answer.drivers.forEach((d, i) => {
      if (i) expect(d.g2).toBeLessThanOrEqual(answer.drivers[i - 1]!.g2);
      expect(d.posts / answer.posts.window).toBeGreaterThan(d.baseline_posts / answer.posts.baseline);
    });
    for (const driver of answer.drivers.slice(0, 5)) {
      const list = await post<PostsResponse>('filtered-posts', {
        filters: window,
        refine: [driverRefine(driver)],
        limit: 1,
      });
      expect(list.total, `${driver.kind} ${driver.value}`).toBe(driver.posts);
    }
    expect(answer.top_posts.length).toBeGreaterThan(0);
    const top = await post<PostsResponse>('filtered-posts', {
      filters: window,
      refine: [driverRefine(answer.drivers[0]!)],
      sort: 'engagement',
      limit: answer.top_posts.length,
    });
    expect(answer.top_posts.map((p) => p.id)).toEqual(top.posts.map((p) => p.id));
  });

  it('compares a window longer than a day with the range just before it', async () => {
    const answer = await post<DriversResponse>('drivers', {
      filters: { from: '2026-11-01T00:00:00Z', to: '2026-11-08T00:00:00Z' },
      limit: 3,
    });
    expect(answer.baseline).toMatchObject({
      kind: 'previous',
      windows: [{ from: '2026-10-25T00:00:00.000Z', to: '2026-11-01T00:00:00.000Z' }],
    });
    expect(answer.drivers.length).toBeLessThanOrEqual(3);
  });
});
