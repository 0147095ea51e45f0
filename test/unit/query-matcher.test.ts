// The many-query matcher (server/query/match): for each operator of the query language, the queries a post matches,
// as written here and as the reference evaluator (test/support/reference/query.ts) says.
import { describe, expect, it } from 'vitest';
import { AhoCorasick } from '@server/query/match/aho-corasick';
import { compileMatcher } from '@server/query/match/index';
import type { RefPost } from '@test/support/reference/query';
import { matchPostOf, refPost, referenceIds, tracked } from '@test/support/matcher-oracle';

/** Which of `queries` the post matches (the texts), checked against the reference for the same post. */
function matched(queries: string[], fields: Partial<RefPost> & { text: string }): string[] {
  const tracking = tracked(queries);
  const post = refPost(fields);
  const ids = compileMatcher(tracking).match(matchPostOf(post));
  expect(ids).toEqual(referenceIds(tracking, post));
  return ids.map((id) => queries[Number(id.slice(1))]!);
}

describe('one matcher for many queries', () => {
  it('words: whole words, any case, split at punctuation', () => {
    const queries = ['coffee', 'COFFEE', 'coff', "don't", 't', 'covid-19', 'x.com', 'café', 'cafe'];
    expect(matched(queries, { text: "Coffee? Don't! COVID-19 on x.com, Café" })).toEqual([
      'coffee',
      'COFFEE',
      "don't",
      't',
      'covid-19',
      'x.com',
      'café',
    ]);
  });

  it('AND, OR, NOT and parentheses', () => {
    const queries = [
      'coffee tea',
      'coffee AND milk',
      'milk OR tea',
      '(coffee OR milk) NOT tea',
      'NOT coffee',
    ];
    expect(matched(queries, { text: 'coffee and tea' })).toEqual(['coffee tea', 'milk OR tea']);
    expect(matched(queries, { text: 'coffee with milk' })).toEqual([
      'coffee AND milk',
      'milk OR tea',
      '(coffee OR milk) NOT tea',
    ]);
    expect(matched(queries, { text: 'nothing here' })).toEqual(['NOT coffee']);
  });

  it('phrases: words in a row, punctuation between them ignored', () => {
    const queries = ['"oat milk"', '"milk oat"', '"oat, milk latte"', '"oat"'];
    expect(matched(queries, { text: 'Oat — milk latte, oat' })).toEqual([
      '"oat milk"',
      '"oat, milk latte"',
      '"oat"',
    ]);
    expect(matched(queries, { text: 'oat and milk' })).toEqual(['"oat"']);
  });

  it('wildcards: a word starting with the prefix', () => {
    const queries = ['barist*', 'ÉT*', 'lat*', "don't*", 'ba*'];
    expect(matched(queries, { text: 'Baristas pour lattes all été' })).toEqual([
      'barist*',
      'ÉT*',
      'lat*',
      'ba*',
    ]);
    expect(matched(queries, { text: 'barista' })).toEqual(['barist*', 'ba*']);
    expect(matched(queries, { text: 'a bar' })).toEqual(['ba*']);
    expect(matched(queries, { text: 'a b' })).toEqual([]);
  });

  it('NEAR/n: at most n positions apart in either order, phrases by their nearest end, OR groups', () => {
    const queries = [
      'coffee NEAR/1 shop',
      'coffee NEAR/2 shop',
      'shop NEAR/3 coffee',
      '"oat milk" NEAR/1 latte',
      '(latte OR mocha) NEAR/2 "oat milk"',
      'barist* NEAR/1 coffee',
    ];
    expect(matched(queries, { text: 'coffee at shop' })).toEqual([
      'coffee NEAR/2 shop',
      'shop NEAR/3 coffee',
    ]);
    expect(matched(queries, { text: 'shop coffee' })).toEqual([
      'coffee NEAR/1 shop',
      'coffee NEAR/2 shop',
      'shop NEAR/3 coffee',
    ]);
    expect(matched(queries, { text: 'latte with oat milk, baristas coffee' })).toEqual([
      '(latte OR mocha) NEAR/2 "oat milk"',
      'barist* NEAR/1 coffee',
    ]);
    expect(matched(queries, { text: 'oat milk latte' })).toEqual([
      '"oat milk" NEAR/1 latte',
      '(latte OR mocha) NEAR/2 "oat milk"',
    ]);
  });

  it('CJK and Thai terms are substrings of the text', () => {
    const queries = ['東京', 'タワー', '서울', '"東京 ラーメン"', '東京*', 'ไทย', '京'];
    expect(matched(queries, { text: '東京タワーに行った' })).toEqual(['東京', 'タワー', '東京*', '京']);
    expect(matched(queries, { text: '서울에서 東京 ラーメン ภาษาไทย' })).toEqual([
      '東京',
      '서울',
      '"東京 ラーメン"',
      '東京*',
      'ไทย',
      '京',
    ]);
  });

  it('emoji and symbol terms are substrings; emoji separate words', () => {
    const queries = ['🔥', '🔥🔥', '☕', 'x🔥', 'coffee', 'NOT 🔥'];
    expect(matched(queries, { text: 'coffee🔥🔥hot' })).toEqual(['🔥', '🔥🔥', 'coffee']);
    expect(matched(queries, { text: 'x🔥 ☕' })).toEqual(['🔥', '☕', 'x🔥']);
    expect(matched(queries, { text: 'plain' })).toEqual(['NOT 🔥']);
  });

  it('hashtags and mentions: the post’s own, any case', () => {
    const queries = ['#latteart', '#LatteArt', '@starbucks', '#coffee', 'latteart'];
    expect(
      matched(queries, { text: 'so good #LatteArt', hashtags: ['latteart'], mentions: ['starbucks'] }),
    ).toEqual(['#latteart', '#LatteArt', '@starbucks', 'latteart']);
    // Hashtags are the post's field, not its words: a text that names one without the field does not match.
    expect(matched(queries, { text: '#coffee', hashtags: [] })).toEqual([]);
  });

  it('fields: author, platform, lang, country; NOT of an unknown value holds', () => {
    const queries = [
      'author:jane_doe',
      'author:@Jane_Doe',
      'platform:x',
      'site:reddit',
      'lang:ko',
      'NOT lang:en',
      'country:KR',
      'NOT country:US',
      'platform:x lang:ko',
    ];
    const korean = { text: 'hi', handle: 'Jane_Doe', platform: 'x', language: 'ko', country: 'KR' };
    expect(matched(queries, korean)).toEqual([
      'author:jane_doe',
      'author:@Jane_Doe',
      'platform:x',
      'lang:ko',
      'NOT lang:en',
      'country:KR',
      'NOT country:US',
      'platform:x lang:ko',
    ]);
    const unknown = { text: 'hi', handle: 'bob', platform: 'reddit', language: null, country: null };
    expect(matched(queries, unknown)).toEqual(['site:reddit', 'NOT lang:en', 'NOT country:US']);
  });

  it('queries with no term to index (NOT alone, fields alone) are tested on every post', () => {
    const tracking = tracked(['NOT coffee', 'NOT (tea OR milk)', 'coffee', 'NOT lang:en OR tea']);
    const matcher = compileMatcher(tracking);
    expect(matcher.alwaysTested).toBe(3);
    expect(matcher.match(matchPostOf(refPost({ text: 'water' })))).toEqual(['q0', 'q1', 'q3']);
  });

  it('answers in the order the queries were given, whatever key found them', () => {
    const queries = ['🔥', 'NOT tea', 'platform:x', 'coffee', '#c', 'co*'];
    expect(matched(queries, { text: 'coffee 🔥', hashtags: ['c'] })).toEqual(queries);
  });

  it('many queries at once: the same answers as one query at a time', () => {
    const queries = ['coffee', 'tea', '"oat milk"', 'lat*', '東京', 'NOT coffee', 'coffee NEAR/2 milk'];
    const posts = ['coffee with oat milk', 'tea in 東京', 'latte', 'coffee coffee milk'];
    const all = compileMatcher(tracked(queries));
    for (const text of posts) {
      const post = matchPostOf(refPost({ text }));
      const alone = queries.flatMap((query, i) =>
        compileMatcher([{ id: `q${i}`, ast: tracked([query])[0]!.ast }]).match(post),
      );
      expect(all.match(post)).toEqual(alone);
    }
  });
});

describe('Aho–Corasick', () => {
  it('finds every pattern, overlapping and nested ones too', () => {
    const patterns = ['he', 'she', 'his', 'hers', '東京', '京タ', '🔥', ''];
    const found = new Set<number>();
    new AhoCorasick(patterns).scan('ushers 東京タワー🔥', (id) => found.add(id));
    expect([...found].sort()).toEqual([0, 1, 3, 4, 5, 6]);
  });
});
