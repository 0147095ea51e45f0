// Substring terms (Chinese, Japanese, Korean, Thai, emoji) through the analytics store's grams: every term cut from a
// set of mixed-script texts, of 1 to 4 characters, matches exactly the posts whose text contains it (case aside),
// checked against a brute force. The store's query side computes a term's grams in TypeScript
// (server/analytics/matching/words.ts, ported from PostgreSQL's post_text_query_grams, which migration 0034 dropped):
// for every cut term, they are among the grams of every text that contains it, so narrowing by them loses no match.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseQuery } from '@server/query/index';
import { matchMode } from '@server/query/terms';
import { queryGrams, textGrams } from '@server/analytics/matching/words';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import { storeMatching } from '@test/support/query-corpus.fixtures';

const TEXTS = [
  '노바X 출시! 드디어 노바를 샀다',
  'NOVAx와 노바x는 같은 제품인가요?',
  '서울에서 커피 마시는 중 ☕️ #커피',
  '東京タワーに行った！ラーメン大好き 🍜🍜',
  'ｶﾀｶﾅ半角テスト、カタカナ全角',
  'ข่าวด่วน วันนี้ฝนตก',
  '𠮷野家で牛丼を食べた',
  '한글\n줄바꿈 다음 줄',
  'I ❤️ Seoul 🔥 and 東京',
  'mixed a노b c東d 終わり.',
  'plain English with no other script',
];

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer();
  const [authorId] = await insertProfiles(server.db, [
    { platform: 'x', externalId: 'a', handle: 'a', displayName: 'a' },
  ]);
  await insertPosts(
    server.db,
    TEXTS.map((text, i) => ({
      platform: 'x' as const,
      externalId: String(i),
      authorId: authorId!,
      text,
      postedAt: new Date('2026-01-01T00:00:00Z'),
    })),
  );
});
afterAll(() => server.close());

const matches = async (query: string): Promise<number[]> =>
  (await storeMatching(server, query)).map(Number).sort((a, b) => a - b);

/** Every run of 1 to 4 characters (code points) of the texts that the language matches as a substring. */
function substringTerms(): string[] {
  const terms = new Set<string>();
  for (const text of TEXTS) {
    for (const token of text.split(/\s+/)) {
      const chars = [...token];
      for (let i = 0; i < chars.length; i += 1) {
        for (let n = 1; n <= 4 && i + n <= chars.length; n += 1) {
          const term = chars.slice(i, i + n).join('');
          // Characters with a meaning in the language stay out; so do terms it matches through the vector.
          if (/["()#@:*\-\\]/.test(term) || matchMode(term) !== 'substring') continue;
          if (parseQuery(term).ok) terms.add(term);
        }
      }
    }
  }
  return [...terms];
}

describe("substring terms through the store's grams", () => {
  it('match exactly the posts that contain them, case aside (brute force over every cut term)', async () => {
    const terms = substringTerms();
    expect(terms.length).toBeGreaterThan(300);
    for (const term of terms) {
      const expected = TEXTS.flatMap((text, i) =>
        text.toLowerCase().includes(term.toLowerCase()) ? [i] : [],
      );
      expect(expected.length, term).toBeGreaterThan(0);
      expect(await matches(term), term).toEqual(expected);
    }
  });

  it('match across case, combined with other terms and negated', async () => {
    expect(await matches('노바x')).toEqual([0, 1]);
    expect(await matches('노바X NOT 출시')).toEqual([1]);
    expect(await matches('노바 OR ラーメン')).toEqual([0, 1, 3]);
    expect(await matches('NOT 東')).toEqual([0, 1, 2, 4, 5, 6, 7, 10]);
  });

  it("narrow without losing a match: a term's grams are among the grams of every text that contains it", () => {
    for (const term of substringTerms())
      for (const text of TEXTS.filter((t) => t.toLowerCase().includes(term.toLowerCase()))) {
        const grams = new Set(textGrams(text));
        expect(
          queryGrams(term).filter((gram) => !grams.has(gram)),
          `${term} in ${text}`,
        ).toEqual([]);
      }
  });

  it('gives each text its characters of those scripts and their pairs, the other characters made spaces', () => {
    expect(new Set(textGrams('가A나 b東'))).toEqual(new Set(['가', '나', '東', '가 ', ' 나', '나 ', ' 東']));
    expect(textGrams('plain text')).toEqual([]);
  });
});
