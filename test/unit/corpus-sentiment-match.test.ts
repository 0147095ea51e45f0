// The word list's look-ups in languages without spaces stop joining tokens at a key that begins no entry or negator
// (lexiconMatch, preNegator: sentiment.ts). Held here to the look-ups they replaced, which tried every number of
// tokens from the longest down: the same answers on token runs drawn from the lexicon's own entries and negators,
// their pieces and endings.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lexiconMatch, preNegator } from '@server/social/corpus/sentiment';
import { JA_INFLECTED, lexiconFor, type Lexicon } from '@server/social/corpus/sentiment-lexicon';

/** The former look-up, kept as the reference: every length from the longest down, the first one found wins. */
function reference(tokens: string[], i: number, lexicon: Lexicon): [number, number, string] | undefined {
  for (let k = Math.min(lexicon.maxPhrase, tokens.length - i); k >= 1; k--) {
    const key = tokens.slice(i, i + k).join('');
    const value = lexicon.words.get(key);
    if (value !== undefined) return [value, k, key];
    if (lexicon.language === 'ja' && JA_INFLECTED.test(key)) {
      const base = key.replace(JA_INFLECTED, 'い');
      const baseValue = lexicon.words.get(base);
      if (baseValue !== undefined) return [baseValue, k, base];
    }
  }
  return undefined;
}

/** The former negator look-up: from a negator's first token, every length up to three from the longest down. */
function referenceNegator(tokens: string[], i: number, lexicon: Lexicon): number {
  const longest = lexicon.phraseStarts.has(tokens[i]!) ? Math.min(3, tokens.length - i) : 1;
  for (let k = longest; k >= 1; k--) if (lexicon.negators.has(tokens.slice(i, i + k).join(''))) return k;
  return 0;
}

/** Pieces the tokens are drawn from: entries, their halves and segments, the -く forms' endings, other words. */
function pieces(lexicon: Lexicon): string[] {
  const segmenter = new Intl.Segmenter(lexicon.language, { granularity: 'word' });
  const out = new Set<string>(['かっ', 'くて', 'く', 'さ', 'た', 'です', '\n', '今日', 'は', '的', '了']);
  const entries = [...[...lexicon.words.keys()].slice(0, 400), ...lexicon.negators];
  for (const word of entries) {
    out.add(word);
    out.add(word.slice(0, Math.ceil(word.length / 2)));
    out.add(word.slice(Math.ceil(word.length / 2)));
    if (word.endsWith('い')) out.add(word.slice(0, -1));
    for (const s of segmenter.segment(word)) out.add(s.segment);
  }
  return [...out].filter(Boolean);
}

describe('the word list in languages without spaces', () => {
  for (const language of ['ja', 'zh']) {
    it(`${language}: finds the longest entry and negator at each token as trying every length did`, () => {
      const lexicon = lexiconFor(language)!;
      expect(lexicon.segmented).toBe(true);
      const pool = pieces(lexicon);
      fc.assert(
        fc.property(fc.array(fc.constantFrom(...pool), { minLength: 1, maxLength: 8 }), (tokens) => {
          for (let i = 0; i < tokens.length; i++) {
            expect(lexiconMatch(tokens, i, lexicon)).toEqual(reference(tokens, i, lexicon));
            expect(preNegator(tokens, i, lexicon)).toBe(referenceNegator(tokens, i, lexicon));
          }
        }),
        { numRuns: 3000, seed: 55 },
      );
    });
  }

  it('zh: takes a negator of several tokens only from its first token, as before', () => {
    const lexicon = lexiconFor('zh')!;
    // The negators' characters and halves, so that runs often spell one, split other than the segmenter splits it.
    const pool = [...new Set([...lexicon.negators].flatMap((n) => [n, ...n, n.slice(0, 2), n.slice(1)]))];
    pool.push('好', '\n');
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pool), { minLength: 1, maxLength: 6 }), (tokens) => {
        for (let i = 0; i < tokens.length; i++)
          expect(preNegator(tokens, i, lexicon)).toBe(referenceNegator(tokens, i, lexicon));
      }),
      { numRuns: 3000, seed: 55 },
    );
  });

  it('ja: an adjective split by the segmenter and inflected still scores as its dictionary form', () => {
    const lexicon = lexiconFor('ja')!;
    const adjective = [...lexicon.words.keys()].find((w) => w.length >= 3 && w.endsWith('い'))!;
    const stem = adjective.slice(0, -1);
    const tokens = [stem.slice(0, 1), stem.slice(1), 'く', 'な'];
    expect(lexiconMatch(tokens, 0, lexicon)).toEqual([lexicon.words.get(adjective), 3, adjective]);
  });
});
