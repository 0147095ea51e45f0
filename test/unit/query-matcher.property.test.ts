// The many-query matcher (server/query/match) held to the reference evaluator (test/support/reference/query.ts): for
// generated sets of tracked queries and generated posts, the queries each post matches are those the reference says,
// one query at a time. Two generators: the store's property tests' corpus and queries (test/support/reference/
// corpus.ts: every operator over the corpus's words), and texts and queries of awkward Unicode (final sigma, dotted
// capital I, combining marks, ligatures, numerals, emoji with modifiers, CJK next to Latin).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseQuery } from '@server/query/index';
import { AhoCorasick } from '@server/query/match/aho-corasick';
import { compileMatcher } from '@server/query/match/index';
import { extractHashtags, extractMentions } from '@server/social/corpus/text';
import { generatedCorpus, subredditQueryArb as queryArb } from '@test/support/reference/corpus';
import { withDomains, withUrls } from '@test/support/reference/links';
import { normaliseDomains } from '@contract/domains';
import type { RefPost } from '@test/support/reference/query';
import { matchPostOf, refPost, referenceIds, tracked } from '@test/support/matcher-oracle';

/** The corpus's authors (as test/support/reference/corpus.ts has them): mixed-case handles, an unknown country. */
const AUTHORS = [
  { handle: 'Alice', platform: 'x', country: 'US' },
  { handle: 'bob_k', platform: 'instagram', country: 'KR' },
  { handle: 'Carla', platform: 'tiktok', country: 'ES' },
  { handle: 'hana', platform: 'youtube', country: 'JP' },
  { handle: 'anon', platform: 'reddit', country: null },
  { handle: 'dave', platform: 'x', country: 'US' },
  { handle: 'Eve', platform: 'facebook', country: 'GB' },
];

const withTags = (fields: Partial<RefPost> & { text: string }): RefPost =>
  refPost({ ...fields, hashtags: extractHashtags(fields.text), mentions: extractMentions(fields.text) });

/** A fediverse author (`instance:`), for every seventh post. */
const FEDIVERSE = { handle: 'Lena@Mastodon.social', platform: 'mastodon', country: 'DE' };

const CORPUS: RefPost[] = withUrls(withDomains(generatedCorpus(5401, 150), 5402), 5403).map((post, id) =>
  withTags({
    id,
    text: post.text,
    language: post.language,
    domains: normaliseDomains(post.domains ?? []),
    url: post.url ?? null,
    ...(id % 7 === 0 ? FEDIVERSE : AUTHORS[post.author]!),
  }),
);

/** Every post: the matcher's answer is the reference's. */
function agrees(queries: string[], posts: RefPost[]) {
  const tracking = tracked(queries);
  const matcher = compileMatcher(tracking);
  let matches = 0;
  for (const post of posts) {
    const expected = referenceIds(tracking, post);
    matches += expected.length;
    expect({ text: post.text, ids: matcher.match(matchPostOf(post)) }).toEqual({
      text: post.text,
      ids: expected,
    });
  }
  return matches;
}

describe('the matcher answers as the reference evaluator', () => {
  it('on the store property tests’ corpus, for sets of queries of every operator', () => {
    let matches = 0;
    fc.assert(
      fc.property(fc.array(queryArb, { minLength: 1, maxLength: 30 }), (queries) => {
        matches += agrees(queries, CORPUS);
      }),
      { seed: 5402, numRuns: 60 },
    );
    // Not vacuous: the queries match posts, subreddit: too (a Reddit post's permalink; another platform's is none).
    expect(matches).toBeGreaterThan(1000);
    const subreddit = tracked(['subreddit:coffee', 'subreddit:tea']);
    expect(CORPUS.filter((post) => referenceIds(subreddit, post).length > 0).length).toBeGreaterThan(3);
  }, 30_000);

  const WORDS = [
    'ΟΔΟΣ',
    'οδος',
    'Σ',
    'İstanbul',
    'istanbul',
    'straße',
    'STRASSE',
    'e\u0301te',
    'été',
    'ﬁne',
    'fine',
    '½',
    'Ⅻ',
    'K',
    'k',
    'ǅemal',
    '東京',
    'ラーメン',
    '서울에서',
    '서울',
    'ภาษาไทย',
    '🔥',
    '👍🏽',
    '☕',
    'x🔥y',
    "don't",
    'covid-19',
    'v2',
    'coffee',
  ];
  const SEPARATORS = [' ', ' ', '.', '-', '_', ' #', ' @', '\n', '🔥', '、', ''];
  const textArb = fc
    .array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...SEPARATORS)), { maxLength: 10 })
    .map((parts) => parts.map(([word, separator]) => word + separator).join(''));
  const postArb = fc
    .record({
      text: textArb,
      handle: fc.constantFrom('İsa', 'Jane_Doe', 'bob'),
      platform: fc.constantFrom('x', 'reddit'),
      language: fc.constantFrom('en', 'ko', null),
      country: fc.constantFrom('KR', null),
    })
    .map(withTags);

  const wordArb = fc.constantFrom(...WORDS);
  const leafArb = fc.oneof(
    wordArb,
    fc.tuple(wordArb, wordArb).map(([a, b]) => `"${a} ${b}"`),
    fc.tuple(wordArb, fc.integer({ min: 2, max: 4 })).map(([w, n]) => `${[...w].slice(0, n).join('')}*`),
    fc.tuple(fc.constantFrom('#', '@'), wordArb).map(([mark, w]) => mark + w),
    fc.constantFrom('author:isa', 'author:İsa', 'platform:x', 'lang:ko', 'country:KR'),
  );
  const { query: awkwardQueryArb } = fc.letrec<{ query: string }>((tie) => ({
    query: fc.oneof(
      { depthSize: 'small' },
      leafArb,
      fc.tuple(leafArb, fc.integer({ min: 1, max: 4 }), leafArb).map(([a, n, b]) => `${a} NEAR/${n} ${b}`),
      tie('query').map((q) => `NOT (${q})`),
      fc.tuple(tie('query'), tie('query')).map(([a, b]) => `(${a}) (${b})`),
      fc.tuple(tie('query'), tie('query')).map(([a, b]) => `(${a}) OR (${b})`),
    ),
  }));
  const parsingArb = awkwardQueryArb.filter((text) => parseQuery(text).ok);

  it('on texts and queries of awkward Unicode', () => {
    let matches = 0;
    fc.assert(
      fc.property(
        fc.array(parsingArb, { minLength: 1, maxLength: 20 }),
        fc.array(postArb, { minLength: 1, maxLength: 20 }),
        (queries, posts) => {
          matches += agrees(queries, posts);
        },
      ),
      { seed: 5403, numRuns: 200 },
    );
    expect(matches).toBeGreaterThan(1000);
  }, 30_000);
});

describe('Aho–Corasick', () => {
  it('finds exactly the patterns the text contains', () => {
    const stringArb = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '東', '🔥'), maxLength: 6 });
    fc.assert(
      fc.property(fc.array(stringArb, { maxLength: 12 }), stringArb, (patterns, text) => {
        const found = new Set<number>();
        new AhoCorasick(patterns).scan(text, (id) => found.add(id));
        const expected = patterns.flatMap((pattern, id) =>
          pattern !== '' && text.includes(pattern) ? [id] : [],
        );
        expect([...found].sort((a, b) => a - b)).toEqual(expected);
      }),
      { seed: 5404, numRuns: 500 },
    );
  });
});
