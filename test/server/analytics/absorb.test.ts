// Absorption before the store compiles a query (server/analytics/matching/absorb.ts): which OR operands go, which
// stay, and that the matches never change, held to the reference evaluator on generated corpora.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { absorbed } from '@server/analytics/matching/absorb';
import { printQuery } from '@server/query/index';
import { extractHashtags, extractMentions } from '@server/social/corpus/text';
import { generatedCorpus, queryArb } from '@test/support/reference/corpus';
import { matching, parsed, type RefPost } from '@test/support/reference/query';

const simplified = (query: string) => printQuery(absorbed(parsed(query)));

describe('absorption', () => {
  it.each([
    ['nova OR "nova x"', 'nova'],
    ['"nova x" OR nova', 'nova'],
    ['nova OR Nova OR nova', 'nova'],
    ['nova OR {Nova}', 'nova'],
    ['nova OR (#x AND nova)', 'nova'],
    ['nova OR x NEAR/3 nova', 'nova'],
    ['nova OR x NEAR/2f (nova OR "nova y")', 'nova'],
    ['nova OR "y nova"~2', 'nova'],
    ['nova OR "nova x" OR lumen OR "lumen y" OR #z', 'nova OR lumen OR #z'],
    ['#z AND (nova OR "nova x")', '#z nova'],
    ['NOT (nova OR "nova x")', 'NOT nova'],
  ])('%s is evaluated as %s', (query, expected) => {
    expect(simplified(query)).toBe(printQuery(parsed(expected)));
  });

  it.each([
    // A prefix or mask needs no one word; a word's prefix is not the word.
    'nova* OR "nova x"',
    'nova OR nova*',
    'nov?a OR "nova x"',
    // The phrase's words are other words; an OR inside NEAR needs only what each of its members needs.
    'nova OR "novax y"',
    'nova OR x NEAR/3 (nova OR lumen)',
    // Substring terms (CJK, emoji) are matched as text, not words.
    '노바 OR "노바 x"',
    '🔥 OR "🔥 x"',
    // An AND's words are each needed, but an OR's are not.
    'nova OR (x OR nova) NEAR/1 y',
    'nova OR NOT "nova x"',
    'nova AND "nova x"',
  ])('%s is evaluated as written', (query) => {
    const node = parsed(query);
    expect(printQuery(absorbed(node))).toBe(printQuery(node));
  });

  it('gives the same tree for the same node, and keeps a tree it cannot shorten', () => {
    const node = parsed('nova OR "nova x" OR #z');
    expect(absorbed(node)).toBe(absorbed(node));
    expect(absorbed(absorbed(node))).toBe(absorbed(node));
    const kept = parsed('nova OR lumen');
    expect(absorbed(kept)).toBe(kept);
  });
});

/** A generated corpus as the reference reads it, without a database (ids by position). */
const posts: RefPost[] = generatedCorpus(71, 300).map((post, i) => ({
  ...post,
  id: i + 1,
  platform: 'x',
  hashtags: extractHashtags(post.text),
  mentions: extractMentions(post.text),
  domains: [],
  url: null,
  label: 'neutral',
  rated: true,
  authorId: post.author,
  handle: `a${post.author}`,
  followers: 10,
  country: null,
}));

const ids = (query: ReturnType<typeof parsed>) => matching(query, posts).map((post) => post.id);

/**
 * A word of the corpus's texts, and forms beside it: most need it (an OR of them can be absorbed), the last two look
 * as if they did and do not (an OR inside NEAR, a prefix).
 */
const wordArb = fc.constantFrom('coffee', 'Coffee', 'latte', 'oat', 'milk', 'barista', 'café', '2026', 'v2');
const besideArb = fc
  .tuple(wordArb, fc.constantFrom('milk', 'tea', 'shop', 'oat'), fc.integer({ min: 0, max: 6 }))
  .map(
    ([word, other, form]) =>
      [
        `"${word} ${other}"`,
        `"${other} ${word}"~2`,
        `${other} NEAR/3 ${word}`,
        `{${word}}`,
        `${word} ${other}`,
        `(${other} OR ${word}) NEAR/2 milk`,
        `${word.slice(0, 2)}* NEAR/2 ${other}`,
      ][form]!,
  );
const absorbableArb = fc
  .tuple(wordArb, besideArb, queryArb, fc.boolean(), fc.constantFrom('AND', 'OR', 'AND NOT'))
  .map(([word, beside, other, first, join]) => {
    const or = first ? `${word} OR ${beside}` : `${beside} OR ${word}`;
    return `(${or}) ${join} (${other})`;
  });

describe('absorption keeps the matches (the reference evaluator)', () => {
  it.each([
    ['of generated queries', queryArb, 72],
    ['of queries that name a word and a form beside it that needs it or seems to', absorbableArb, 73],
  ] as const)('%s', (_, arb, seed) => {
    fc.assert(
      fc.property(arb, (text) => {
        const node = parsed(text);
        expect(ids(absorbed(node))).toEqual(ids(node));
      }),
      { numRuns: 300, seed },
    );
  });
});
