import { describe, expect, it } from 'vitest';
import { analyseSentiment, label, NEUTRAL_BAND, tokenize } from '@server/social/corpus/sentiment';
import { lexiconFor, lexiconLanguages } from '@server/social/corpus/sentiment-lexicon';

const CASES: Record<string, { positive: string[]; negative: string[]; neutral: string[] }> = {
  en: {
    positive: ['I love the new phone, the camera is amazing! 😍', 'Great match, so proud of this team.'],
    negative: ['Worst outage ever. The app is totally unusable 😡', 'This update is terrible and I hate it.'],
    neutral: ['The event starts at 7pm in the main hall.', 'Meeting at the office on Tuesday.'],
  },
  es: {
    positive: [
      '¡Me encanta el nuevo teléfono, la cámara es increíble!',
      'Qué partido tan emocionante, felicidades.',
    ],
    negative: ['No me gusta nada, la batería es horrible.', 'El servicio es pésimo, qué decepción.'],
    neutral: ['El partido empieza a las nueve en el estadio.', 'Mañana hay reunión en la oficina.'],
  },
  ko: {
    positive: ['새 폰 정말 최고예요! 카메라가 너무 좋아요 👍', '오늘 공연 진짜 감동이었어요.'],
    negative: ['서버 장애 때문에 너무 짜증나요. 최악이다', '배송이 또 늦어졌어요. 실망이에요.'],
    neutral: ['내일 오후 세 시에 회의가 있습니다.', '오늘은 카페에서 일하는 중.'],
  },
  ja: {
    positive: ['新しいスマホ最高でした！カメラが本当に素晴らしい😍', 'このラーメン、めちゃくちゃ美味しい。'],
    negative: ['サーバーが落ちて最悪です。本当にひどい', '発送がまた延期。がっかり。'],
    neutral: ['明日の会議は午後三時からです。', '今日はカフェで作業中。'],
  },
};

describe('sentiment (lexicon estimate per language)', () => {
  for (const [language, cases] of Object.entries(CASES)) {
    it(`labels clear ${language} sentences`, () => {
      for (const text of cases.positive)
        expect(analyseSentiment(text, language), text).toMatchObject({ label: 'positive' });
      for (const text of cases.negative)
        expect(analyseSentiment(text, language), text).toMatchObject({ label: 'negative' });
      for (const text of cases.neutral) {
        const result = analyseSentiment(text, language);
        expect(result, text).toMatchObject({ label: 'neutral', sentiment: 0 });
      }
    });
  }

  it('flips negated words: before the word (en, es, ko) and after it (ja, ko)', () => {
    expect(analyseSentiment('The new phone is not good', 'en').label).toBe('negative');
    expect(analyseSentiment('No me gusta', 'es').label).toBe('negative');
    expect(analyseSentiment('이 카메라 안 좋아요', 'ko').label).toBe('negative');
    expect(analyseSentiment('카메라가 좋지 않아요', 'ko').label).toBe('negative');
    expect(analyseSentiment('このラーメンは美味しくない', 'ja').label).toBe('negative');
  });

  it('stops negation at punctuation', () => {
    const result = analyseSentiment('No puedo trabajar. Inaceptable.', 'es');
    expect(result.words).toEqual(['inaceptable']);
    expect(result.label).toBe('negative');
  });

  it('tokenises Japanese with Intl.Segmenter and drops URLs and mentions', () => {
    expect(tokenize('明日の会議', lexiconFor('ja')!)).toEqual(['明日', 'の', '会議']);
    const tokens = tokenize('Love it @nova_official https://nova.example/x #NovaX', lexiconFor('en')!);
    expect(tokens).toEqual(['love', 'it', 'novax']);
  });

  it('normalises to tanh(S / (2·√n)) in (-1, 1) with a neutral band', () => {
    const result = analyseSentiment('I love it', 'en');
    expect(result.score).toBe(3);
    expect(result.tokens).toBe(3);
    expect(result.sentiment).toBeCloseTo(Math.tanh(3 / (2 * Math.sqrt(3))), 4);
    const extreme = analyseSentiment('love love love love love love love love love love', 'en');
    expect(extreme.sentiment).toBeLessThan(1);
    expect(extreme.sentiment).toBeGreaterThan(0.99);
    expect(label(NEUTRAL_BAND - 0.0001)).toBe('neutral');
    expect(label(NEUTRAL_BAND)).toBe('positive');
    expect(label(-NEUTRAL_BAND)).toBe('negative');
  });

  it('is deterministic and falls back to English for languages without a list', () => {
    const text = 'Great phone, terrible battery 😍';
    expect(analyseSentiment(text, 'en')).toEqual(analyseSentiment(text, 'en'));
    expect(analyseSentiment(text, 'xx')).toEqual(analyseSentiment(text, 'en'));
    expect(analyseSentiment(text, null)).toEqual(analyseSentiment(text, 'en'));
    expect(analyseSentiment('', 'en')).toMatchObject({ sentiment: 0, label: 'neutral', tokens: 0 });
  });

  it('has word lists for many languages beyond the four the generator writes', () => {
    const languages = lexiconLanguages();
    for (const language of ['en', 'es', 'ja', 'ko', 'zh', 'fr', 'de', 'pt'])
      expect(languages.has(language)).toBe(true);
    expect(analyseSentiment('C’est un film magnifique', 'fr').label).toBe('positive');
  });
});
