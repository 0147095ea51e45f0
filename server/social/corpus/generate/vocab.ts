// What the generator writes in each language: one file per language (vocab-en.ts, …), each a Vocabulary
// (./vocabulary); every sentence is meant to read like a real post.
import type { Lang } from './topics';
import type { Vocabulary } from './vocabulary';
import { EN } from './vocab-en';
import { ES } from './vocab-es';
import { JA } from './vocab-ja';
import { KO } from './vocab-ko';

export const VOCABULARY: Record<Lang, Vocabulary> = { en: EN, es: ES, ja: JA, ko: KO };
