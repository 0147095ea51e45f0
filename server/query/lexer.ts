// Splits query text into tokens: parentheses, "phrases", {case-sensitive} terms, the upper-case operators AND, OR, NOT
// and NEAR/n, and words
// (everything else up to whitespace, a parenthesis, a quote or a comment). A comment, <<< … >>>, is skipped as
// whitespace (the saved text keeps it; the tree and the canonical text do not). Columns are 1-based UTF-16 code-unit
// offsets.
import { QUERY_LIMITS } from '@contract/social-query';
import { QuerySyntaxError } from './errors';

interface TokenBase {
  column: number;
  length: number;
}

export type Token =
  | (TokenBase & { kind: 'word'; text: string })
  /** `text` is what is between the quotes, as typed; `slop`: the n of a following `~n`. */
  | (TokenBase & { kind: 'phrase'; text: string; slop?: number })
  /** A case-sensitive term: `text` is what is between the braces, as typed. */
  | (TokenBase & { kind: 'cased'; text: string })
  /** A list reference, `author:list(name)`: `field` as written before `list(` (null: none), `name` as typed. */
  | (TokenBase & { kind: 'list'; field: string | null; name: string })
  | NearToken
  | (TokenBase & { kind: 'and' | 'or' | 'not' })
  | (TokenBase & { kind: 'lparen' | 'rparen' | 'eof' });

/** `ordered`: NEAR/nf, the right operand after the left one only. */
export type NearToken = TokenBase & { kind: 'near'; distance: number; ordered: boolean };
export type OperatorToken = NearToken | (TokenBase & { kind: 'and' | 'or' | 'not' });

/** How an operator token is written, for messages. */
export const operatorText = (token: OperatorToken) =>
  token.kind === 'near' ? `NEAR/${token.distance}${token.ordered ? 'f' : ''}` : token.kind.toUpperCase();

const WHITESPACE = /\s/;
const COMMENT_OPEN = '<<<';
const COMMENT_CLOSE = '>>>';
/** A field name, `:` and `[`: a range (terms.ts, fieldRange). */
const RANGE_START = /^[A-Za-z]+:\[/;
const WORD_END = /[\s()"]/;
/** A list reference's start: an optional field, `list(`. */
const LIST_START = /^(?:([A-Za-z]+):)?list\(/i;
const NEAR = /^NEAR(?:\/|$)/;
/** A phrase's slop right after its closing quote: `~` and up to two digits (more digits are read to be refused). */
const SLOP = /^~(\d*)/;

/** The `~n` right after a phrase's closing quote at `at`, or null; refused outside the limits. */
function phraseSlop(text: string, at: number, column: number): { n: number; length: number } | null {
  const slop = SLOP.exec(text.slice(at, at + 8));
  if (!slop) return null;
  const n = Number(slop[1]);
  const { minPhraseSlop: min, maxPhraseSlop: max } = QUERY_LIMITS;
  if (slop[1] === '' || !Number.isInteger(n) || n < min || n > max) {
    throw new QuerySyntaxError(
      `~ after the phrase at column ${column} needs a number of extra words from ${min} to ${max}, as in "flat white"~3`,
      column,
      at - column + 1 + slop[0].length,
    );
  }
  return { n, length: slop[0].length };
}
const NEAR_DISTANCE = /^NEAR\/(\d{1,2})(f?)$/;

const hex = (code: number) => `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * Control characters (NUL included: PostgreSQL text cannot hold it) and unpaired UTF-16 surrogates are refused before
 * anything else; tabs and line breaks are whitespace.
 */
function checkCharacters(text: string) {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i += 1;
        continue;
      }
    }
    const isControl = (code < 0x20 || (code >= 0x7f && code <= 0x9f)) && !WHITESPACE.test(text[i]!);
    const isLoneSurrogate = code >= 0xd800 && code <= 0xdfff;
    if (isControl || isLoneSurrogate) {
      throw new QuerySyntaxError(`Invalid character ${hex(code)} at column ${i + 1}`, i + 1, 1);
    }
  }
}

function operator(word: string, column: number): Token | null {
  const base = { column, length: word.length };
  if (word === 'AND') return { ...base, kind: 'and' };
  if (word === 'OR') return { ...base, kind: 'or' };
  if (word === 'NOT') return { ...base, kind: 'not' };
  if (!NEAR.test(word)) return null;
  const parts = NEAR_DISTANCE.exec(word);
  const distance = Number(parts?.[1] ?? Number.NaN);
  const { minNearDistance: min, maxNearDistance: max } = QUERY_LIMITS;
  if (!(distance >= min && distance <= max)) {
    throw new QuerySyntaxError(
      `NEAR needs a distance from ${min} to ${max}, as in NEAR/3 (or NEAR/3f: in this order), at column ${column}`,
      column,
      word.length,
    );
  }
  return { ...base, kind: 'near', distance, ordered: parts?.[2] === 'f' };
}

export function tokenize(text: string): Token[] {
  if (text.length > QUERY_LIMITS.maxLength) {
    throw new QuerySyntaxError(
      `The query is too long: ${text.length} characters, at most ${QUERY_LIMITS.maxLength}`,
      QUERY_LIMITS.maxLength + 1,
      text.length - QUERY_LIMITS.maxLength,
    );
  }
  checkCharacters(text);
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const char = text[i]!;
    const column = i + 1;
    if (WHITESPACE.test(char)) {
      i += 1;
    } else if (text.startsWith(COMMENT_OPEN, i)) {
      const close = text.indexOf(COMMENT_CLOSE, i + COMMENT_OPEN.length);
      if (close < 0) {
        throw new QuerySyntaxError(
          `Missing ${COMMENT_CLOSE} for the comment that starts at column ${column}`,
          column,
          text.length - i,
        );
      }
      i = close + COMMENT_CLOSE.length;
    } else if (char === '{') {
      const end = text.indexOf('}', i + 1);
      if (end < 0) {
        throw new QuerySyntaxError(
          `Missing } for the case-sensitive term that starts at column ${column}`,
          column,
          text.length - i,
        );
      }
      tokens.push({ kind: 'cased', text: text.slice(i + 1, end), column, length: end - i + 1 });
      i = end + 1;
    } else if (char === '(' || char === ')') {
      tokens.push({ kind: char === '(' ? 'lparen' : 'rparen', column, length: 1 });
      i += 1;
    } else if (char === '"') {
      const end = text.indexOf('"', i + 1);
      if (end < 0) {
        throw new QuerySyntaxError(
          `Missing closing quote for the phrase that starts at column ${column}`,
          column,
          text.length - i,
        );
      }
      const slop = phraseSlop(text, end + 1, column);
      const length = end - i + 1 + (slop?.length ?? 0);
      tokens.push({
        kind: 'phrase',
        text: text.slice(i + 1, end),
        column,
        length,
        ...(slop && { slop: slop.n }),
      });
      i += length;
    } else if (RANGE_START.test(text.slice(i, i + 24))) {
      // A field's range, `followers:[1000 TO *]`: one word up to its `]`, spaces and all.
      const end = text.indexOf(']', i);
      if (end < 0) {
        throw new QuerySyntaxError(
          `Missing ] for the range that starts at column ${column}`,
          column,
          text.length - i,
        );
      }
      const word = text.slice(i, end + 1);
      tokens.push({ kind: 'word', text: word, column, length: word.length });
      i = end + 1;
    } else if (LIST_START.test(text.slice(i, i + 24))) {
      const start = LIST_START.exec(text.slice(i, i + 24))!;
      const end = text.indexOf(')', i);
      if (end < 0) {
        throw new QuerySyntaxError(
          `Missing ) for the list that starts at column ${column}`,
          column,
          text.length - i,
        );
      }
      const name = text.slice(i + start[0].length, end);
      tokens.push({ kind: 'list', field: start[1] ?? null, name, column, length: end - i + 1 });
      i = end + 1;
    } else {
      let end = i + 1;
      while (end < text.length && !WORD_END.test(text[end]!) && !text.startsWith(COMMENT_OPEN, end)) end += 1;
      const word = text.slice(i, end);
      tokens.push(operator(word, column) ?? { kind: 'word', text: word, column, length: word.length });
      i = end;
    }
  }
  tokens.push({ kind: 'eof', column: text.length + 1, length: 0 });
  return tokens;
}
