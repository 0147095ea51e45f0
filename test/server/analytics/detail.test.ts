// The detail pages' figures from the store (server/analytics/figures/detail.ts): a profile's matching posts and
// their engagement per wall-clock day of the workspace's zone (readProfile), over days the clocks go back in, with a
// query and a refinement; and which terms of a query a post matches (readPost). Each against an expectation computed
// here from the corpus's own columns (a query's words split from the post's text on what is not a letter or a digit;
// days through Intl). A store that cannot answer, or does not hold the post yet, is a 503, never a 500.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AnalyticsService } from '@server/analytics/service';
import { NO_CORRECTIONS } from '@server/social/corrections';
import { readPost } from '@server/social/detail/post';
import { readProfile } from '@server/social/detail/profile';
import { parseQuery } from '@server/query/index';
import { bucketKey, bucketKeys } from '@test/support/insights-brute-force';
import { insertCorpus } from '@test/support/insights.fixtures';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { contextOf, runningService, watchedService, type Case } from './dashboards.fixtures';

let server: TestServer;
let service: AnalyticsService;
let closeService: () => Promise<void>;

interface Post {
  id: number;
  hashtags: Set<string>;
  at: number;
  kind: string;
  words: Set<string>;
  engagement: number;
  author: number;
}
let posts: Post[];
let authors: number[];

beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  await insertCorpus(server);
  const running = await runningService(server, 'detail');
  service = running.service;
  closeService = running.close;
  const { rows } = await server.pool.query<{
    id: string;
    hashtags: string[];
    at: number;
    kind: string;
    text: string;
    engagement: number;
    author: string;
  }>(
    `SELECT id, hashtags, (extract(epoch FROM posted_at) * 1000)::float8 AS at, kind, text,
      likes + comments + shares AS engagement, author_id AS author
    FROM posts`,
  );
  posts = rows.map((row) => ({
    id: Number(row.id),
    hashtags: new Set(row.hashtags.map((tag) => tag.toLowerCase())),
    at: row.at,
    kind: row.kind,
    words: new Set(row.text.toLowerCase().split(/[^\p{L}\p{N}]+/u)),
    engagement: Number(row.engagement),
    author: Number(row.author),
  }));
  authors = [...new Set(posts.map((post) => post.author))].sort((a, b) => a - b);
}, 240_000);
afterAll(async () => {
  await closeService?.();
  await server?.close();
});

const ZONE = 'America/New_York';
const RANGE: [string, string] = ['2026-10-25T04:00:00Z', '2026-11-08T05:00:00Z'];

describe("a profile's posts per day, from the store", () => {
  for (const refined of [false, true]) {
    it(`counts each author's matching posts and engagement per day${refined ? ', refined by kind' : ''}`, async () => {
      const context = await contextOf(server, {
        name: 'detail',
        zone: ZONE,
        range: RANGE,
        query: 'coffee OR tea',
        refine: refined ? [{ field: 'kind', values: ['original', 'reply'] }] : [],
      } satisfies Case);
      const days = bucketKeys(Date.parse(RANGE[0]), Date.parse(RANGE[1]), ZONE, 'day');
      let counted = 0;
      for (const author of authors) {
        const mine = posts.filter(
          (post) =>
            post.author === author &&
            post.at >= Date.parse(RANGE[0]) &&
            post.at < Date.parse(RANGE[1]) &&
            (post.words.has('coffee') || post.words.has('tea')) &&
            (!refined || ['original', 'reply'].includes(post.kind)),
        );
        counted += mine.length;
        const want = days.map((local) => {
          const day = mine.filter((post) => bucketKey(post.at, ZONE, 'day') === local);
          return {
            day: local.slice(0, 10),
            posts: day.length,
            engagement: day.reduce((sum, post) => sum + post.engagement, 0),
          };
        });
        const statements: string[] = [];
        const answer = await readProfile(server.db, context, author, watchedService(service, statements));
        expect(statements).toHaveLength(1);
        expect(answer.days.map(({ day, posts, engagement }) => ({ day, posts, engagement }))).toEqual(want);
        expect(answer.totals).toEqual({
          posts: mine.length,
          engagement: mine.reduce((sum, post) => sum + post.engagement, 0),
        });
      }
      // The authors have such posts, or the test would prove little.
      expect(counted).toBeGreaterThan(20);
    });
  }

  it('answers 404 for a profile that does not exist', async () => {
    const context = await contextOf(server, { name: 'none', zone: ZONE, range: RANGE } satisfies Case);
    await expect(readProfile(server.db, context, 987_654_321, service)).rejects.toMatchObject({
      statusCode: 404,
    });
  });
});

describe('the terms a post matches, from the store', () => {
  it('says for each post whether it matches the query and each term, negated under a NOT', async () => {
    const parsed = parseQuery('coffee OR (tea AND NOT camera) OR #launch');
    if (!parsed.ok) throw new Error('The query does not parse');
    const has = (post: Post, word: string) => post.words.has(word);
    const checked = posts.filter((_, i) => i % 4 === 0);
    let matching = 0;
    for (const post of checked) {
      const statements: string[] = [];
      const answer = await readPost(
        server.db,
        { postId: post.id, since: null, query: parsed.ast, timeZone: ZONE, corrections: NO_CORRECTIONS },
        watchedService(service, statements),
      );
      expect(statements).toHaveLength(1);
      const terms = {
        coffee: has(post, 'coffee'),
        tea: has(post, 'tea'),
        camera: has(post, 'camera'),
        '#launch': post.hashtags.has('launch'),
      };
      const matches = terms.coffee || (terms.tea && !terms.camera) || terms['#launch'];
      if (matches) matching += 1;
      expect(Number(answer.post.id)).toBe(post.id);
      expect(answer.matched).toEqual({
        // Its canonical text (AND binds before OR).
        query: 'coffee OR tea AND NOT camera OR #launch',
        matches,
        terms: [
          { term: 'coffee', negated: false, matched: terms.coffee },
          { term: 'tea', negated: false, matched: terms.tea },
          { term: 'camera', negated: true, matched: terms.camera },
          { term: '#launch', negated: false, matched: terms['#launch'] },
        ],
      });
    }
    // Some match and some do not, or the test would prove little.
    expect(matching).toBeGreaterThan(5);
    expect(matching).toBeLessThan(checked.length - 5);
  });
});

describe('when the store cannot say', () => {
  const read = (postId: number, query: string | null) => {
    const parsed = query === null ? null : parseQuery(query);
    if (parsed && !parsed.ok) throw new Error(query!);
    return { postId, since: null, query: parsed?.ast ?? null, timeZone: ZONE, corrections: NO_CORRECTIONS };
  };

  it('reads a post without a query from PostgreSQL alone: a record, not a figure', async () => {
    const statements: string[] = [];
    const answer = await readPost(server.db, read(posts[0]!.id, null), watchedService(service, statements));
    expect(answer.matched).toBeNull();
    expect(Number(answer.post.id)).toBe(posts[0]!.id);
    expect(statements).toEqual([]);
  });

  it('answers 503 figures_unavailable without a store (ANALYTICS_STORE=off)', async () => {
    await expect(readPost(server.db, read(posts[0]!.id, 'coffee'), undefined)).rejects.toMatchObject({
      statusCode: 503,
      code: 'figures_unavailable',
    });
    const context = await contextOf(server, { name: 'off', zone: ZONE, range: RANGE } satisfies Case);
    await expect(readProfile(server.db, context, authors[0]!, undefined)).rejects.toMatchObject({
      statusCode: 503,
      code: 'figures_unavailable',
    });
  });

  it('answers 503 figures_preparing for a post PostgreSQL has and the store does not hold yet', async () => {
    // The store's statement finds no such post.
    const query = vi.spyOn(service.store!, 'query').mockResolvedValueOnce([]);
    try {
      await expect(readPost(server.db, read(posts[0]!.id, 'coffee'), service)).rejects.toMatchObject({
        statusCode: 503,
        code: 'figures_preparing',
      });
      expect(query).toHaveBeenCalledTimes(1);
    } finally {
      query.mockRestore();
    }
  });
});
