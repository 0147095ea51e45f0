// A small corpus for the query-language tests: each post's external id names it, so expectations read as lists of
// names. Texts are chosen for one construct each (positions for NEAR, scripts without spaces, injection look-alikes).
import { sql } from 'drizzle-orm';
import { profiles } from '@server/db/social-schema';
import { compileQuery, parseQuery, QUERY_FROM } from '@server/query/index';
import type { TestServer } from './server-harness';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';

type Platform = (typeof profiles.$inferInsert)['platform'];

const AUTHORS: Array<{ key: string; platform: Platform; handle: string; country: string | null }> = [
  { key: 'alice', platform: 'x', handle: 'Alice', country: 'US' },
  { key: 'bob', platform: 'instagram', handle: 'bob.kim', country: 'KR' },
  { key: 'carla', platform: 'tiktok', handle: 'carla_es', country: 'ES' },
  { key: 'hana', platform: 'youtube', handle: 'hana', country: 'JP' },
  { key: 'anon', platform: 'reddit', handle: 'anon', country: null },
];

interface PostSpec {
  author: string;
  language: string | null;
  text: string;
  hashtags?: string[];
  mentions?: string[];
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
  decaf: { author: 'anon', language: null, text: "Don't drink decaf coffee, it's pointless" },
  shop: { author: 'alice', language: 'en', text: 'The coffee shop near my house is great' },
  fire: { author: 'bob', language: 'en', text: 'tea time with friends 🔥', mentions: ['alice'] },
  vax: { author: 'carla', language: 'es', text: 'covid-19 vaccines for baristas' },
  inject: {
    author: 'anon',
    language: 'en',
    text: "'; DROP TABLE posts; -- a') OR 1=1 -- 100% under_score back\\slash",
  },
  better: { author: 'alice', language: 'en', text: 'Tea is much better than coffee' },
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
    })),
  );
}

/** The names of the posts a query matches, sorted; throws with the parser's errors for an invalid query. */
export async function matching(server: TestServer, query: string): Promise<string[]> {
  const parsed = parseQuery(query);
  if (!parsed.ok) throw new Error(`Invalid query ${JSON.stringify(query)}: ${JSON.stringify(parsed.errors)}`);
  const result = await server.db.execute<{ external_id: string }>(
    sql`SELECT p.external_id FROM ${QUERY_FROM} WHERE ${compileQuery(parsed.ast)} ORDER BY p.external_id`,
  );
  return result.rows.map((row) => row.external_id);
}

export const except = (...keys: string[]) => ALL.filter((key) => !keys.includes(key));
