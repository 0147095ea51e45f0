import { describe, expect, it } from 'vitest';
import {
  EXPLAINED_SIGNALS,
  explainSentiment,
  RATED_MIN_WORDS,
  sentimentRated,
} from '@server/social/corpus/sentiment-explain';
import { scoreSentiment } from '@server/social/corpus/sentiment-model';

const NEGATIVE = 'This update is useless, the app is down again 😡';
const POSITIVE = 'I love this phone, the camera is amazing! 😍';

const weightOf = (text: string, language: string, word: string) =>
  explainSentiment(text, language).signals.find((signal) => signal.text === word)?.weight;

describe('sentiment explanation', () => {
  it('gives the label, how sure the model is, and the words that pushed it, strongest first', () => {
    const explained = explainSentiment(NEGATIVE, 'en');
    expect(explained.label).toBe('negative');
    expect(explained.rated).toBe(true);
    expect(explained.confidence).toBeGreaterThan(0.5);
    expect(explained.confidence).toBeLessThanOrEqual(1);
    const { signals } = explained;
    expect(signals.length).toBeGreaterThan(0);
    expect(signals.length).toBeLessThanOrEqual(EXPLAINED_SIGNALS);
    const magnitudes = signals.map((signal) => Math.abs(signal.weight));
    expect(magnitudes).toEqual([...magnitudes].sort((a, b) => b - a));
    for (const { weight } of signals) expect(Math.abs(weight)).toBeGreaterThanOrEqual(0.05);
    // Toward negative reads negative: "useless −0.8".
    expect(weightOf(NEGATIVE, 'en', 'useless')).toBeLessThan(-0.3);
    expect(weightOf(NEGATIVE, 'en', '😡')).toBeLessThan(0);
    // Punctuation, links and mentions are no signals.
    expect(signals.map((signal) => signal.text)).not.toContain(',');
  });

  it('signs what pushed toward a positive label positive', () => {
    const explained = explainSentiment(POSITIVE, 'en');
    expect(explained.label).toBe('positive');
    expect(weightOf(POSITIVE, 'en', 'amazing')).toBeGreaterThan(0.5);
    expect(weightOf(POSITIVE, 'en', 'love')).toBeGreaterThan(0.5);
  });

  it("explains the scorer's own label unless told which, and is deterministic", () => {
    for (const text of [
      NEGATIVE,
      POSITIVE,
      'The meeting is at 3pm in room 4',
      'Great phone, terrible battery',
    ])
      expect(explainSentiment(text, 'en').label, text).toBe(scoreSentiment(text, 'en').label);
    expect(explainSentiment(NEGATIVE, 'en')).toEqual(explainSentiment(NEGATIVE, 'en'));
  });

  it("explains a given label (the post's stored one) with that label's probability", () => {
    const confidences = (['negative', 'neutral', 'positive'] as const).map(
      (label) => explainSentiment(NEGATIVE, 'en', label).confidence!,
    );
    expect(confidences[0]).toBe(explainSentiment(NEGATIVE, 'en').confidence);
    expect(confidences[2]).toBeLessThan(0.1);
    expect(confidences.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 2);
    // Toward positive, "useless" pulls away: a negative weight under a positive label.
    const toPositive = explainSentiment(NEGATIVE, 'en', 'positive').signals;
    expect(toPositive.find((signal) => signal.text === 'useless')?.weight).toBeLessThan(0);
  });

  it('names negated words', () => {
    expect(weightOf('This is not good at all', 'en', 'good (negated)')).toBeLessThan(0);
  });

  it(`does not rate a text without words, nor one under ${RATED_MIN_WORDS} words it would call neutral`, () => {
    for (const text of ['', 'a', 'ok', 'https://x.example/a', '@nova !!!']) {
      const explained = explainSentiment(text, 'en');
      expect(explained, text).toMatchObject({ label: 'neutral', rated: false, signals: [] });
    }
    // A short text with a clear label is rated.
    for (const text of ['Terrible!', '😡']) {
      const explained = explainSentiment(text, 'en');
      expect(explained, text).toMatchObject({ label: 'negative', rated: true });
      expect(explained.signals[0]!.weight, text).toBeLessThan(0);
    }
  });

  it('explains the word list, without a probability, for languages the model lacks', () => {
    const explained = explainSentiment('新しいスマホ最高でした！', 'ja');
    expect(explained).toMatchObject({ label: 'positive', rated: true, confidence: null });
    expect(explained.signals[0]!.text).toBe('最高');
    expect(explained.signals[0]!.weight).toBeGreaterThan(0);
    expect(explainSentiment('最悪', 'ja').signals[0]!.weight).toBeLessThan(0);
  });

  it('rates by the rule: some word or emoji, and a label or at least RATED_MIN_WORDS of them', () => {
    for (const label of ['negative', 'neutral', 'positive'] as const)
      expect(sentimentRated(0, label)).toBe(false);
    for (let words = 1; words < RATED_MIN_WORDS; words++) {
      expect(sentimentRated(words, 'neutral'), `${words}`).toBe(false);
      expect(sentimentRated(words, 'negative'), `${words}`).toBe(true);
      expect(sentimentRated(words, 'positive'), `${words}`).toBe(true);
    }
    expect(sentimentRated(RATED_MIN_WORDS, 'neutral')).toBe(true);
  });

  it("records what the card says: the scorer's count and label give the explanation's rating", () => {
    // What the importer, the generator and the rescan store (posts.sentiment_rated) from scoreSentiment(), for texts
    // of the model's languages and the word list's, short and long, whatever labels the model gives them.
    const texts: Array<[string, string | null]> = [
      ['', 'en'],
      ['ok', 'en'],
      ['ok then', 'en'],
      ['Terrible!', 'en'],
      ['@nova https://x.example/a', null],
      ['😡', null],
      [NEGATIVE, 'en'],
      [POSITIVE, 'en'],
      ['Das ist gut', 'de'],
      ['最悪', 'ja'],
      ['今日は', 'ja'],
      ['新しいスマホ最高でした！', 'ja'],
    ];
    let unrated = 0;
    for (const [text, language] of texts) {
      const { tokens, label } = scoreSentiment(text, language);
      const rated = sentimentRated(tokens, label);
      expect(rated, text).toBe(explainSentiment(text, language).rated);
      if (!rated) unrated += 1;
    }
    expect(unrated).toBeGreaterThan(0);
  });
});
