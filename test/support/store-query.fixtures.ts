// Posts written for the store's equality test: each meets one edge of PostgreSQL's text search or of the fields
// (apostrophes, hyphens, dots, accents, repeated words, positions past tsvector's limits, scripts without spaces,
// emoji, unknown languages and countries, handles and hashtags in any case), and the queries that meet them.
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import type { TestServer } from './server-harness';

const AUTHORS = [
  { key: 'alice', platform: 'x', handle: 'Alice', country: 'US' },
  { key: 'unal', platform: 'instagram', handle: 'Ünal_İz', country: 'TR' },
  { key: 'kim', platform: 'tiktok', handle: 'kim.seo', country: 'KR' },
  { key: 'anon', platform: 'reddit', handle: 'anon-1', country: null },
] as const;

/** Positions past 16383 are all 16383 in a tsvector; a lexeme keeps 255 positions at most. */
const LONG = `${Array.from({ length: 16_500 }, (_, i) => `w${i % 300}`).join(' ')} flat white latte x coffee`;
const REPEATED = `${'very '.repeat(300)}good coffee`;

const POSTS: Array<{
  author: (typeof AUTHORS)[number]['key'];
  lang: string | null;
  text: string;
  tags?: string[];
  at?: string;
}> = [
  { author: 'alice', lang: 'en', text: "Don't drink decaf coffee, it's pointless" },
  { author: 'alice', lang: 'en', text: 'covid-19 vaccines for baristas, news at x.com/foo today' },
  { author: 'unal', lang: 'fr', text: 'Café au lait à Paris, CAFÉ crème et cafe' },
  { author: 'alice', lang: 'en', text: 'very very good coffee, very good indeed' },
  { author: 'alice', lang: 'en', text: 'good very very coffee, white flat' },
  { author: 'anon', lang: null, text: LONG },
  { author: 'anon', lang: 'en', text: REPEATED },
  { author: 'kim', lang: 'ja', text: '東京タワーに行った！ラーメン大好き' },
  { author: 'kim', lang: 'ja', text: 'iPhone15の東京価格は高い' },
  { author: 'kim', lang: 'ko', text: '6.7인치 화면, 서울에서 커피 마시는 중' },
  { author: 'kim', lang: 'ko', text: '서울 커피' },
  // Hangul, Han and an emoji: a Hangul term's recheck reads the texts of every mask that holds Hangul's.
  { author: 'kim', lang: 'ko', text: '서울에서 東京까지 🔥 여행' },
  { author: 'alice', lang: 'en', text: 'tea time with friends 🔥🔥 and ½ price' },
  { author: 'alice', lang: 'en', text: 'latte x flat white' },
  { author: 'anon', lang: 'en', text: 'x latte' },
  { author: 'anon', lang: 'en', text: 'x latte flat white' },
  { author: 'anon', lang: 'en', text: 'x y latte flat white' },
  // An OR group of different widths before NEAR: PostgreSQL aligns "latte" to the end of "flat white" when both occur.
  { author: 'anon', lang: 'en', text: 'flat white then latte x' },
  { author: 'anon', lang: 'en', text: 'flat white then latte y x' },
  { author: 'alice', lang: 'en', text: 'The coffee shop near my house, oat milk latte' },
  {
    author: 'unal',
    lang: 'en',
    text: `shop ${Array.from({ length: 19 }, (_, i) => `filler${i}`).join(' ')} coffee and house`,
  },
  { author: 'unal', lang: 'en', text: `house ${'z '.repeat(20)}coffee` },
  { author: 'kim', lang: 'en', text: '#LatteArt by @Barista_Joe, mocha with oat milk', tags: ['latteart'] },
  { author: 'unal', lang: 'tr', text: 'İSTANBUL ŞEHİR güzel 東京 STRASSE Straße' },
  { author: 'anon', lang: 'en', text: "flat white flat white, O'Reilly's book on x.com" },
  { author: 'alice', lang: 'es', text: 'Me encanta el CAFE con leche 🔥', at: '2025-05-31T23:59:59.999Z' },
];

/** Queries over the hand-written posts (and the generated corpus's own words, which the test adds). */
export const EDGE_QUERIES = [
  'coffee',
  'Coffee tea',
  'coffee AND tea',
  'coffee OR tea',
  'NOT coffee',
  '(coffee OR tea) NOT decaf',
  '"flat white"',
  '"white flat"',
  '"very good"',
  '"very very good"',
  '"good very"',
  '"very very very very"',
  'barist*',
  'cof*',
  'x.co*',
  "don't",
  '"don\'t drink"',
  "o'reilly's",
  'covid-19',
  'covid*',
  'x.com',
  'x.com/foo',
  'café',
  'CAFÉ',
  'cafe',
  'straße',
  '"latte x"',
  '"white latte x coffee"',
  'coffee NEAR/3 shop',
  'shop NEAR/1 coffee',
  'coffee NEAR/1 shop',
  'coffee NEAR/20 shop',
  'shop NEAR/20 coffee',
  'coffee NEAR/19 shop',
  'house NEAR/20 coffee',
  'coffee NEAR/20 house',
  '"flat white" NEAR/2 latte',
  'latte NEAR/1 "flat white"',
  '(latte OR "flat white") NEAR/1 x',
  'x NEAR/1 (latte OR "flat white")',
  'x NEAR/2 (latte OR "flat white")',
  '(latte OR mocha) NEAR/2 "oat milk"',
  'barist* NEAR/5 covid',
  '(cof* OR tea) NEAR/4 (shop OR friends)',
  'very NEAR/1 good',
  'w299 NEAR/1 flat',
  'flat NEAR/1 white',
  'coffee NEAR/2 ½',
  '½',
  '#latteart',
  '#LatteArt',
  '#coffee',
  '@barista_joe',
  '@BARISTA_JOE',
  'author:ünal_iz',
  'author:@ÜNAL_İZ',
  'author:alice',
  'author:@Alice',
  'author:nobody',
  'platform:x',
  'NOT platform:x',
  'site:reddit',
  'lang:en',
  'NOT lang:en',
  'lang:xx',
  'NOT lang:xx',
  'country:US',
  'NOT country:US',
  'country:ZZ',
  'NOT country:ZZ',
  '東京',
  '東',
  '서울',
  '커피',
  '서울에서',
  '🔥',
  '인치',
  'iphone15の',
  'IPHONE15の東京',
  '東京*',
  'ラーメン大好き',
  '"東京 タワー"',
  'şehir güzel 東京',
  '"ŞEHİR güzel 東京"',
  'istanbul',
  'i̇stanbul',
  '(coffee OR (tea AND NOT lang:en)) AND NOT (platform:x OR country:KR)',
  'NOT (coffee NEAR/2 shop)',
  'NOT (NOT coffee)',
  'coffee NOT country:US',
  '(東京 OR 서울) NOT lang:ja',
  'latte OR #latteart OR @barista_joe',
];

export async function insertEdgePosts(server: TestServer) {
  const ids = await insertProfiles(
    server.db,
    AUTHORS.map((author) => ({
      platform: author.platform,
      externalId: `edge-${author.key}`,
      handle: author.handle,
      displayName: author.key,
      country: author.country,
    })),
  );
  const authorId = new Map(AUTHORS.map((author, i) => [author.key, ids[i]!]));
  await insertPosts(
    server.db,
    POSTS.map((post, i) => ({
      platform: AUTHORS.find((author) => author.key === post.author)!.platform,
      externalId: `edge-${i}`,
      authorId: authorId.get(post.author)!,
      text: post.text,
      language: post.lang,
      postedAt: new Date(post.at ?? Date.UTC(2025, 4, 20 + (i % 10), i)),
      hashtags: post.tags ?? [],
      mentions: [...post.text.matchAll(/@(\w+)/g)].map((match) => match[1]!.toLowerCase()),
    })),
  );
}
