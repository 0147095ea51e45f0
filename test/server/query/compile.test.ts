// The query language's meaning on a small corpus: each construct, and SQL look-alikes in every field, match exactly
// the posts expected, by the reference evaluator (test/support/reference/query.ts) and by the analytics store the
// test server runs; the store's count for the query editor.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseQuery } from '@server/query/index';
import { StoreParams } from '@server/analytics/params';
import { compileStoreCandidates } from '@server/analytics/matching/candidates';
import { compileStoreQuery } from '@server/analytics/matching/compile';
import { countQueryMatches } from '@server/social/editor/count';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { ALL, except, insertCorpus, matching, storeMatching } from '@test/support/query-corpus.fixtures';

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer();
  await insertCorpus(server);
});
afterAll(() => server.close());

const COFFEE = ['better', 'decaf', 'flat', 'love', 'shop'];

describe('each construct matches exactly the expected posts', () => {
  it.each<[string, string[]]>([
    ['coffee', COFFEE],
    ['COFFEE', COFFEE],
    ['coffee tea', ['better', 'love']],
    ['coffee AND tea', ['better', 'love']],
    ['coffee OR tea', ['better', 'decaf', 'fire', 'flat', 'love', 'shop']],
    ['coffee NOT decaf', ['better', 'flat', 'love', 'shop']],
    ['NOT coffee', except(...COFFEE)],
    ['"flat white"', ['flat']],
    ['"FLAT   white"', ['flat']],
    ['"white flat"', []],
    ['barist*', ['vax']],
    ['coff*', COFFEE],
    ['#coffee', ['flat', 'love']],
    ['#COFFEE', ['flat', 'love']],
    ['@starbucks', ['love']],
    ['@Alice', ['fire']],
    ['author:alice', ['better', 'flat', 'love', 'shop']],
    ['author:@BOB.KIM', ['fire', 'seoul']],
    ['platform:instagram', ['fire', 'seoul']],
    ['site:TikTok', ['cafe', 'vax']],
    ['lang:es', ['cafe', 'vax']],
    ['NOT lang:en', ['cafe', 'decaf', 'seoul', 'tokyo', 'toot', 'vax']],
    ['country:kr', ['fire', 'seoul']],
    ['NOT country:US', except('better', 'flat', 'love', 'shop')],
    ['coffee NEAR/4 house', ['shop']],
    ['coffee NEAR/3 house', []],
    ['house NEAR/4 coffee', ['shop']],
    ['tea NEAR/5 coffee', ['better', 'love']],
    ['tea NEAR/4 coffee', ['love']],
    ['coffee NEAR/2 tea', ['love']],
    ['coffee NEAR/1 tea', []],
    ['("flat white" OR decaf) NEAR/4 coffee', ['decaf', 'flat']],
    ['("flat white" OR decaf) NEAR/3 coffee', ['decaf']],
    ['coff* NEAR/1 shop', ['shop']],
    ['NOT (coffee NEAR/1 shop) coffee', ['better', 'decaf', 'flat', 'love']],
    ['東京', ['tokyo']],
    ['ラーメン', ['tokyo']],
    ['"東京タワー"', ['tokyo']],
    ['東京*', ['tokyo']],
    ['서울', ['seoul']],
    ['커피', ['seoul']],
    ['#東京', ['tokyo']],
    ['#커피', ['seoul']],
    ['café', ['cafe']],
    ['CAFÉ', ['cafe']],
    ['cafe', []],
    ['🔥', ['fire']],
    ["don't", ['decaf']],
    ["it's", ['decaf']],
    ['covid-19', ['vax']],
    ['(coffee OR tea) platform:x NOT #coffee', ['better', 'shop']],
    ['coffee tea OR 東京', ['better', 'love', 'tokyo']],
    // An OR's words, prefixes, masks, hashtags and mentions are read as one slice set (compile.ts, sliceUnion).
    [
      'coffee OR tea OR barist* OR #東京 OR @starbucks',
      ['better', 'decaf', 'fire', 'flat', 'love', 'shop', 'tokyo', 'vax'],
    ],
    ['cof?ee OR tea OR 東京 OR "flat white"', ['better', 'decaf', 'fire', 'flat', 'love', 'shop', 'tokyo']],
    ['coffee NOT (decaf OR tea OR #東京 OR sho*)', ['flat']],
    ['(coffee OR tea) NEAR/2 (tea OR shop)', ['love', 'shop']],
    ['"white flat"~1', ['flat']],
    ['"house coffee"~1', []],
    ['"house coffee"~3', ['shop']],
    // A repeated word needs as many occurrences: love's "coffee … #Coffee" are 6 positions apart.
    ['"coffee coffee"~5', ['love']],
    ['"coffee coffee"~4', []],
    // Linked sites by registrable domain (`url:` the same), sources, fediverse servers.
    ['site:murmur.app', ['toot']],
    ['site:news.murmur.app', ['toot']],
    ['url:https://www.murmur.app/x', ['toot']],
    ['site:bbc.co.uk', []],
    ['site:mastodon', ['toot']],
    ['source:mastodon', ['toot']],
    ['instance:Mastodon.Social', ['toot']],
    ['instance:social.example', []],
    ['NOT instance:mastodon.social lang:de', []],
    // A Reddit post's community, from its permalink; `better` links to r/coffee's but is no Reddit post.
    ['subreddit:coffee', ['decaf']],
    ['subreddit:r/COFFEE', ['decaf']],
    ['subreddit:bobby_tables', ['inject']],
    ['subreddit:tea', []],
    ['subreddit:coffee OR subreddit:Bobby_Tables', ['decaf', 'inject']],
    ['NOT subreddit:coffee coffee', ['better', 'flat', 'love', 'shop']],
  ])('%s', async (query, expected) => {
    expect(matching(query)).toEqual(expected);
    expect(await storeMatching(server, query)).toEqual(expected);
  });
});

// Every field of the language with SQL (and tsquery, and LIKE) look-alikes: each is a syntax error or a safe literal
// that matches exactly what its text says.
const INJECTIONS: Array<[string, string[] | 'error']> = [
  ["'; DROP TABLE posts; --", 'error'],
  ['"\'; DROP TABLE posts; --"', ['inject']],
  ["a') OR 1=1 --", 'error'],
  ['"a\') OR 1=1 --"', ['inject']],
  ["x' OR 'x'='x", []],
  ["O'Reilly\\", []],
  ['back\\slash', ['inject']],
  ['"back\\slash"', ['inject']],
  ['\\', 'error'],
  ["'", 'error'],
  ['100%', ['inject']],
  ['"100%"', ['inject']],
  ['%', 'error'],
  ['_', 'error'],
  ['"%_"', 'error'],
  ['under_score', ['inject']],
  ['a&b !a a<->b a|b', []],
  // A wildcard is one word's prefix, and no word holds a quote (server/query/README.md).
  ["it'*", []],
  ["O'Re*", []],
  ['ab\\*', []],
  ['a|b:*', []],
  ['%%*', 'error'],
  ["#coffee'--", 'error'],
  ['#%', 'error'],
  ['#_', []],
  ['@%', 'error'],
  ["@'--", 'error'],
  ['@_____', []],
  ['author:_____', []],
  ["author:'--", 'error'],
  ['author:%', 'error'],
  ["author:x')--", 'error'],
  ["platform:x';--", 'error'],
  ['platform:%', 'error'],
  ['lang:e%', 'error'],
  ["lang:'", 'error'],
  ['country:_S', 'error'],
  ["country:'", 'error'],
  ['東京%', []],
  ['東_', []],
  ['東京\\', []],
  ['🔥%', []],
  ['🔥_', []],
  ['"東京 %"', []],
  ['東京タワー\\*', []],
  ['a\u0000b', 'error'],
  ['"a\u0000"', 'error'],
  ['#a\u0000', 'error'],
  ['author:a\u0000', 'error'],
  ["x'y NEAR/2 a\\b", []],
  ["it's NEAR/3 pointless", ['decaf']],
  ["'a|b' NEAR/2 !c", []],
  ['1:2 NEAR/1 a&b:*', []],
  ["(it' OR \\x) NEAR/20 'x'", []],
];

describe('the slices of a long OR', () => {
  it('are read in one set: the exact tokens as one list, every prefix and mask from one read of the lexicon', () => {
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`);
    const query = `(${[...words, 'pre*', 'ma?k', '#tag', '@who'].join(' OR ')}) NOT (alpha OR beta OR gam*)`;
    const node = parseQuery(query);
    if (!node.ok) throw new Error(query);
    const tree = node.ast;
    const params = new StoreParams();
    const condition = compileStoreQuery(tree, params);
    expect(condition.match(/FROM murmur\.tok/g)).toHaveLength(2);
    expect(condition.match(/FROM murmur\.lexicon/g)).toHaveLength(2);
    const candidates = compileStoreCandidates(tree, params)!;
    expect(candidates.posts).toBeNull();
  });
});

describe('SQL injection through every field', () => {
  it.each(INJECTIONS)('%j', async (query, expected) => {
    const parsed = parseQuery(query);
    if (expected === 'error') {
      expect(parsed.ok).toBe(false);
      return;
    }
    expect(matching(query)).toEqual(expected);
    expect(await storeMatching(server, query)).toEqual(expected);
  });

  it('leaves the posts table and its rows in place', async () => {
    const result = await server.db.execute<{ posts: string | null; n: number }>(
      sql`SELECT to_regclass('public.posts')::text AS posts, (SELECT count(*)::int FROM posts) AS n`,
    );
    expect(result.rows[0]).toEqual({ posts: 'posts', n: ALL.length });
  });
});

// The query editor's count, by the analytics store the test server runs (its store timeout: discover-source.test.ts).
describe('counting', () => {
  it('counts the matches, capped', async () => {
    const parsed = parseQuery('coffee OR tea');
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const count = (cap?: number) =>
      countQueryMatches(server.db, { query: parsed.ast, platforms: [], languages: [] }, server.analytics, {
        cap,
      });
    expect(await count()).toEqual({ matches: 6, capped: false });
    expect(await count(6)).toEqual({ matches: 6, capped: false });
    expect(await count(2)).toEqual({ matches: 2, capped: true });
  });
});
