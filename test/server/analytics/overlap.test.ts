// Compare's overlap from the store (server/analytics/figures/overlap.ts): the posts of the range matching two or more
// of the compared queries, and per pair the posts matching both, against an expectation computed here from the
// corpus's own columns (the words of each post's text split on what is not a letter or a digit, its hashtags, its
// platform, language and time), not from PostgreSQL's query compiler. Then the same through Compare (compare.ts),
// which reads it from the store when the store can answer.
import { storeMatch } from '@server/analytics/figures/match';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeOverlap } from '@server/analytics/figures/overlap';
import type { AnalyticsService } from '@server/analytics/service';
import { compare } from '@server/social/insights/compare';
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
  language: string | null;
  words: Set<string>;
  hashtags: Set<string>;
}
let posts: Post[];

beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  await insertCorpus(server);
  const running = await runningService(server, 'overlap');
  service = running.service;
  closeService = running.close;
  const { rows } = await server.pool.query<{
    id: string;
    at: number;
    platform: string;
    language: string | null;
    text: string;
    hashtags: string[];
  }>(
    `SELECT id, (extract(epoch FROM posted_at) * 1000)::float8 AS at, platform, language, text, hashtags
    FROM posts`,
  );
  posts = rows.map((row) => ({
    id: Number(row.id),
    at: row.at,
    platform: row.platform,
    language: row.language,
    words: new Set(row.text.toLowerCase().split(/[^\p{L}\p{N}]+/u)),
    hashtags: new Set(row.hashtags.map((tag) => tag.toLowerCase())),
  }));
}, 240_000);
afterAll(async () => {
  await closeService?.();
  await server?.close();
});

/** A compared query: its text for the server, and the same meaning written here over a post. */
interface Compared {
  query: string;
  platforms?: Array<'x' | 'instagram' | 'tiktok' | 'reddit'>;
  languages?: string[];
  matches: (post: Post) => boolean;
}

const anyWord =
  (...words: string[]) =>
  (post: Post) =>
    words.some((word) => post.words.has(word));

const COMPARED: Compared[] = [
  { query: 'coffee OR tea', matches: anyWord('coffee', 'tea') },
  { query: '#launch', languages: ['en', 'es'], matches: (post) => post.hashtags.has('launch') },
  {
    query: 'outage OR camera',
    platforms: ['x', 'instagram', 'tiktok'],
    matches: anyWord('outage', 'camera'),
  },
  // Posts of unknown language match no language filter.
  { query: 'battery OR phone OR love', languages: ['en'], matches: anyWord('battery', 'phone', 'love') },
  // No query: every post of the platform.
  { query: '', platforms: ['reddit'], matches: () => true },
];

const RANGES: Array<[string, string]> = [
  ['2026-10-25T04:00:00Z', '2026-11-08T05:00:00Z'],
  ['2026-10-31T16:00:00Z', '2026-11-02T05:00:00Z'],
  ['2026-03-01T00:00:00Z', '2026-11-12T00:00:00Z'],
];

/** The overlap of `compared` over `range`, from the corpus. */
function expected(compared: Compared[], [from, to]: [string, string]) {
  const inScope = ({ platforms, languages, matches }: Compared) =>
    new Set(
      posts
        .filter(
          (post) =>
            post.at >= Date.parse(from) &&
            post.at < Date.parse(to) &&
            (!platforms?.length || platforms.includes(post.platform as never)) &&
            (!languages?.length || (post.language !== null && languages.includes(post.language))) &&
            matches(post),
        )
        .map((post) => post.id),
    );
  const matched = compared.map(inScope);
  const posts2 = posts.filter((post) => matched.filter((set) => set.has(post.id)).length >= 2).length;
  const pairs: Array<{ a: number; b: number; posts: number }> = [];
  for (let a = 0; a < matched.length; a += 1)
    for (let b = a + 1; b < matched.length; b += 1)
      pairs.push({ a, b, posts: [...matched[a]!].filter((id) => matched[b]!.has(id)).length });
  return { posts: posts2, pairs };
}

const contextsOf = (compared: Compared[], range: [string, string], zone = 'America/New_York') =>
  Promise.all(
    compared.map((c) =>
      contextOf(server, {
        name: c.query,
        zone,
        range,
        query: c.query,
        platforms: c.platforms,
        languages: c.languages,
      } satisfies Case),
    ),
  );

describe('the overlap from the store', () => {
  for (const range of RANGES) {
    it(`counts the posts matching two or more queries and each pair's, ${range.join(' to ')}`, async () => {
      const contexts = await contextsOf(COMPARED, range);
      const scopes = await Promise.all(contexts.map(async (context) => ({ context, match: storeMatch() })));
      const overlap = await storeOverlap(service.reading()!.store, scopes);
      const want = expected(COMPARED, range);
      expect({
        posts: overlap.posts,
        pairs: overlap.pairs.map((posts, i) => ({ ...want.pairs[i]!, posts })),
      }).toEqual(want);
      // The corpus makes them overlap, or the test would prove little.
      expect(want.posts).toBeGreaterThan(0);
    });
  }

  it('answers two queries with one pair, and none overlapping as 0', async () => {
    const range = RANGES[0]!;
    const disjoint: Compared[] = [
      { query: 'coffee', platforms: ['x'], matches: anyWord('coffee') },
      { query: 'coffee', platforms: ['reddit'], matches: anyWord('coffee') },
    ];
    const contexts = await contextsOf(disjoint, range);
    const scopes = await Promise.all(contexts.map(async (context) => ({ context, match: storeMatch() })));
    expect(await storeOverlap(service.reading()!.store, scopes)).toEqual({ posts: 0, pairs: [0] });
    expect(expected(disjoint, range)).toEqual({ posts: 0, pairs: [{ a: 0, b: 1, posts: 0 }] });
  });
});

describe('Compare with the store', () => {
  it('answers the overlap the corpus gives, read from the store', async () => {
    const range = RANGES[0]!;
    const contexts = await contextsOf(COMPARED, range);
    const statements: string[] = [];
    const watched = watchedService(service, statements);
    const answer = await compare(
      server.db,
      contexts.map((context, i) => ({ ...context, savedQueryId: `saved-${i}` })),
      watched,
    );
    expect(answer.overlap).toEqual(expected(COMPARED, range));
    // The overlap's statement went to the store (each overview's did too).
    expect(statements.filter((statement) => statement.includes('countIf(toUInt8(m0)'))).toHaveLength(1);
  });
});
