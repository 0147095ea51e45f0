// Which parts of a post's text a query matched, for highlighting. Approximate by design: the server matches words
// through PostgreSQL's full-text parser and CJK/emoji terms as substrings; here every plain word, phrase, wildcard,
// hashtag and mention of the query is searched in the text (whole words, any case; CJK and symbol-only terms as
// substrings), except terms right after NOT (a single term or a parenthesised group). Field filters (author:, lang:, …)
// match the post's metadata, not its text, so they are not highlighted; NEAR's two sides are highlighted wherever they
// occur, not only where they are near each other.
import { scanQuery } from './query-tokens';

export interface TextSegment {
  text: string;
  match: boolean;
}

/** Scripts written without spaces (and emoji or symbols): the server matches these terms as substrings. */
const SUBSTRING_TERM =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]|^[^\p{L}\p{N}]+$/u;
const WORD_CHAR = '[\\p{L}\\p{N}_]';
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The query's positive text terms as regular-expression sources. */
export function termPatterns(query: string): string[] {
  const tokens = scanQuery(query);
  const patterns = new Set<string>();
  let skipDepth: number | null = null;
  let depth = 0;
  let negateNext = false;
  for (const token of tokens) {
    const text = query.slice(token.from, token.to);
    if (token.kind === 'paren') {
      if (text === '(') {
        if (negateNext && skipDepth === null) skipDepth = depth;
        negateNext = false;
        depth += 1;
      } else {
        depth = Math.max(0, depth - 1);
        if (skipDepth !== null && depth === skipDepth) skipDepth = null;
      }
      continue;
    }
    if (token.kind === 'operator') {
      if (text === 'NOT') negateNext = true;
      continue;
    }
    if (token.kind === 'near') continue;
    const negated = negateNext || skipDepth !== null;
    negateNext = false;
    if (negated || token.kind === 'fieldName' || token.kind === 'fieldValue') continue;
    const pattern = termPattern(token.kind, text);
    if (pattern) patterns.add(pattern);
  }
  return [...patterns];
}

function termPattern(kind: string, text: string): string | null {
  if (kind === 'phrase') {
    const loose = /"~\d+$/.test(text);
    const words = text
      .replace(/~\d+$/, '')
      .replace(/^"|"$/g, '')
      .split(/[^\p{L}\p{N}_]+/u)
      .filter(Boolean);
    if (!words.length) return null;
    // With slop the words may stand apart, in any order: each is marked where it stands.
    if (loose) return bounded(`(?:${words.map(escape).join('|')})`, words.join(' '));
    return bounded(words.map(escape).join('[^\\p{L}\\p{N}_]+'), words.join(' '));
  }
  if (kind === 'wildcard') {
    const prefix = text.replace(/\*+$/, '');
    return prefix.length ? bounded(`${escape(prefix)}${WORD_CHAR}*`, prefix) : null;
  }
  if (kind === 'hashtag' || kind === 'mention') {
    return text.length > 1 ? `${escape(text)}(?![\\p{L}\\p{N}_.-])` : null;
  }
  return bounded(escape(text), text);
}

/** Whole words, unless the term is written in a script without spaces (or is only symbols). */
const bounded = (source: string, term: string) =>
  SUBSTRING_TERM.test(term) ? source : `(?<!${WORD_CHAR})${source}(?!${WORD_CHAR})`;

/** Splits text into matched and unmatched segments (in order; joined they are the text). */
export function highlightText(text: string, patterns: readonly string[]): TextSegment[] {
  if (!patterns.length || !text) return text ? [{ text, match: false }] : [];
  // Longest first, so a phrase wins over one of its words.
  const sorted = [...patterns].sort((a, b) => b.length - a.length);
  const regex = new RegExp(sorted.map((p) => `(?:${p})`).join('|'), 'giu');
  const segments: TextSegment[] = [];
  let last = 0;
  for (const found of text.matchAll(regex)) {
    if (!found[0]) continue;
    const start = found.index;
    if (start > last) segments.push({ text: text.slice(last, start), match: false });
    segments.push({ text: found[0], match: true });
    last = start + found[0].length;
  }
  if (last < text.length) segments.push({ text: text.slice(last), match: false });
  return segments;
}
