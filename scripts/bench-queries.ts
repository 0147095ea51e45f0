// The query mix of `bench:insights` (bench-insights.ts): what analysts type, from one word to a 300-term listening
// query, over the generated corpus (server/social/corpus/generate).
import { englishWords } from '@server/social/corpus/generate/vocab-en';

/**
 * What analysts type: a broad term, a hashtag, a phrase, an OR, a NOT, CJK terms, field filters; and no query at
 * all (every post: the dashboards' default, which discover does not accept).
 */
export const EVERY_POST = 'every post';
export const QUERIES: Array<[string, string]> = [
  ['broad term', 'nova'],
  ['hashtag', '#matchatiramisu'],
  ['phrase', '"midnight harbor"'],
  ['OR of terms', 'cloudnest OR outage OR downdetector'],
  ['NOT', 'nova NOT #unboxing'],
  ['CJK term', '노바X'],
  // Most Korean and Chinese words are one or two characters: fewer than a trigram.
  ['CJK 2 chars', '노바'],
  ['field filter', 'platform:tiktok lang:es'],
  [EVERY_POST, ''],
];
export const LONG = '300 terms';
QUERIES.splice(QUERIES.length - 1, 0, [LONG, longQuery()]);

/**
 * A listening query as a brand team writes one, 300 terms: names (words of the generator's English posts), their
 * misspellings (a letter dropped), masks, phrases, and exclusions, over several lines with a comment.
 */
function longQuery(): string {
  const words = englishWords();
  const pick = (n: number, from = 0) => words.slice(from, from + n);
  const names = pick(180);
  const misspelt = pick(60).map((word) => word.slice(0, 2) + word.slice(3));
  const masks = pick(20, 60).map((word) => `${word.slice(0, 3)}?${word.slice(4)}`);
  const phrases = pick(20, 80).map((word, i) => `"${word} ${words[(i * 7) % words.length]}"`);
  const exclusions = pick(19, 100);
  return [
    '<<< the brand, its products and their misspellings >>>',
    `(${[...names, ...misspelt, ...masks, ...phrases].join(' OR ')})`,
    `NOT (${exclusions.join(' OR ')})`,
  ].join('\n');
}
