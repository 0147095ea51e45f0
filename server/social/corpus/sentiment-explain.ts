// Why a post has its sentiment label (issue 53, item 4): how sure the scorer is, the words and signals that moved the
// post toward its label and by how much, and whether the text gives enough to rate at all. Computed on demand (the
// model is linear: one pass over the post's features, tens of µs), never stored. docs/sentiment.md#explanations.
//
// - The model (the languages it covers): the confidence is the softmax probability of the label. A token's weight is
//   what its features (unigram, the bigram ending on it, its character n-grams) added to the label's logit above the
//   mean of the three logits — softmax is unchanged by adding one number to every logit, so this is the token's share
//   of the label's lead. Tokens with the same display text add up. The word list's features (the word-list scorer's
//   value on the same text) are shared out among the words it matched, in proportion to each word's value over their
//   sum (their score), so "useless" carries both its own features and its part of the word list's; when no word
//   matched, or their values cancel out, the word list's share is a signal of its own, "word list". The bias is no
//   signal of the text and is left out.
// - The word list (every other language): no probability (confidence null); a word's weight is its value's share of
//   the score's argument, value / (2·√words), as sentiment.ts sums it.
// - Signs: a weight is signed toward the label as the label reads, so under a negative label a word that pushed toward
//   negative is negative ("useless −1.2") and one that pulled away from it positive; under a positive or neutral label
//   what pushed toward it is positive. The word list has no neutral direction: under neutral its weights keep their own
//   sign (positive words +, negative −).
// - Not rated: a text with no word nor emoji, or with fewer than RATED_MIN_WORDS of them that the scorer would call
//   neutral — too little to tell a neutral post from one the scorer knows nothing about. A short text with a clear
//   label ("Terrible!", "😡") is rated.
import { analyseSentiment, type SentimentLabel } from './sentiment';
import { lexiconLanguage, modelLanguage, type ModelLanguage } from './sentiment-features';
import { BREAK, LABELS, likeliest, sentimentModel, type SentimentModel } from './sentiment-model';

/** The most signals an explanation lists. */
export const EXPLAINED_SIGNALS = 5;
/** Fewer words and emoji than this, and a neutral label: not rated. */
export const RATED_MIN_WORDS = 3;
/** Signals weaker than this (shown as 0.0) are left out. */
const MIN_WEIGHT = 0.05;
/** The display text of the word list's features in the model's explanation. */
const WORD_LIST_SIGNAL = 'word list';

interface SentimentSignal {
  /** A word or emoji as the scorer read it (lower case; "(negated)" after one in a negation's scope), or "word list". */
  text: string;
  /** Toward the label as it reads (see above), 2 decimals; never 0. */
  weight: number;
}

export interface SentimentExplanation {
  /** The label explained: the one given, else the scorer's. */
  label: SentimentLabel;
  rated: boolean;
  /** The model's probability of the label, 3 decimals; null from the word list or without a word. */
  confidence: number | null;
  /** At most EXPLAINED_SIGNALS, strongest |weight| first; none when not rated. */
  signals: SentimentSignal[];
}

const round = (x: number, places: number) => {
  const r = Math.round(x * 10 ** places) / 10 ** places;
  return Object.is(r, -0) ? 0 : r;
};

/**
 * The explanation of a text's sentiment in a language, toward `label` when given (a post's stored label: the card
 * explains the label it shows), else toward the scorer's own. Deterministic.
 */
export function explainSentiment(
  text: string,
  language?: string | null,
  label?: SentimentLabel,
): SentimentExplanation {
  const covered = modelLanguage(text, language);
  if (covered) {
    const model = sentimentModel();
    if (model.covers(covered)) return byModel(model, text, covered, label);
  }
  return byWordList(text, language, label);
}

/**
 * Whether a text with `words` words and emoji (the scorer's count: SentimentResult.tokens) labelled `label` is rated:
 * the rule above. What the importer, the generator and the rescan record (posts.sentiment_rated, migration 0041) from
 * scoreSentiment()'s result, and what the explanation says, so the card and the dashboards agree.
 */
export const sentimentRated = (words: number, label: SentimentLabel): boolean =>
  words > 0 && (words >= RATED_MIN_WORDS || label !== 'neutral');
const rated = sentimentRated;

function byModel(
  model: SentimentModel,
  text: string,
  language: ModelLanguage,
  label: SentimentLabel | undefined,
): SentimentExplanation {
  const trace = model.trace(text, language);
  if (!trace) return { label: label ?? 'neutral', rated: false, confidence: null, signals: [] };
  const c = label ? LABELS.indexOf(label) : likeliest(trace.p);
  const chosen = LABELS[c]!;
  const confidence = round(trace.p[c]!, 3);
  if (!rated(trace.words, chosen)) return { label: chosen, rated: false, confidence, signals: [] };
  const sign = chosen === 'negative' ? -1 : 1;
  const lift = (z0: number, z1: number, z2: number) => sign * ([z0, z1, z2][c]! - (z0 + z1 + z2) / 3);
  const { tokens, negated } = trace;
  const weights = new Map<string, number>();
  const { byToken, lexicon } = trace;
  for (let t = 0; t < tokens.length; t++) {
    if (BREAK.test(tokens[t]!)) continue;
    const at = t * 3;
    add(
      weights,
      negated[t] ? `-${tokens[t]}` : tokens[t]!,
      lift(byToken[at]!, byToken[at + 1]!, byToken[at + 2]!),
    );
  }
  const listed = lift(lexicon[0]!, lexicon[1]!, lexicon[2]!);
  const values: number[] = [];
  const { words, score } = analyseSentiment(text, lexiconLanguage(language), values);
  if (score === 0) weights.set(WORD_LIST_SIGNAL, listed);
  else words.forEach((word, i) => add(weights, word, (listed * values[i]!) / score));
  return { label: chosen, rated: true, confidence, signals: strongest(weights) };
}

function byWordList(
  text: string,
  language: string | null | undefined,
  label: SentimentLabel | undefined,
): SentimentExplanation {
  const values: number[] = [];
  const result = analyseSentiment(text, language, values);
  const chosen = label ?? result.label;
  if (!rated(result.tokens, chosen)) return { label: chosen, rated: false, confidence: null, signals: [] };
  const share = 1 / (2 * Math.sqrt(Math.max(1, result.tokens)));
  const weights = new Map<string, number>();
  result.words.forEach((word, i) => add(weights, word, values[i]! * share));
  return { label: chosen, rated: true, confidence: null, signals: strongest(weights) };
}

/** Adds a weight to a word's ('-' before a negated one, as the scorers write it). */
function add(weights: Map<string, number>, word: string, weight: number) {
  const display = word.startsWith('-') && word.length > 1 ? `${word.slice(1)} (negated)` : word;
  weights.set(display, (weights.get(display) ?? 0) + weight);
}

/** The strongest signals by |weight| (ties: first met first), rounded, without the negligible. */
function strongest(weights: Map<string, number>): SentimentSignal[] {
  return [...weights]
    .map(([text, weight]) => ({ text, weight: round(weight, 2) }))
    .filter((signal) => Math.abs(signal.weight) >= MIN_WEIGHT)
    .sort((a, b) => Math.abs(b.weight) - Math.abs(a.weight))
    .slice(0, EXPLAINED_SIGNALS);
}
