// The features of the trained sentiment model (sentiment-model.ts), shared by its trainer (scripts/sentiment-train.ts)
// so that training and scoring see exactly the same numbers. Every feature is hashed into one space of 2^bits slots
// (FNV-1a, 32 bits); no vocabulary is stored.
//
// - Tokens: NFKC, lower case; URLs become "<url>", @mentions "<user>", '#' is dropped from hashtags; letters repeated
//   three times or more are cut to two (sooo → soo); runs of ! and ? are tokens ("!", "?", "!?"); emoji are tokens.
// - Negation: after a negator of the language's word list (not, never, nicht, no, …) the next three words, up to
//   punctuation, are marked "NOT_" (the scope the word-list scorer flips in).
// - Word unigrams (negation-marked), word bigrams, character 2–5-grams within each word ('<' and '>' mark its ends:
//   they carry morphology, Arabic clitics and romanised Hindi spellings), emoji and punctuation tokens.
// - The word-list scorer's result (sentiment.ts) on the same text: its value split into positive and negative parts
//   and its label.
// - A bias. With `copies: 'both'`, every feature is placed twice: once shared by all languages and once in the post's
//   own language's copy (the "frustratingly easy" domain adaptation: the shared copy learns what languages have in
//   common — emoji, English loan words, punctuation — the own copy what differs).
import { analyseSentiment } from './sentiment';
import { lexiconFor, type Lexicon } from './sentiment-lexicon';

export interface FeatureConfig {
  /** log2 of the number of hashed slots. */
  bits: number;
  /** Shortest and longest character n-gram (0 for none). */
  charMin: number;
  charMax: number;
  bigrams: boolean;
  /** The word-list scorer's value as features. */
  lexicon: boolean;
  /**
   * Which copies of every feature: one shared by all languages, one per language, or both (the default: the shared
   * copy learns what languages have in common, the language's own what differs).
   */
  copies: 'shared' | 'own' | 'both';
}

/** A post's features: 32-bit hashes and values (the n-gram part scaled to unit length); slotsOf() places them. */
export interface Features {
  hash: number[];
  value: number[];
  /** For each feature, the word token it came from (-1: none; LEXICON_FEATURE: the word list's), for explanations. */
  token: number[];
  tokens: string[];
  /** Per token: inside a negation's scope. */
  negated: boolean[];
  /** How many features, at the start, are n-grams (the rest: the bias and the word list's). */
  ngrams: number;
}

const URL_PATTERN = /\b(?:https?:\/\/|www\.)\S*/giu;
const MENTION_PATTERN = /(^|[^\p{L}\p{N}_])@[\p{L}\p{N}_.]+/gu;
const TOKEN_PATTERN =
  /<url>|<user>|[\p{L}\p{M}\p{N}]+(?:['’][\p{L}\p{M}\p{N}]+)*|\p{Extended_Pictographic}|[!?¡¿]+|[.,;:。、！？，…]+/gu;
const WORD = /^[\p{L}\p{M}\p{N}]/u;
const BREAK = /^[.,;:。、！？，…!?¡¿]/u;
const REPEATS = /(\p{L})\1{2,}/gu;
const DEVANAGARI = /[\u0900-\u097f]/gu;
const LATIN = /\p{Script=Latin}/gu;
const NON_LATIN_LETTER = /(?!\p{Script=Latin})\p{L}/u;
const NEGATION_WINDOW = 3;
/** Negators the word lists lack: romanised Hindi's (its word list is in Devanagari). */
const EXTRA_NEGATORS: Partial<Record<ModelLanguage, Set<string>>> = {
  hi: new Set(['nahi', 'nahin', 'nhi', 'nai', 'mat', 'na', 'nahe']),
};
const MAX_WORD_FOR_CHARS = 24;
/** Features.token of the word-list scorer's features. */
const LEXICON_FEATURE = -2;

/** The model's languages: those with training data. Hindi only when written mostly in Latin
 * script (the training data is romanised); Devanagari Hindi is left to the word list. */
export const MODEL_LANGUAGES = ['en', 'ar', 'de', 'es', 'fr', 'hi', 'it', 'pt'] as const;
export type ModelLanguage = (typeof MODEL_LANGUAGES)[number];

const count = (text: string, pattern: RegExp) => text.match(pattern)?.length ?? 0;

/** The model language for a post, or undefined when the word list must score it (no training data for it). */
export function modelLanguage(text: string, language?: string | null): ModelLanguage | undefined {
  // A post of unknown language is scored as English (as the word list does) when it has letters of no other script.
  if (!language && NON_LATIN_LETTER.test(text)) return undefined;
  const lang = language ?? 'en';
  if (!(MODEL_LANGUAGES as readonly string[]).includes(lang)) return undefined;
  if (lang === 'hi' && count(text, DEVANAGARI) > count(text, LATIN)) return undefined;
  return lang as ModelLanguage;
}

/** The word list used for negators and the word-list features: romanised Hindi is scored with English's. */
export const lexiconLanguage = (language: ModelLanguage) => (language === 'hi' ? 'en' : language);

function hashString(text: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A second, independent mix of a hash (for the per-language copy). */
function remix(h: number, salt: number): number {
  let x = Math.imul(h ^ salt, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

const SEED_WORD = 1;
const SEED_BIGRAM = 2;
const SEED_CHAR = 3;
const SEED_OTHER = 4;

/** The model's tokens for a text (exported for tests and tools). */
export function modelTokens(text: string): string[] {
  const clean = text
    .normalize('NFKC')
    .toLowerCase()
    .replace(URL_PATTERN, ' <url> ')
    .replace(MENTION_PATTERN, '$1 <user> ')
    .replaceAll('’', "'")
    .replace(REPEATS, '$1$1');
  const tokens: string[] = [];
  for (const m of clean.matchAll(TOKEN_PATTERN)) {
    let token = m[0];
    if (token[0] === '!' || token[0] === '?' || token[0] === '¡' || token[0] === '¿') {
      const bang = /[!¡]/.test(token);
      const ask = /[?¿]/.test(token);
      token = bang && ask ? '!?' : bang ? (token.length > 1 ? '!!' : '!') : '?';
    } else if (BREAK.test(token)) token = token.includes('…') || token.includes('..') ? '...' : '.';
    tokens.push(token);
  }
  return tokens;
}

function negationMarks(tokens: string[], lexicon: Lexicon | undefined, extra?: Set<string>): boolean[] {
  const marks = new Array<boolean>(tokens.length).fill(false);
  if (!lexicon) return marks;
  let until = -1;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (BREAK.test(token)) {
      until = -1;
      continue;
    }
    let negator = lexicon.negators.has(token) || extra?.has(token) ? 1 : 0;
    if (!negator && lexicon.phraseStarts.has(token)) {
      for (let k = Math.min(3, tokens.length - i); k >= 2; k--) {
        if (lexicon.negators.has(tokens.slice(i, i + k).join(' '))) {
          negator = k;
          break;
        }
      }
    }
    if (negator) {
      until = i + negator - 1 + NEGATION_WINDOW;
      i += negator - 1;
    } else if (i <= until && WORD.test(token)) marks[i] = true;
  }
  return marks;
}

/** hashString(`${a} ${b}`, seed), without building the string. */
function hashPair(a: string, b: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < a.length; i++) h = Math.imul(h ^ a.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ 32, 0x01000193);
  for (let i = 0; i < b.length; i++) h = Math.imul(h ^ b.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Words' character n-gram hashes, kept for the words met most recently (cleared when full). */
const gramCache = new Map<string, Map<string, Uint32Array>>();
const GRAM_CACHE_SIZE = 50_000;

/** The hashes of a word's character n-grams ('<' and '>' mark its ends), in a fixed order. */
function charGrams(word: string, config: FeatureConfig): Uint32Array {
  const key = `${config.charMin}-${config.charMax}`;
  let cache = gramCache.get(key);
  if (!cache) gramCache.set(key, (cache = new Map()));
  const cached = cache.get(word);
  if (cached) return cached;
  const grams: number[] = [];
  const padded = `<${word}>`;
  for (let i = 0; i < padded.length; i++) {
    let h = (0x811c9dc5 ^ SEED_CHAR) >>> 0;
    for (let j = i; j < padded.length && j - i < config.charMax; j++) {
      h = Math.imul(h ^ padded.charCodeAt(j), 0x01000193);
      const n = j - i + 1;
      // A whole word is already a unigram; a lone boundary mark carries nothing.
      if (n >= config.charMin && n < padded.length) grams.push(h >>> 0);
    }
  }
  if (cache.size >= GRAM_CACHE_SIZE) cache.clear();
  const result = Uint32Array.from(grams);
  cache.set(word, result);
  return result;
}

/** A text's tokens (modelTokens()) and, per token, whether a negation's scope covers it. */
export function modelWords(text: string, language: ModelLanguage): { tokens: string[]; negated: boolean[] } {
  const tokens = modelTokens(text);
  return {
    tokens,
    negated: negationMarks(tokens, lexiconFor(lexiconLanguage(language)), EXTRA_NEGATORS[language]),
  };
}

/** The hash of a token's unigram feature ("NOT_" before it inside a negation's scope). */
export const unigramHash = (token: string, negated: boolean) =>
  hashString(negated ? `NOT_${token}` : token, SEED_WORD);

/** The hash of the bigram feature of two tokens ('<s>' and '</s>' stand for the text's ends). */
export const bigramHash = (previous: string, token: string) => hashPair(previous, token, SEED_BIGRAM);

/** The hash of a feature that is not an n-gram: the bias, the word list's. */
export const otherHash = (name: string) => hashString(name, SEED_OTHER);

/** A token's character n-gram hashes; undefined for punctuation, links, mentions and long words. */
export function tokenCharGrams(token: string, config: FeatureConfig): Uint32Array | undefined {
  if (config.charMax === 0 || token.length > MAX_WORD_FOR_CHARS || token[0] === '<' || !WORD.test(token))
    return undefined;
  return charGrams(token, config);
}

/** The word list's features of a text, in order: [hash, value] (the model's shape for sentiment.ts's result). */
export function lexiconFeatures(text: string, language: ModelLanguage): [number, number][] {
  const { sentiment, label } = analyseSentiment(text, lexiconLanguage(language));
  const features: [number, number][] = [];
  if (sentiment > 0) features.push([otherHash('<lex+>'), sentiment]);
  if (sentiment < 0) features.push([otherHash('<lex->'), -sentiment]);
  features.push([otherHash(`<lex:${label}>`), 1]);
  return features;
}

/**
 * The features of a text in one of the model's languages, one by one: what the trainer reads. The scorer
 * (SentimentModel.trace()) sums the same features a word at a time; a test holds the two equal.
 */
export function extractFeatures(text: string, language: ModelLanguage, config: FeatureConfig): Features {
  const { tokens, negated: marks } = modelWords(text, language);
  const hashes: number[] = [];
  const owners: number[] = [];
  let previous = '<s>';
  for (let t = 0; t < tokens.length; t++) {
    const token = tokens[t]!;
    hashes.push(unigramHash(token, marks[t]!));
    owners.push(t);
    if (config.bigrams) {
      hashes.push(bigramHash(previous, token));
      owners.push(t);
      previous = token;
    }
    for (const h of tokenCharGrams(token, config) ?? []) {
      hashes.push(h);
      owners.push(t);
    }
  }
  if (config.bigrams && tokens.length > 0) {
    hashes.push(bigramHash(previous, '</s>'));
    owners.push(-1);
  }
  const ngrams = hashes.length;
  const scale = ngrams > 0 ? 1 / Math.sqrt(ngrams) : 0;
  const value = new Array<number>(hashes.length).fill(scale);
  hashes.push(otherHash('<bias>'));
  value.push(1);
  owners.push(-1);
  if (config.lexicon) {
    for (const [hash, v] of lexiconFeatures(text, language)) {
      hashes.push(hash);
      value.push(v);
      owners.push(LEXICON_FEATURE);
    }
  }
  return { hash: hashes, value, token: owners, tokens, negated: marks, ngrams };
}

/** The salt of a language's own copy of the features. */
export const languageSalt = (language: ModelLanguage) => otherHash(language);

/** The slots of a feature's hash (the shared one, the language's own, or both); written to `out`, returns how many. */
export function slotsOf(hash: number, salt: number, config: FeatureConfig, out: Int32Array): number {
  const mask = (1 << config.bits) - 1;
  if (config.copies === 'own') {
    out[0] = remix(hash, salt) & mask;
    return 1;
  }
  out[0] = hash & mask;
  if (config.copies === 'shared') return 1;
  out[1] = remix(hash, salt) & mask;
  return 2;
}
