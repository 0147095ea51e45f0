// Splits query text into the spans the editor colours, by the rules of the server's lexer
// (server/query/lexer.ts): a word runs up to whitespace, a parenthesis or a quote; AND, OR, NOT and NEAR/n are
// operators only in upper case; a word that starts with ASCII letters and ":" is a field; {…} a case-sensitive word;
// <<< … >>> is a comment; `list(name)`, after a field or not, a list reference (coloured as a field's value). It
// never throws: an unclosed quote is a phrase to the end, an unclosed comment a comment to the end, and the server's
// diagnostics say what is wrong. Offsets are UTF-16 code units.

export type QueryTokenKind =
  | 'operator'
  | 'near'
  | 'phrase'
  | 'cased'
  | 'wildcard'
  | 'hashtag'
  | 'mention'
  | 'fieldName'
  | 'fieldValue'
  | 'paren'
  | 'comment'
  | 'word';

export interface QueryToken {
  kind: QueryTokenKind;
  /** Offset of the first code unit. */
  from: number;
  /** Offset after the last code unit. */
  to: number;
}

const WHITESPACE = /\s/;
const WORD_END = /[\s()"]/;
const FIELD = /^[A-Za-z]+:/;
const OPERATORS = new Set(['AND', 'OR', 'NOT']);
/** A list reference's start, as the lexer reads it: an optional field, `list(`. */
const LIST_START = /^(?:[A-Za-z]+:)?list\(/i;

function wordTokens(word: string, from: number): QueryToken[] {
  const to = from + word.length;
  if (OPERATORS.has(word)) return [{ kind: 'operator', from, to }];
  if (/^NEAR(?:\/|$)/.test(word)) return [{ kind: 'near', from, to }];
  const field = FIELD.exec(word);
  if (field) {
    const nameEnd = from + field[0].length;
    const name: QueryToken = { kind: 'fieldName', from, to: nameEnd };
    return nameEnd < to ? [name, { kind: 'fieldValue', from: nameEnd, to }] : [name];
  }
  if (word.startsWith('#')) return [{ kind: 'hashtag', from, to }];
  if (word.startsWith('@')) return [{ kind: 'mention', from, to }];
  if (word.endsWith('*') || word.includes('?')) return [{ kind: 'wildcard', from, to }];
  return [{ kind: 'word', from, to }];
}

export function scanQuery(text: string): QueryToken[] {
  const tokens: QueryToken[] = [];
  let i = 0;
  while (i < text.length) {
    const char = text[i]!;
    if (WHITESPACE.test(char)) {
      i += 1;
    } else if (text.startsWith('<<<', i)) {
      const close = text.indexOf('>>>', i + 3);
      const end = close < 0 ? text.length : close + 3;
      tokens.push({ kind: 'comment', from: i, to: end });
      i = end;
    } else if (LIST_START.test(text.slice(i, i + 24))) {
      // A list reference, `author:list(competitors)`: its field (if any) and `list(name)` as the field's value.
      const close = text.indexOf(')', i);
      const end = close < 0 ? text.length : close + 1;
      const field = FIELD.exec(text.slice(i, end));
      if (field) tokens.push({ kind: 'fieldName', from: i, to: i + field[0].length });
      tokens.push({ kind: 'fieldValue', from: i + (field?.[0].length ?? 0), to: end });
      i = end;
    } else if (/^[A-Za-z]+:\[/.test(text.slice(i, i + 24))) {
      // A field's range, `followers:[1000 TO *]`: one field up to its `]` (to the end when unclosed).
      const close = text.indexOf(']', i);
      const end = close < 0 ? text.length : close + 1;
      tokens.push(...wordTokens(text.slice(i, end), i));
      i = end;
    } else if (char === '{') {
      const close = text.indexOf('}', i + 1);
      const end = close < 0 ? text.length : close + 1;
      tokens.push({ kind: 'cased', from: i, to: end });
      i = end;
    } else if (char === '(' || char === ')') {
      tokens.push({ kind: 'paren', from: i, to: i + 1 });
      i += 1;
    } else if (char === '"') {
      const close = text.indexOf('"', i + 1);
      // A phrase's slop, `"flat white"~3`, is part of it.
      const slop = close < 0 ? '' : (/^~\d*/.exec(text.slice(close + 1))?.[0] ?? '');
      const end = close < 0 ? text.length : close + 1 + slop.length;
      tokens.push({ kind: 'phrase', from: i, to: end });
      i = end;
    } else {
      let end = i + 1;
      while (end < text.length && !WORD_END.test(text[end]!) && !text.startsWith('<<<', end)) end += 1;
      tokens.push(...wordTokens(text.slice(i, end), i));
      i = end;
    }
  }
  return tokens;
}
