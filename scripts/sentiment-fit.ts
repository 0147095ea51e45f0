// The fitting half of scripts/sentiment-train.ts: the training examples as flat arrays of hashed features, and the
// softmax regression trained on them with Adam on mini-batches (only the slots a batch touches are updated — "lazy"
// Adam — with their L2 penalty), the weights averaged over the later batches; optionally with the n-grams scaled by their
// log-count ratios (`nb`, NBSVM-style). Deterministic for a seed (one thread, a seeded shuffle, a fixed summation order).
import {
  extractFeatures,
  languageSalt,
  slotsOf,
  type FeatureConfig,
  type ModelLanguage,
} from '@server/social/corpus/sentiment-features';
import type { Example } from './sentiment-data';

const CLASS_COUNT = 3;

export interface Hyper {
  lr: number;
  l2: number;
  epochs: number;
  batch: number;
  /** Weight of a UMSAB / ArSarcasm example against a TweetEval-style English one. */
  sourceWeight: number;
  /** A further weight on romanised Hindi's examples (the smallest, noisiest set). */
  hiWeight: number;
  /** A further weight on en/train.tsv's negatives (fewer TweetEval negatives read as positive). */
  negWeight: number;
  /**
   * The same for the other sources' negatives. UMSAB's sets are balanced and judged by macro-F1: an extra weight there
   * only tilts their labels toward negative.
   */
  negOther: number;
  /**
   * NBSVM-style scaling (Wang & Manning 2012) of the n-gram features, per class: 1 − nb + nb × |r|, r the feature's
   * log-count ratio of the class against the others (absent or 0: none). Folded into the weights written out.
   */
  nb?: number;
}

/** mulberry32: a small seeded generator, so a seed gives the same shuffles everywhere. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Source {
  name: string;
  language: ModelLanguage;
  examples: Example[];
}

/** The training examples as flat arrays: slots and values per example, offsets between. */
export interface Prepared {
  offsets: Int32Array;
  slots: Int32Array;
  values: Float32Array;
  labels: Uint8Array;
  classWeight: Float32Array;
  umsab: Uint8Array;
  hindi: Uint8Array;
  /** Per feature placed: 1 for an n-gram (scaled by `nb`), 0 for the bias, the word list's and emoticons. */
  ngram: Uint8Array;
}

export function prepare(sources: Source[], config: FeatureConfig): Prepared {
  const slots: number[] = [];
  const values: number[] = [];
  const offsets = [0];
  const labels: number[] = [];
  const classWeight: number[] = [];
  const umsab: number[] = [];
  const hindi: number[] = [];
  const ngram: number[] = [];
  const out = new Int32Array(2);
  for (const source of sources) {
    const counts = [0, 0, 0];
    for (const e of source.examples) counts[e.label]!++;
    const salt = languageSalt(source.language);
    for (const e of source.examples) {
      const features = extractFeatures(e.text, source.language, config);
      for (let f = 0; f < features.hash.length; f++) {
        const n = slotsOf(features.hash[f]!, salt, config, out);
        for (let s = 0; s < n; s++) {
          slots.push(out[s]!);
          values.push(features.value[f]!);
          ngram.push(f < features.ngrams ? 1 : 0);
        }
      }
      offsets.push(slots.length);
      labels.push(e.label);
      classWeight.push(source.examples.length / (CLASS_COUNT * counts[e.label]!));
      umsab.push(source.name === 'en/train.tsv' ? 0 : 1);
      hindi.push(source.language === 'hi' ? 1 : 0);
    }
  }
  return {
    offsets: Int32Array.from(offsets),
    slots: Int32Array.from(slots),
    values: Float32Array.from(values),
    labels: Uint8Array.from(labels),
    classWeight: Float32Array.from(classWeight),
    umsab: Uint8Array.from(umsab),
    hindi: Uint8Array.from(hindi),
    ngram: Uint8Array.from(ngram),
  };
}

/** The per-slot, per-class scale of the features (all 1 without `nb`). */
function nbScale(data: Prepared, bits: number, nb: number, alpha = 1): Float32Array {
  const size = (1 << bits) * CLASS_COUNT;
  const r = new Float32Array(size).fill(1);
  if (nb <= 0) return r;
  const counts = new Float64Array(size);
  const seenIn = new Int32Array(1 << bits).fill(-1);
  const fixed = new Uint8Array(1 << bits);
  for (let e = 0; e < data.labels.length; e++) {
    for (let f = data.offsets[e]!; f < data.offsets[e + 1]!; f++) {
      const slot = data.slots[f]!;
      if (!data.ngram[f]) fixed[slot] = 1;
      else if (seenIn[slot] !== e) {
        seenIn[slot] = e;
        counts[slot * CLASS_COUNT + data.labels[e]!]! += 1;
      }
    }
  }
  const total = [0, 0, 0];
  for (let slot = 0; slot < 1 << bits; slot++) {
    const at = slot * CLASS_COUNT;
    if (counts[at]! + counts[at + 1]! + counts[at + 2]! === 0) continue;
    for (let c = 0; c < CLASS_COUNT; c++) total[c]! += counts[at + c]! + alpha;
  }
  const all = total[0]! + total[1]! + total[2]!;
  for (let slot = 0; slot < 1 << bits; slot++) {
    const at = slot * CLASS_COUNT;
    const sum = counts[at]! + counts[at + 1]! + counts[at + 2]!;
    if (fixed[slot] || sum === 0) continue;
    for (let c = 0; c < CLASS_COUNT; c++) {
      const p = (counts[at + c]! + alpha) / total[c]!;
      const q = (sum - counts[at + c]! + alpha * (CLASS_COUNT - 1)) / (all - total[c]!);
      r[at + c] = 1 - nb + nb * Math.abs(Math.log(p / q));
    }
  }
  return r;
}

/** Trains; calls `atEpoch` with the averaged weights after each epoch. */
export function train(
  data: Prepared,
  bits: number,
  hyper: Hyper,
  seed: number,
  atEpoch: (epoch: number, weights: Float32Array) => void,
) {
  const size = (1 << bits) * CLASS_COUNT;
  const w = new Float32Array(size);
  const r = nbScale(data, bits, hyper.nb ?? 0);
  const m = new Float32Array(size);
  const v = new Float32Array(size);
  const grad = new Float32Array(size);
  const average = new Float64Array(size);
  let averaged = 0;
  const mark = new Uint8Array(1 << bits);
  const touched = new Int32Array(1 << bits);
  const b1 = 0.9;
  const b2 = 0.999;
  const eps = 1e-8;
  const n = data.labels.length;
  const order = Int32Array.from({ length: n }, (_, i) => i);
  const rand = random(seed);
  const batches = Math.ceil(n / hyper.batch);
  const totalSteps = batches * hyper.epochs;
  const averageFrom = batches; // average from the second epoch on
  const z = new Float64Array(CLASS_COUNT);
  let step = 0;
  for (let epoch = 1; epoch <= hyper.epochs; epoch++) {
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (let b = 0; b < batches; b++) {
      let touchedCount = 0;
      const end = Math.min(n, (b + 1) * hyper.batch);
      for (let k = b * hyper.batch; k < end; k++) {
        const e = order[k]!;
        const from = data.offsets[e]!;
        const to = data.offsets[e + 1]!;
        z.fill(0);
        for (let f = from; f < to; f++) {
          const base = data.slots[f]! * CLASS_COUNT;
          const x = data.values[f]!;
          z[0]! += w[base]! * r[base]! * x;
          z[1]! += w[base + 1]! * r[base + 1]! * x;
          z[2]! += w[base + 2]! * r[base + 2]! * x;
        }
        const top = Math.max(z[0]!, z[1]!, z[2]!);
        const e0 = Math.exp(z[0]! - top);
        const e1 = Math.exp(z[1]! - top);
        const e2 = Math.exp(z[2]! - top);
        const sum = e0 + e1 + e2;
        const label = data.labels[e]!;
        const weight =
          data.classWeight[e]! *
          (data.umsab[e] ? hyper.sourceWeight : 1) *
          (data.hindi[e] ? hyper.hiWeight : 1) *
          (label === 0 ? (data.umsab[e] ? hyper.negOther : hyper.negWeight) : 1);
        const g0 = (e0 / sum - (label === 0 ? 1 : 0)) * weight;
        const g1 = (e1 / sum - (label === 1 ? 1 : 0)) * weight;
        const g2 = (e2 / sum - (label === 2 ? 1 : 0)) * weight;
        for (let f = from; f < to; f++) {
          const slot = data.slots[f]!;
          const base = slot * CLASS_COUNT;
          const x = data.values[f]!;
          grad[base]! += g0 * x * r[base]!;
          grad[base + 1]! += g1 * x * r[base + 1]!;
          grad[base + 2]! += g2 * x * r[base + 2]!;
          if (!mark[slot]) {
            mark[slot] = 1;
            touched[touchedCount++] = slot;
          }
        }
      }
      step++;
      const rate = hyper.lr * (1 - (step - 1) / totalSteps);
      const c1 = 1 - b1 ** step;
      const c2 = 1 - b2 ** step;
      const scale = 1 / (end - b * hyper.batch);
      for (let t = 0; t < touchedCount; t++) {
        const slot = touched[t]!;
        mark[slot] = 0;
        for (let c = 0; c < CLASS_COUNT; c++) {
          const i = slot * CLASS_COUNT + c;
          const g = grad[i]! * scale + hyper.l2 * w[i]!;
          grad[i] = 0;
          m[i] = b1 * m[i]! + (1 - b1) * g;
          v[i] = b2 * v[i]! + (1 - b2) * g * g;
          w[i]! -= (rate * (m[i]! / c1)) / (Math.sqrt(v[i]! / c2) + eps);
        }
      }
      if (step >= averageFrom && step % 16 === 0) {
        for (let i = 0; i < size; i++) average[i]! += w[i]!;
        averaged++;
      }
    }
    const snapshot = new Float32Array(size);
    if (averaged === 0) for (let i = 0; i < size; i++) snapshot[i] = w[i]! * r[i]!;
    else for (let i = 0; i < size; i++) snapshot[i] = (average[i]! / averaged) * r[i]!;
    atEpoch(epoch, snapshot);
  }
}

export function quantise(weights: Float32Array): { weights: Int16Array; scale: number } {
  let max = 0;
  for (const x of weights) max = Math.max(max, Math.abs(x));
  const scale = max > 0 ? max / 32767 : 1;
  const q = new Int16Array(weights.length);
  for (let i = 0; i < weights.length; i++) q[i] = Math.round(weights[i]! / scale);
  return { weights: q, scale };
}
