// A small corpus for the query-language tests: each post's external id names it, so expectations read as lists of
// names. Texts are chosen for one construct each (positions for NEAR, scripts without spaces, injection look-alikes).
// What a query matches is asked of the reference evaluator (test/support/reference/query.ts) and of the analytics
// store the test server runs, each by the posts' names.
import { profiles } from '@server/db/social-schema';
import { STORE_DATABASE } from '@server/analytics/layout';
import { storeCondition } from '@server/analytics/matching/count';
import { parseQuery } from '@server/query/index';
import { matching as referenceMatching, type RefPost } from './reference/query';
import type { TestServer } from './server-harness';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import { normaliseDomains } from '@contract/domains';

type Platform = (typeof profiles.$inferInsert)['platform'];

const AUTHORS: Array<{ key: string; platform: Platform; handle: string; country: string | null }> = [
  { key: 'alice', platform: 'x', handle: 'Alice', country: 'US' },
  { key: 'bob', platform: 'instagram', handle: 'bob.kim', country: 'KR' },
  { key: 'carla', platform: 'tiktok', handle: 'carla_es', country: 'ES' },
  { key: 'hana', platform: 'youtube', handle: 'hana', country: 'JP' },
  { key: 'anon', platform: 'reddit', handle: 'anon', country: null },
  { key: 'lena', platform: 'mastodon', handle: 'lena@mastodon.social', country: 'DE' },
];

interface PostSpec {
  author: string;
  language: string | null;
  text: string;
  hashtags?: string[];
  mentions?: string[];
  /** Links as a source gives them (stored as registrable domains). */
  links?: string[];
  /** The post's address at its source (a Reddit permalink names its subreddit). */
  url?: string;
}

const POSTS: Record<string, PostSpec> = {
  love: {
    author: 'alice',
    language: 'en',
    text: 'I love coffee and tea in the morning #Coffee @Starbucks',
    hashtags: ['coffee'],
    mentions: ['starbucks'],
  },
  flat: { author: 'alice', language: 'en', text: 'Flat white is the best coffee', hashtags: ['coffee'] },
  seoul: { author: 'bob', language: 'ko', text: '서울에서 커피 마시는 중 #커피', hashtags: ['커피'] },
  cafe: { author: 'carla', language: 'es', text: 'Me encanta el café con leche' },
  tokyo: {
    author: 'hana',
    language: 'ja',
    text: '東京タワーに行った！ラーメン大好き #東京',
    hashtags: ['東京'],
  },
  decaf: {
    author: 'anon',
    language: null,
    text: "Don't drink decaf coffee, it's pointless",
    url: 'https://www.reddit.com/r/Coffee/comments/1a2b3c/dont_drink_decaf/',
  },
  shop: { author: 'alice', language: 'en', text: 'The coffee shop near my house is great' },
  fire: { author: 'bob', language: 'en', text: 'tea time with friends 🔥', mentions: ['alice'] },
  vax: { author: 'carla', language: 'es', text: 'covid-19 vaccines for baristas' },
  inject: {
    author: 'anon',
    language: 'en',
    text: "'; DROP TABLE posts; -- a') OR 1=1 -- 100% under_score back\\slash",
    url: "https://old.reddit.com/r/Bobby_Tables/comments/9/'); DROP TABLE posts; --",
  },
  // A Reddit permalink on another platform's post: no subreddit of it.
  better: {
    author: 'alice',
    language: 'en',
    text: 'Tea is much better than coffee',
    url: 'https://www.reddit.com/r/coffee/comments/2/',
  },
  toot: { author: 'lena', language: 'de', text: 'Neue Notizen', links: ['https://Docs.Murmur.app/notes'] },
};

export const ALL = Object.keys(POSTS).sort();

export async function insertCorpus(server: TestServer) {
  const authorIds = new Map<string, number>();
  for (const author of AUTHORS) {
    const [rowId] = await insertProfiles(server.db, [
      {
        platform: author.platform,
        externalId: author.key,
        handle: author.handle,
        displayName: author.key,
        country: author.country,
      },
    ]);
    authorIds.set(author.key, rowId!);
  }
  await insertPosts(
    server.db,
    Object.entries(POSTS).map(([key, post]) => ({
      platform: AUTHORS.find((author) => author.key === post.author)!.platform,
      externalId: key,
      authorId: authorIds.get(post.author)!,
      text: post.text,
      language: post.language,
      postedAt: new Date('2026-01-01T00:00:00Z'),
      hashtags: post.hashtags ?? [],
      mentions: post.mentions ?? [],
      domains: normaliseDomains(post.links ?? []),
      url: post.url ?? null,
    })),
  );
}

/** The posts as the reference evaluator sees them: what the query language reads (text, tags, author), the rest zero. */
const REFERENCE: RefPost[] = Object.values(POSTS).map((post, id) => {
  const author = AUTHORS.find((a) => a.key === post.author)!;
  return {
    id,
    at: Date.parse('2026-01-01T00:00:00Z'),
    platform: author.platform,
    language: post.language,
    kind: 'original',
    media: 'text',
    text: post.text,
    likes: 0,
    comments: 0,
    shares: 0,
    views: null,
    hashtags: post.hashtags ?? [],
    mentions: post.mentions ?? [],
    domains: normaliseDomains(post.links ?? []),
    url: post.url ?? null,
    sentiment: 0,
    label: 'neutral',
    rated: true,
    authorId: AUTHORS.indexOf(author),
    handle: author.handle,
    followers: 0,
    country: author.country,
  };
});

const parsedOrThrow = (query: string) => {
  const parsed = parseQuery(query);
  if (!parsed.ok) throw new Error(`Invalid query ${JSON.stringify(query)}: ${JSON.stringify(parsed.errors)}`);
  return parsed.ast;
};

/** The names of the posts a query matches by the reference evaluator, sorted; throws for an invalid query. */
export function matching(query: string): string[] {
  return referenceMatching(parsedOrThrow(query), REFERENCE)
    .map((post) => Object.keys(POSTS)[post.id]!)
    .sort();
}

/** The names of the posts the server's analytics store matches, sorted (once it holds every post written). */
export async function storeMatching(server: TestServer, query: string): Promise<string[]> {
  await server.storeCaughtUp();
  const condition = storeCondition({ query: parsedOrThrow(query), platforms: [], languages: [] });
  const ids = await server.analytics!.store!.query<{ id: string }>(
    `SELECT toString(p.id) AS id FROM ${STORE_DATABASE}.posts p WHERE ${condition.sql}`,
    condition.params,
  );
  const { rows } = await server.pool.query<{ external_id: string }>(
    'SELECT external_id FROM posts WHERE id = ANY($1::bigint[])',
    [ids.map((row) => row.id)],
  );
  return rows.map((row) => row.external_id).sort();
}

export const except = (...keys: string[]) => ALL.filter((key) => !keys.includes(key));
