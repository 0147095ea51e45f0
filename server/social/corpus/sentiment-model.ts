// The trained sentiment model: a multinomial logistic regression (negative / neutral / positive) over hashed features
// (sentiment-features.ts), trained by scripts/sentiment-train.ts on public labelled tweets (docs/sentiment.md, the
// model card). Its weights ship in sentiment-model.bin.gz, loaded once, on first use.
//
// scoreSentiment() is what the importer and the demo generator call: the model for the languages it was trained on
// (en, ar, de, es, fr, it, pt, and Hindi in Latin script), the word list (sentiment.ts) for every other language.
// Its result has the word list's shape: sentiment = P(positive) − P(negative), 4 decimals; label = the likeliest class;
// score = the positive logit minus the negative one; words = the tokens that pushed most toward the label.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { analyseSentiment, type SentimentLabel, type SentimentResult } from './sentiment';
import {
  bigramHash,
  languageSalt,
  lexiconFeatures,
  modelLanguage,
  modelWords,
  otherHash,
  slotsOf,
  tokenCharGrams,
  unigramHash,
  type FeatureConfig,
  type ModelLanguage,
} from './sentiment-features';

export const MODEL_FILE = new URL('./sentiment-model.bin.gz', import.meta.url);
const MAGIC = 'MSM1';
export const LABELS: readonly SentimentLabel[] = ['negative', 'neutral', 'positive'];
const CLASS_COUNT = 3;
/** How many words an explanation lists at most. */
const EXPLAINED_WORDS = 5;
/** Punctuation, <url> and <user>: not counted as words, nor given as explanations. */
export const BREAK = /^[.!?<]/u;
/** How many words' summed weights SentimentModel keeps a language (wordSum()). */
const WORD_CACHE_SIZE = 100_000;

/** What the model file says about itself besides its weights (the trainer writes it; docs/sentiment.md shows it). */
export interface ModelHeader {
  config: FeatureConfig;
  languages: ModelLanguage[];
  /** Weight = int16 value × scale. */
  scale: number;
  /** How it was trained and how it scored; informative only. */
  training: Record<string, unknown>;
}

/** The file: gzip of "MSM1", the header's byte length (uint32 LE), the header (JSON), then int16 LE weights. */
export function encodeModel(header: ModelHeader, weights: Int16Array): Buffer {
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(json.length);
  const body = Buffer.from(weights.buffer, weights.byteOffset, weights.byteLength);
  return gzipSync(Buffer.concat([Buffer.from(MAGIC), length, json, body]), { level: 9 });
}

export class SentimentModel {
  readonly header: ModelHeader;
  private readonly weights: Int16Array;
  private readonly salts = new Map<string, number>();
  private readonly slots = new Int32Array(2);
  private readonly words = new Map<ModelLanguage, Map<string, Int32Array>>();

  constructor(header: ModelHeader, weights: Int16Array) {
    if (weights.length !== (1 << header.config.bits) * CLASS_COUNT)
      throw new Error('sentiment model: wrong weight count');
    this.header = header;
    this.weights = weights;
    for (const language of header.languages) this.salts.set(language, languageSalt(language));
  }

  /** A model from its file's bytes (encodeModel()). */
  static decode(file: Buffer): SentimentModel {
    const raw = gunzipSync(file);
    if (raw.toString('latin1', 0, 4) !== MAGIC) throw new Error('not a sentiment model file');
    const length = raw.readUInt32LE(4);
    const header = JSON.parse(raw.toString('utf8', 8, 8 + length)) as ModelHeader;
    const start = 8 + length;
    // Copied into an aligned array (the header's length leaves the weights at any byte offset).
    const weights = new Int16Array((raw.length - start) >> 1);
    for (let i = 0; i < weights.length; i++) weights[i] = raw.readInt16LE(start + i * 2);
    return new SentimentModel(header, weights);
  }

  covers(language: string): boolean {
    return this.salts.has(language);
  }

  /** The class probabilities [negative, neutral, positive] and the explanation of a text in a covered language. */
  analyse(text: string, language: ModelLanguage): SentimentResult {
    const trace = this.trace(text, language);
    // No word nor emoji (an empty text, only links, mentions or punctuation): no opinion, as with the word list.
    if (!trace) return { score: 0, tokens: 0, sentiment: 0, label: 'neutral', words: [] };
    const { p, z } = trace;
    const best = likeliest(p);
    const sentiment = Math.round((p[2]! - p[0]!) * 10_000) / 10_000;
    return {
      score: Math.round((z[2]! - z[0]!) * 10_000) / 10_000,
      tokens: trace.words,
      sentiment: Object.is(sentiment, -0) ? 0 : sentiment,
      label: LABELS[best]!,
      words: explain(trace, best),
    };
  }

  /**
   * How the model reached its answer on a text in a covered language: the logits, the class probabilities and what
   * each token's features (and the word list's) added to each logit; undefined for a text without a word or emoji.
   *
   * The features are extractFeatures()'s, summed a token at a time: every n-gram has the same value (1/√n), so a
   * token's unigram and character n-grams are one sum of stored integer weights, kept per word (wordSum()), and its
   * bigram is added to it; the sums are scaled once n is known.
   */
  trace(text: string, language: ModelLanguage): ModelTrace | undefined {
    const { config, scale } = this.header;
    const { tokens, negated } = modelWords(text, language);
    const words = tokens.filter((token) => !BREAK.test(token)).length;
    if (words === 0) return undefined;
    const salt = this.salts.get(language)!;
    const sums = new Int32Array(tokens.length * CLASS_COUNT);
    let ngrams = 0;
    let previous = '<s>';
    for (let t = 0; t < tokens.length; t++) {
      const token = tokens[t]!;
      const word = this.wordSum(token, negated[t]!, language, salt);
      const at = t * CLASS_COUNT;
      sums[at] = word[0]!;
      sums[at + 1] = word[1]!;
      sums[at + 2] = word[2]!;
      ngrams += word[3]!;
      if (config.bigrams) {
        this.addWeights(bigramHash(previous, token), salt, sums, at);
        ngrams += 1;
        previous = token;
      }
    }
    const end = new Int32Array(CLASS_COUNT);
    if (config.bigrams) {
      this.addWeights(bigramHash(previous, '</s>'), salt, end, 0);
      ngrams += 1;
    }
    const v = (1 / Math.sqrt(ngrams)) * scale;
    const byToken = new Float64Array(sums.length);
    const z = [end[0]! * v, end[1]! * v, end[2]! * v];
    for (let i = 0; i < sums.length; i++) {
      byToken[i] = sums[i]! * v;
      z[i % CLASS_COUNT]! += byToken[i]!;
    }
    this.addFeature(otherHash('<bias>'), scale, salt, z);
    const lexicon = [0, 0, 0];
    if (config.lexicon) {
      for (const [hash, value] of lexiconFeatures(text, language))
        this.addFeature(hash, value * scale, salt, z, lexicon);
    }
    const top = Math.max(z[0]!, z[1]!, z[2]!);
    const e = z.map((x) => Math.exp(x - top));
    const sum = e[0]! + e[1]! + e[2]!;
    return { tokens, negated, words, byToken, lexicon, z, p: e.map((x) => x / sum) };
  }

  /** A feature's stored integer weights (each of its slots'), added to sums[at..at+2]. */
  private addWeights(hash: number, salt: number, sums: Int32Array, at: number): void {
    const n = slotsOf(hash, salt, this.header.config, this.slots);
    for (let s = 0; s < n; s++) {
      const base = this.slots[s]! * CLASS_COUNT;
      sums[at]! += this.weights[base]!;
      sums[at + 1]! += this.weights[base + 1]!;
      sums[at + 2]! += this.weights[base + 2]!;
    }
  }

  /** A feature of its own value (the bias, the word list's): its weights × value added to each of `into`. */
  private addFeature(hash: number, value: number, salt: number, ...into: number[][]) {
    const sums = new Int32Array(CLASS_COUNT);
    this.addWeights(hash, salt, sums, 0);
    for (const z of into) for (let c = 0; c < CLASS_COUNT; c++) z[c]! += sums[c]! * value;
  }

  /**
   * A token's unigram and character n-grams: their stored weights summed per class, and how many features (at 3).
   * Kept per language for the words met most recently (cleared when full): a corpus repeats its words.
   */
  private wordSum(token: string, negated: boolean, language: ModelLanguage, salt: number): Int32Array {
    let words = this.words.get(language);
    if (!words) this.words.set(language, (words = new Map()));
    const key = negated ? `NOT_${token}` : token;
    let sum = words.get(key);
    if (sum) return sum;
    sum = new Int32Array(CLASS_COUNT + 1);
    this.addWeights(unigramHash(token, negated), salt, sum, 0);
    const grams = tokenCharGrams(token, this.header.config) ?? [];
    for (const hash of grams) this.addWeights(hash, salt, sum, 0);
    sum[3] = 1 + grams.length;
    if (words.size >= WORD_CACHE_SIZE) words.clear();
    words.set(key, sum);
    return sum;
  }
}

/** What SentimentModel.trace() gives; classes in LABELS order. */
export interface ModelTrace {
  /** The model's tokens (modelTokens()) and, per token, whether a negation's scope covers it. */
  tokens: string[];
  negated: boolean[];
  /** Words and emoji: tokens other than punctuation, links and mentions. */
  words: number;
  /** Per token t, what its features added to each class's logit, at t × 3 + class. */
  byToken: Float64Array;
  /** What the word list's features added to each class's logit. */
  lexicon: number[];
  z: number[];
  /** The class probabilities (the softmax of z). */
  p: number[];
}

/** The likeliest class (ties: negative before neutral, neutral before positive). */
export const likeliest = (p: readonly number[]) =>
  p[2]! > p[0]! && p[2]! > p[1]! ? 2 : p[0]! > p[1]! ? 0 : 1;

/** The words whose features pushed most toward the label (its logit above the classes' mean), strongest first. */
function explain({ tokens, negated, byToken }: ModelTrace, best: number): string[] {
  const push: [number, number][] = [];
  for (let t = 0; t < tokens.length; t++) {
    const at = t * CLASS_COUNT;
    const lift = byToken[at + best]! - (byToken[at]! + byToken[at + 1]! + byToken[at + 2]!) / CLASS_COUNT;
    if (lift > 0 && !BREAK.test(tokens[t]!)) push.push([lift, t]);
  }
  push.sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  const words: string[] = [];
  for (const [, t] of push) {
    const word = negated[t] ? `-${tokens[t]}` : tokens[t]!;
    if (!words.includes(word)) words.push(word);
    if (words.length === EXPLAINED_WORDS) break;
  }
  return words;
}

let shipped: SentimentModel | undefined;

/** The shipped model, read on first use. */
export function sentimentModel(): SentimentModel {
  shipped ??= SentimentModel.decode(readFileSync(MODEL_FILE));
  return shipped;
}

let version: string | undefined;

/**
 * The version of the scorer scoreSentiment() is: `model-` and the first 12 hex digits of the SHA-256 of the shipped
 * weights file, so a retrained model (any change of its weights or header) is a new version. Each post records the
 * version that scored it (posts.sentiment_model); a new one rescans the corpus (rescan.ts).
 */
export function sentimentModelVersion(): string {
  version ??= `model-${createHash('sha256').update(readFileSync(MODEL_FILE)).digest('hex').slice(0, 12)}`;
  return version;
}

/**
 * A post's sentiment: the trained model for the languages it covers (by language and script, see modelLanguage()),
 * the word list otherwise. What the importer, the demo generator and `npm run sentiment` use.
 */
export function scoreSentiment(text: string, language?: string | null): SentimentResult {
  const covered = modelLanguage(text, language);
  if (covered) {
    const model = sentimentModel();
    if (model.covers(covered)) return model.analyse(text, covered);
  }
  return analyseSentiment(text, language);
}
