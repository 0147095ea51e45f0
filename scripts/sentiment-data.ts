// The labelled sentiment sets (a directory laid out as /work/shared/data/sentiment: `<lang>/<split>.tsv`, header
// `label<TAB>text`, no quoting) and the metrics the trainer and the bench report. Shared by scripts/sentiment-train.ts
// and scripts/bench-sentiment.ts; the data itself never enters the repository.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const CLASSES = ['negative', 'neutral', 'positive'] as const;
type SentimentClass = (typeof CLASSES)[number];

export interface Example {
  label: number;
  text: string;
}

export function readTsv(path: string): Example[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  if (lines[0] !== 'label\ttext') throw new Error(`${path}: expected the header "label<TAB>text"`);
  const examples: Example[] = [];
  for (const line of lines.slice(1)) {
    if (!line) continue;
    const tab = line.indexOf('\t');
    const label = CLASSES.indexOf(line.slice(0, tab) as SentimentClass);
    if (tab < 0 || label < 0) throw new Error(`${path}: bad row ${JSON.stringify(line.slice(0, 80))}`);
    examples.push({ label, text: line.slice(tab + 1) });
  }
  return examples;
}

export function dataFile(dir: string, language: string, file: string): string {
  const path = join(dir, language, file);
  if (!existsSync(path))
    throw new Error(`${path} not found (--data names the directory of <lang>/<split>.tsv)`);
  return path;
}

export interface Metrics {
  n: number;
  accuracy: number;
  macroRecall: number;
  macroF1: number;
  /** Negatives labelled positive, as a share of the negatives. */
  negAsPos: number;
  /** confusion[gold][predicted] */
  confusion: number[][];
}

export function metrics(gold: number[], predicted: number[]): Metrics {
  const confusion = CLASSES.map(() => CLASSES.map(() => 0));
  for (let i = 0; i < gold.length; i++) confusion[gold[i]!]![predicted[i]!]!++;
  let correct = 0;
  let recall = 0;
  let f1 = 0;
  for (let c = 0; c < CLASSES.length; c++) {
    const tp = confusion[c]![c]!;
    correct += tp;
    const goldC = confusion[c]!.reduce((a, b) => a + b, 0);
    const predC = confusion.reduce((a, row) => a + row[c]!, 0);
    const r = goldC ? tp / goldC : 0;
    const p = predC ? tp / predC : 0;
    recall += r;
    f1 += p + r > 0 ? (2 * p * r) / (p + r) : 0;
  }
  const negatives = confusion[0]!.reduce((a, b) => a + b, 0);
  return {
    n: gold.length,
    accuracy: gold.length ? correct / gold.length : 0,
    macroRecall: recall / CLASSES.length,
    macroF1: f1 / CLASSES.length,
    negAsPos: negatives ? confusion[0]![2]! / negatives : 0,
    confusion,
  };
}
