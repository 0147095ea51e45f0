import { describe, expect, it } from 'vitest';
import { analyseSentiment } from '@server/social/corpus/sentiment';
import {
  extractFeatures,
  languageSalt,
  modelLanguage,
  modelTokens,
  slotsOf,
  type FeatureConfig,
  type ModelLanguage,
} from '@server/social/corpus/sentiment-features';
import {
  encodeModel,
  scoreSentiment,
  sentimentModel,
  SentimentModel,
} from '@server/social/corpus/sentiment-model';

// Hand-written sentences (the labelled data sets stay outside the repository).
const CLEAR: Record<string, { positive: string[]; negative: string[] }> = {
  en: {
    positive: ['I love this phone, the camera is amazing! 😍', 'Great match tonight, so proud of this team!'],
    negative: [
      'Worst update ever, the app keeps crashing. I hate it 😡',
      'Terrible service, I am so disappointed.',
    ],
  },
  es: {
    positive: [
      '¡Me encanta este teléfono, la cámara es increíble!',
      'Qué partido tan bonito, felicidades al equipo.',
    ],
    negative: ['El servicio es pésimo, qué decepción.', 'Odio esta actualización, es horrible.'],
  },
  de: {
    positive: ['Ich liebe dieses Handy, die Kamera ist super!', 'Tolles Spiel, ich bin so glücklich!'],
    negative: [
      'Schlechtester Service aller Zeiten, total enttäuscht.',
      'Das Update ist schrecklich, ich hasse es.',
    ],
  },
  fr: {
    positive: ["J'adore ce téléphone, la caméra est magnifique !", 'Super match, bravo à toute l’équipe !'],
    negative: ['Service horrible, je suis très déçu.', 'Je déteste cette mise à jour, quelle horreur !'],
  },
};

describe('sentiment model', () => {
  it('loads the shipped weights once, for the languages it was trained on', () => {
    const model = sentimentModel();
    expect(sentimentModel()).toBe(model);
    for (const language of ['en', 'ar', 'de', 'es', 'fr', 'hi', 'it', 'pt'])
      expect(model.covers(language)).toBe(true);
    expect(model.covers('ja')).toBe(false);
  });

  for (const [language, cases] of Object.entries(CLEAR)) {
    it(`labels clear ${language} sentences`, () => {
      for (const text of cases.positive) {
        const result = scoreSentiment(text, language);
        expect(result.label, text).toBe('positive');
        expect(result.sentiment, text).toBeGreaterThan(0);
      }
      for (const text of cases.negative) {
        const result = scoreSentiment(text, language);
        expect(result.label, text).toBe('negative');
        expect(result.sentiment, text).toBeLessThan(0);
      }
    });
  }

  it('has the word-list result shape: sentiment = P(pos) − P(neg) in (-1, 1), 4 decimals, explained by words', () => {
    const result = scoreSentiment('I love this phone, the camera is amazing!', 'en');
    expect(result.sentiment).toBeGreaterThan(-1);
    expect(result.sentiment).toBeLessThan(1);
    expect(Math.round(result.sentiment * 10_000) / 10_000).toBe(result.sentiment);
    expect(result.tokens).toBe(8);
    expect(result.words.length).toBeGreaterThan(0);
    expect(result.words.length).toBeLessThanOrEqual(5);
    expect(result.words).toContain('love');
  });

  it('marks negated words', () => {
    expect(scoreSentiment('This is not good at all', 'en').label).toBe('negative');
    const { negated, tokens } = extractFeatures('not good. great', 'en', {
      bits: 10,
      charMin: 2,
      charMax: 5,
      bigrams: true,
      lexicon: true,
      copies: 'both',
    });
    expect(tokens).toEqual(['not', 'good', '.', 'great']);
    expect(negated).toEqual([false, true, false, false]);
  });

  it('gives no opinion on a text without words or emoji', () => {
    for (const text of ['', 'https://x.example/a', '@nova !!!'])
      expect(scoreSentiment(text, 'de')).toEqual({
        score: 0,
        tokens: 0,
        sentiment: 0,
        label: 'neutral',
        words: [],
      });
  });

  it('is deterministic', () => {
    const text = 'Great phone, terrible battery 😍 #fail';
    expect(scoreSentiment(text, 'en')).toEqual(scoreSentiment(text, 'en'));
    expect(scoreSentiment(text, 'fr')).toEqual(scoreSentiment(text, 'fr'));
  });

  it('leaves languages without training data, and Hindi in Devanagari, to the word list', () => {
    for (const [text, language] of [
      ['新しいスマホ最高でした！', 'ja'],
      ['오늘 공연 진짜 감동이었어요.', 'ko'],
      ['这个手机很好', 'zh'],
      ['यह फ़ोन बहुत अच्छा है', 'hi'],
      ['Great phone', 'xx'],
    ] as const) {
      expect(modelLanguage(text, language), text).toBeUndefined();
      expect(scoreSentiment(text, language), text).toEqual(analyseSentiment(text, language));
    }
    expect(modelLanguage('yeh phone bahut accha hai', 'hi')).toBe('hi');
    // Unknown language: English's model for Latin script only.
    expect(modelLanguage('Great phone', null)).toBe('en');
    expect(modelLanguage('这个手机很好', null)).toBeUndefined();
  });

  it('tokenises: URLs, mentions, elongations and punctuation runs', () => {
    expect(modelTokens('@nova Sooo goood!!! https://x.example/a #NovaX')).toEqual([
      '<user>',
      'soo',
      'good',
      '!!',
      '<url>',
      'novax',
    ]);
  });

  it('round-trips a model file', () => {
    const config: FeatureConfig = {
      bits: 4,
      charMin: 0,
      charMax: 0,
      bigrams: false,
      lexicon: false,
      copies: 'shared',
    };
    const weights = Int16Array.from({ length: 16 * 3 }, (_, i) => (i % 3) - 1);
    const file = encodeModel({ config, languages: ['en'], scale: 0.5, training: {} }, weights);
    const model = SentimentModel.decode(file);
    expect(model.header.config).toEqual(config);
    expect(model.covers('en')).toBe(true);
    // Every slot favours positive over negative: P(pos) > P(neg).
    expect(model.analyse('anything at all', 'en').label).toBe('positive');
  });

  it("sums the trainer's features a word at a time: the same logits as extractFeatures() one by one", () => {
    const config: FeatureConfig = {
      bits: 9,
      charMin: 2,
      charMax: 5,
      bigrams: true,
      lexicon: true,
      copies: 'both',
    };
    // Pseudo-random weights (a small space: slots are shared by many features, as in the real one).
    let seed = 7;
    const weights = Int16Array.from({ length: (1 << config.bits) * 3 }, () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return ((seed >>> 16) % 2001) - 1000;
    });
    const languages: ModelLanguage[] = ['en', 'de', 'es', 'hi'];
    const model = new SentimentModel({ config, languages, scale: 0.003, training: {} }, weights);
    const texts: [string, ModelLanguage][] = [
      ['I do not like this at all, never again!!! https://x.example/a @nova 😡', 'en'],
      ['Not bad. Not bad at all 👍 #NovaPhone', 'en'],
      ['Sooo goood… supercalifragilisticexpialidociousness', 'en'],
      ['Das ist nicht gut, gar nicht gut.', 'de'],
      ['¡No me gusta nada! ¿Por qué?', 'es'],
      ['yeh phone nahi accha hai', 'hi'],
      ['I do not like this at all, never again!!! https://x.example/a @nova 😡', 'en'],
    ];
    const slots = new Int32Array(2);
    for (const [text, language] of texts) {
      const features = extractFeatures(text, language, config);
      const z = [0, 0, 0];
      const byToken = new Float64Array(features.tokens.length * 3);
      features.hash.forEach((hash, f) => {
        const n = slotsOf(hash, languageSalt(language), config, slots);
        for (let s = 0; s < n; s++)
          for (let c = 0; c < 3; c++) {
            const x = weights[slots[s]! * 3 + c]! * features.value[f]! * 0.003;
            z[c]! += x;
            if (features.token[f]! >= 0) byToken[features.token[f]! * 3 + c]! += x;
          }
      });
      const trace = model.trace(text, language)!;
      expect(trace.tokens, text).toEqual(features.tokens);
      expect(trace.negated, text).toEqual(features.negated);
      for (let c = 0; c < 3; c++) expect(trace.z[c], text).toBeCloseTo(z[c]!, 9);
      byToken.forEach((x, i) => expect(trace.byToken[i], text).toBeCloseTo(x, 9));
    }
  });
});
