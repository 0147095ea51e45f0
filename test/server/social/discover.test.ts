// POST /social/discover against a brute-force filter of the fixture corpus: the same posts, in the same order, every
// one exactly once across keyset pages, for several queries, filters and both sorts; the top profiles; the time zone.
import * as z from 'zod/mini';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { workspaces } from '@server/db/schema';
import { discoverResponseSchema, type DiscoverResponse, type DiscoverSort } from '@contract/discover';
import type { QueryFilters } from '@contract/social-scope';
import { explainSentiment } from '@server/social/corpus/sentiment-explain';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, type Team } from '@test/support/workspaces.fixtures';
import {
  buildPosts,
  has,
  hasPhrase,
  insertDiscoverCorpus,
  micros,
  type PostSpec,
} from '@test/support/discover.fixtures';

let server: TestServer;
let team: Team;
const corpus = buildPosts();
let postIds: Map<string, number>;
let authorIds: Map<string, number>;

beforeAll(async () => {
  server = await createTestServer();
  team = await createTeam(server);
  await server.db
    .update(workspaces)
    .set({ timeZone: 'Asia/Seoul' })
    .where(eq(workspaces.id, team.workspaceId));
  ({ postIds, authorIds } = await insertDiscoverCorpus(server, corpus));
});
afterAll(() => server.close());

/** Covers the whole corpus (90 posts, 3 per hour from 2026-03-01). */
const WHOLE: QueryFilters = { from: '2026-02-28T00:00:00Z', to: '2026-03-03T00:00:00Z' };

async function discover(body: Record<string, unknown>): Promise<DiscoverResponse> {
  const res = await as(server, team.viewer, {
    method: 'POST',
    url: '/social/discover',
    payload: { workspace_id: team.workspaceId, ...body },
  });
  expect(res.statusCode, res.body).toBe(200);
  const parsed = z.safeParse(discoverResponseSchema, res.json());
  expect(parsed.success, JSON.stringify(parsed.error)).toBe(true);
  return res.json();
}

/** Every page, following next_cursor. */
async function allPages(body: Record<string, unknown>) {
  const pages: DiscoverResponse[] = [];
  let cursor: string | undefined;
  do {
    const page = await discover({ ...body, ...(cursor && { cursor }) });
    pages.push(page);
    cursor = page.next_cursor ?? undefined;
  } while (cursor && pages.length < 100);
  return pages;
}

function inFilters(post: PostSpec, filters: QueryFilters) {
  return (
    (!filters.platforms?.length || filters.platforms.includes(post.author.platform)) &&
    (!filters.languages?.length || (post.language !== null && filters.languages.includes(post.language))) &&
    (!filters.from || post.micros >= micros(filters.from)) &&
    (!filters.to || post.micros < micros(filters.to))
  );
}

const id = (post: PostSpec) => postIds.get(post.key)!;
/** The explanation the API gives a post stored neutral (as these are). */
function explanation(text: string, language: string | null) {
  const { rated, confidence, signals } = explainSentiment(text, language, 'neutral');
  return { rated, confidence, signals };
}
const byDesc = (a: bigint | number, b: bigint | number) => (a < b ? 1 : a > b ? -1 : 0);
const ORDER: Record<DiscoverSort, (a: PostSpec, b: PostSpec) => number> = {
  recency: (a, b) => byDesc(a.micros, b.micros) || byDesc(id(a), id(b)),
  engagement: (a, b) => byDesc(a.engagement, b.engagement) || byDesc(id(a), id(b)),
};

function bruteForce(match: (post: PostSpec) => boolean, filters: QueryFilters, sort: DiscoverSort) {
  return corpus.filter((post) => match(post) && inFilters(post, filters)).sort(ORDER[sort]);
}

function expectedProfiles(matches: PostSpec[]) {
  const counts = new Map<string, { count: number; followers: number; engagement: number }>();
  for (const post of matches) {
    const entry = counts.get(post.author.key) ?? {
      count: 0,
      followers: post.author.followers,
      engagement: 0,
    };
    counts.set(post.author.key, {
      ...entry,
      count: entry.count + 1,
      engagement: entry.engagement + post.engagement,
    });
  }
  return [...counts.entries()]
    .sort(
      ([ka, a], [kb, b]) =>
        b.count - a.count || b.followers - a.followers || authorIds.get(ka)! - authorIds.get(kb)!,
    )
    .slice(0, 10)
    .map(([key, entry]) => ({ handle: key, matching_posts: entry.count, engagement: entry.engagement }));
}

const countryOf = (post: PostSpec) => post.author.country;
const CASES: Array<[string, (post: PostSpec) => boolean, QueryFilters]> = [
  ['coffee', (p) => has(p, 'coffee'), WHOLE],
  ['coffee OR #latteart', (p) => has(p, 'coffee') || p.hashtags.includes('latteart'), WHOLE],
  ['tea NOT milk', (p) => has(p, 'tea') && !has(p, 'milk'), { ...WHOLE, platforms: ['x', 'instagram'] }],
  ['"cold brew"', (p) => hasPhrase(p, 'cold brew'), { ...WHOLE, languages: ['en', 'es'] }],
  ['platform:x OR lang:es', (p) => p.author.platform === 'x' || p.language === 'es', WHOLE],
  ['country:KR', (p) => countryOf(p) === 'KR', { from: '2026-03-01T05:00:00Z', to: '2026-03-02T01:00:00Z' }],
  ['matcha OR oat', (p) => has(p, 'matcha') || has(p, 'oat'), { ...WHOLE, platforms: ['tiktok'] }],
];

describe('POST /social/discover', () => {
  describe.each(['recency', 'engagement'] as const)('sorted by %s', (sort) => {
    it.each(CASES)('%s: every match once, in order, across pages', async (query, match, filters) => {
      const expected = bruteForce(match, filters, sort);
      expect(expected.length).toBeGreaterThan(0);
      const pages = await allPages({ query, filters, sort, limit: 7 });
      const seen = pages.flatMap((page) => page.posts.map((post) => post.external_id));
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual(expected.map((post) => post.key));
      expect(pages.length).toBe(Math.max(1, Math.ceil(expected.length / 7)));
      expect(pages.at(-1)!.next_cursor).toBeNull();
      // Profiles summarise every match, on the first page only.
      expect(pages[0]!.profiles).toMatchObject(expectedProfiles(expected));
      for (const page of pages.slice(1)) expect(page.profiles).toBeNull();
      for (const page of pages) expect(page.range).toEqual(pages[0]!.range);
    });
  });

  it('answers an empty page when nothing matches', async () => {
    const page = await discover({ query: '"no such phrase"', filters: WHOLE });
    expect(page).toMatchObject({ posts: [], next_cursor: null, profiles: [] });
  });

  it('gives each post its fields and its author', async () => {
    const page = await discover({ query: 'coffee', filters: WHOLE, limit: 1 });
    const expected = bruteForce((p) => has(p, 'coffee'), WHOLE, 'recency')[0]!;
    const author = expected.author;
    expect(page.posts[0]).toEqual({
      id: id(expected),
      platform: author.platform,
      external_id: expected.key,
      url: `https://example.com/p/${expected.key}`,
      text: expected.text,
      language: expected.language,
      posted_at: new Date(Number(expected.micros / 1000n)).toISOString(),
      kind: 'original',
      media: 'text',
      likes: expected.likes,
      comments: expected.comments,
      shares: expected.shares,
      views: null,
      engagement: expected.engagement,
      hashtags: expected.hashtags,
      mentions: [],
      domains: [],
      sentiment: 0,
      sentiment_label: 'neutral',
      sentiment_correction: null,
      // Why the stored label (corpus/sentiment-explain.ts, tested in test/unit): computed as the post is read.
      sentiment_explanation: explanation(expected.text, expected.language),
      // The workspace's tags it carries (test/server/tags/tags-in-dashboards.test.ts): none here.
      tags: [],
      author: {
        id: authorIds.get(author.key),
        platform: author.platform,
        handle: author.key,
        display_name: author.key.toUpperCase(),
        followers: author.followers,
        verified: author.verified,
        avatar_url: `https://example.com/${author.key}.png`,
        country: author.country,
        language: null,
      },
    });
  });

  it("states the workspace's time zone and what was counted in it", async () => {
    const page = await discover({
      query: 'coffee',
      filters: { platforms: ['x', 'tiktok'], from: '2026-03-01T00:00:00Z', to: '2026-03-02T00:00:00Z' },
    });
    expect(page.time_zone).toBe('Asia/Seoul');
    expect(page.range).toEqual({ from: '2026-03-01T00:00:00.000Z', to: '2026-03-02T00:00:00.000Z' });
    expect(page.counted).toContain('1 Mar 2026, 09:00');
    expect(page.counted).toContain('2 Mar 2026, 09:00');
    expect(page.counted).toContain('Asia/Seoul');
    expect(page.counted).toContain('on x and tiktok');
    expect(page.counted).toContain('"coffee"');
  });

  it('searches the last 30 days by default', async () => {
    const before = Date.now();
    const page = await discover({ query: 'coffee' });
    const to = Date.parse(page.range.to);
    expect(to).toBeGreaterThanOrEqual(before - 1000);
    expect(to - Date.parse(page.range.from)).toBe(30 * 86_400_000);
  });
});
