// The CSV exports from the store: the ids of the posts (by engagement, recency and overperformance) and of the
// profiles (by mentions, followers and engagement) exported, their order and the list's total read from the store in
// one statement (server/analytics/figures/export.ts, storeProfilePage), the rows then from PostgreSQL by id. Checked
// against an expectation computed here from the corpus's own columns (a query's words split from the post's text on
// what is not a letter or a digit; engagement = likes + comments + shares; overperformance as documented), not from
// PostgreSQL's list statements.
import { storeMatch } from '@server/analytics/figures/match';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostSort, ProfileSort } from '@contract/insights';
import { storeExportPosts } from '@server/analytics/figures/export';
import type { AnalyticsService } from '@server/analytics/service';
import { exportPosts, exportProfiles } from '@server/social/insights/export';
import type { InsightScope } from '@server/social/insights/request';
import { insertCorpus } from '@test/support/insights.fixtures';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { contextOf, runningService, watchedService, type Case } from './dashboards.fixtures';

let server: TestServer;
let service: AnalyticsService;
let closeService: () => Promise<void>;

interface Post {
  id: number;
  at: number;
  platform: string;
  kind: string;
  words: Set<string>;
  engagement: number;
  author: number;
  followers: number;
}
let posts: Post[];

beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  await insertCorpus(server);
  const running = await runningService(server, 'export');
  service = running.service;
  closeService = running.close;
  const { rows } = await server.pool.query<{
    id: string;
    at: number;
    platform: string;
    kind: string;
    text: string;
    likes: number;
    comments: number;
    shares: number;
    author: string;
    followers: string;
  }>(
    `SELECT p.id, (extract(epoch FROM p.posted_at) * 1000)::float8 AS at, p.platform, p.kind, p.text, p.likes,
      p.comments, p.shares, p.author_id AS author, a.followers
    FROM posts p JOIN profiles a ON a.id = p.author_id`,
  );
  posts = rows.map((row) => ({
    id: Number(row.id),
    at: row.at,
    platform: row.platform,
    kind: row.kind,
    words: new Set(row.text.toLowerCase().split(/[^\p{L}\p{N}]+/u)),
    engagement: row.likes + row.comments + row.shares,
    author: Number(row.author),
    followers: Number(row.followers),
  }));
}, 240_000);
afterAll(async () => {
  await closeService?.();
  await server?.close();
});

const RANGE: [string, string] = ['2026-10-08T00:00:00Z', '2026-11-09T12:00:00Z'];
const QUERY = 'coffee OR tea OR camera';
const PLATFORMS = ['x', 'instagram', 'tiktok', 'youtube'] as const;
const KINDS = ['original', 'reply'] as const;

/** The export's scope: the query and platforms over the range; `refined`: only posts of KINDS. */
const contextFor = (refined: boolean): Promise<InsightScope> =>
  contextOf(server, {
    name: QUERY,
    zone: 'America/New_York',
    range: RANGE,
    query: QUERY,
    platforms: [...PLATFORMS],
    refine: refined ? [{ field: 'kind', values: [...KINDS] }] : [],
  } satisfies Case);

/** The posts of the scope without refinements, from the corpus. */
const scoped = () =>
  posts.filter(
    (post) =>
      post.at >= Date.parse(RANGE[0]) &&
      post.at < Date.parse(RANGE[1]) &&
      (PLATFORMS as readonly string[]).includes(post.platform) &&
      ['coffee', 'tea', 'camera'].some((word) => post.words.has(word)),
  );
const refinedBy = (refined: boolean) => (post: Post) =>
  !refined || (KINDS as readonly string[]).includes(post.kind);

/** The posts exported by `sort`, in order, with their overperformance for that sort. */
function expectedPosts(sort: PostSort, refined: boolean) {
  const inScope = scoped();
  const authors = new Map<number, { n: number; e: number }>();
  for (const post of inScope) {
    const author = authors.get(post.author) ?? { n: 0, e: 0 };
    author.n += 1;
    author.e += post.engagement;
    authors.set(post.author, author);
  }
  const score = (post: Post) => {
    const { n, e } = authors.get(post.author)!;
    return n === 1 || e === 0 ? 1 : (post.engagement * n) / e;
  };
  const key = { engagement: (p: Post) => p.engagement, recency: (p: Post) => p.at, overperformance: score }[
    sort
  ];
  return inScope
    .filter(refinedBy(refined))
    .sort((a, b) => key(b) - key(a) || b.id - a.id)
    .map((post) => ({ id: post.id, score: sort === 'overperformance' ? score(post) : null }));
}

/** The profiles exported by `sort`, in order: each author of the refined scope's posts with their figures. */
function expectedProfiles(sort: ProfileSort, refined: boolean) {
  const authors = new Map<number, { id: number; mentions: number; engagement: number; followers: number }>();
  for (const post of scoped().filter(refinedBy(refined))) {
    const author = authors.get(post.author) ?? {
      id: post.author,
      mentions: 0,
      engagement: 0,
      followers: post.followers,
    };
    author.mentions += 1;
    author.engagement += post.engagement;
    authors.set(post.author, author);
  }
  type A = typeof authors extends Map<number, infer V> ? V : never;
  const order: Record<ProfileSort, (a: A, b: A) => number> = {
    mentions: (a, b) => b.mentions - a.mentions || b.engagement - a.engagement || a.id - b.id,
    followers: (a, b) => b.followers - a.followers || b.mentions - a.mentions || a.id - b.id,
    engagement: (a, b) => b.engagement - a.engagement || b.mentions - a.mentions || a.id - b.id,
  };
  return [...authors.values()].sort(order[sort]);
}

/** The CSV's records (comment lines and header left out), each split at its commas (no field here has one). */
async function records(chunks: AsyncGenerator<string>) {
  let text = '';
  for await (const chunk of chunks) text += chunk;
  const lines = text.split('\r\n').filter((line) => line && !line.startsWith('#'));
  const [header, ...rows] = lines;
  return { header: header!.split(','), rows, text };
}

const SORTS: PostSort[] = ['engagement', 'recency', 'overperformance'];

describe('the posts exported, from the store', () => {
  for (const sort of SORTS) {
    for (const refined of [false, true]) {
      it(`names every post by ${sort}${refined ? ', refined by kind' : ''} in order, and the total`, async () => {
        const context = await contextFor(refined);
        const want = expectedPosts(sort, refined);
        expect(want.length).toBeGreaterThan(30);
        const scope = { context, match: storeMatch() };
        const store = service.reading()!.store;
        expect(await storeExportPosts(store, scope, sort, 100_000)).toEqual({
          total: want.length,
          posts: want,
        });
        // The first 25 only, of the same total.
        expect(await storeExportPosts(store, scope, sort, 25)).toEqual({
          total: want.length,
          posts: want.slice(0, 25),
        });
      });
    }
  }

  it("writes the rows in the store's order, looked up by id a page at a time", async () => {
    const context = await contextFor(true);
    const want = expectedPosts('overperformance', true);
    const statements: string[] = [];
    const { chunks } = await exportPosts(
      server.db,
      context,
      { sort: 'overperformance', max_rows: want.length - 3 },
      { id: 'w', name: 'Store export' },
      new AbortController().signal,
      watchedService(service, statements),
    );
    const { header, rows, text } = await records(chunks);
    expect(rows.map((row) => Number(row.split(',')[0]))).toEqual(want.slice(0, -3).map((post) => post.id));
    const score = header.indexOf('overperformance');
    expect(rows.map((row) => Number(row.split(',')[score]))).toEqual(
      want.slice(0, -3).map((post) => post.score),
    );
    expect(text).toContain(`Rows: the first ${want.length - 3} at most, of ${want.length} posts`);
    // One statement on the store names them all.
    expect(statements).toHaveLength(1);
  });
});

describe('the profiles exported, from the store', () => {
  for (const sort of ['mentions', 'followers', 'engagement'] as const) {
    it(`writes every author by ${sort} in order with their figures, and the total`, async () => {
      const context = await contextFor(true);
      const want = expectedProfiles(sort, true);
      expect(want.length).toBeGreaterThan(3);
      const statements: string[] = [];
      const { chunks } = await exportProfiles(
        server.db,
        context,
        { sort, max_rows: want.length - 1 },
        { name: 'Store export' },
        new AbortController().signal,
        watchedService(service, statements),
      );
      const { header, rows, text } = await records(chunks);
      const column = (name: string) => header.indexOf(name);
      expect(
        rows.map((row) => {
          const fields = row.split(',');
          return {
            id: Number(fields[column('id')]),
            mentions: Number(fields[column('mentions')]),
            engagement: Number(fields[column('engagement')]),
            followers: Number(fields[column('followers')]),
          };
        }),
      ).toEqual(want.slice(0, -1));
      expect(text).toContain(`Rows: the first ${want.length - 1} at most, of ${want.length} profiles`);
      expect(statements).toHaveLength(1);
    });
  }
});
