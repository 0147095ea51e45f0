import { describe, expect, it } from 'vitest';
import { extractFeatures, type FeatureConfig } from '@server/social/corpus/sentiment-features';
import { prepare, train, type Hyper, type Source } from '@scripts/sentiment-fit';

// Hand-written sentences (the labelled data sets stay outside the repository).
const SOURCE: Source = {
  name: 'en/train.tsv',
  language: 'en',
  examples: [
    { label: 2, text: 'love this, what a lovely day' },
    { label: 2, text: 'lovely people, love them' },
    { label: 0, text: 'hate this, what an awful day' },
    { label: 0, text: 'awful people, hate them' },
    { label: 1, text: 'the bus leaves at nine' },
    { label: 1, text: 'the train leaves at ten' },
  ],
};
const CONFIG: FeatureConfig = {
  bits: 12,
  charMin: 2,
  charMax: 4,
  bigrams: true,
  lexicon: true,
  copies: 'both',
};
const HYPER: Hyper = {
  lr: 0.05,
  l2: 1e-4,
  epochs: 30,
  batch: 2,
  sourceWeight: 1,
  hiWeight: 1,
  negWeight: 1,
  negOther: 1,
};

function fit(hyper: Hyper): Float32Array {
  let last: Float32Array | undefined;
  train(prepare([SOURCE], CONFIG), CONFIG.bits, hyper, 53, (_, weights) => (last = weights));
  return last!;
}

/** The likeliest class of a text under the weights (the slots and values the trainer gives it). */
function label(weights: Float32Array, text: string): number {
  const one = prepare([{ ...SOURCE, examples: [{ label: 0, text }] }], CONFIG);
  const z = [0, 0, 0];
  for (let f = 0; f < one.slots.length; f++)
    for (let c = 0; c < 3; c++) z[c]! += weights[one.slots[f]! * 3 + c]! * one.values[f]!;
  return z.indexOf(Math.max(...z));
}

describe('sentiment fit', () => {
  it('marks the n-gram features apart from the bias and the word list', () => {
    const data = prepare([SOURCE], CONFIG);
    const first = extractFeatures(SOURCE.examples[0]!.text, 'en', CONFIG);
    const marks = Array.from(data.ngram.subarray(0, data.offsets[1]!));
    // Two slots (shared and own) per feature: the n-grams first, then the bias and the word list's.
    expect(marks).toEqual(first.hash.map((_, f) => (f < first.ngrams ? 1 : 0)).flatMap((m) => [m, m]));
    expect(first.ngrams).toBeLessThan(first.hash.length);
  });

  it('is unchanged without the NBSVM-style scaling, and fits the training sentences with it', () => {
    const plain = fit(HYPER);
    expect(fit({ ...HYPER, nb: 0 })).toEqual(plain);
    const scaled = fit({ ...HYPER, nb: 1 });
    expect(scaled).not.toEqual(plain);
    for (const weights of [plain, scaled])
      for (const e of SOURCE.examples) expect(label(weights, e.text), e.text).toBe(e.label);
  });
});
