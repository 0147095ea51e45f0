// POST /social/insights/themes on a generated corpus (server/social/corpus/generate: topics with their own words and
// an outage that bursts 12 days before the corpus's end): themes of the range, each of several words, listed most
// posts first; every theme's drill-down (filtered-posts with its words as one `term` refinement) lists exactly its
// posts, and its top posts are that list's first by engagement; its buckets add up to its posts; its rise is its posts
// against the range before's; the same request answers the same themes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { themeRefine, type ThemesResponse } from '@contract/insights-themes';
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
  await generateCorpus(server.pool, { seed: 57, posts: 4_000, end: Date.parse(RANGE.to), batchSize: 2_000 });
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

describe('themes of a range', () => {
  it('groups the frequent words into themes, each a drill-down to exactly its posts', async () => {
    const answer = await post<ThemesResponse>('themes', { filters: RANGE, limit: 6 });
    const overview = await post<OverviewResponse>('overview', { filters: RANGE });
    expect(answer.posts).toBe(overview.totals.mentions.value);
    expect(answer.bucket).toBe(overview.bucket);
    expect(answer.counted).toMatch(/Jaccard index/);
    expect(answer.themes.length).toBeGreaterThan(1);
    expect(answer.themes.length).toBeLessThanOrEqual(6);
    const seen = new Set<string>();
    answer.themes.forEach((theme, i) => {
      if (i) expect(theme.posts).toBeLessThanOrEqual(answer.themes[i - 1]!.posts);
      expect(theme.terms.length).toBeGreaterThanOrEqual(2);
      // A word is in one theme at most.
      for (const term of theme.terms) {
        expect(seen.has(term.value), term.value).toBe(false);
        seen.add(term.value);
      }
      expect(theme.over_time.map((b) => b.start)).toEqual(overview.over_time.map((b) => b.start));
      expect(theme.over_time.reduce((sum, b) => sum + b.posts, 0)).toBe(theme.posts);
      const { positive, neutral, negative, not_rated } = theme.sentiment;
      expect(positive + neutral + negative + not_rated).toBe(theme.posts);
      expect(theme.rise).toBe(theme.previous_posts ? theme.posts / theme.previous_posts : null);
    });
    for (const theme of answer.themes) {
      const list = await post<PostsResponse>('filtered-posts', {
        filters: RANGE,
        refine: [themeRefine(theme)],
        sort: 'engagement',
        limit: theme.top_posts.length || 1,
      });
      expect(list.total, theme.terms.map((t) => t.value).join(' ')).toBe(theme.posts);
      expect(theme.top_posts.map((p) => p.id)).toEqual(list.posts.map((p) => p.id));
      const before = await post<PostsResponse>('filtered-posts', {
        filters: answer.previous_range,
        refine: [themeRefine(theme)],
        limit: 1,
      });
      expect(before.total).toBe(theme.previous_posts);
    }
    // The same request, the same themes (the answer cache aside: another limit is another request).
    const again = await post<ThemesResponse>('themes', { filters: RANGE, limit: 7 });
    expect(again.themes.slice(0, answer.themes.length)).toEqual(answer.themes);
  });
});
