// Warnings about a query that parses but may not say what its writer meant. They never refuse a query: the query runs
// as the README defines it, and each warning says how it is read and offers the one edit that most likely was meant.
// Columns are 1-based UTF-16 offsets, as the errors'. The fix replaces [column, column + length) with `text`.
import type { QueryWarning } from '@contract/social-query';
import type { QueryNode } from './ast';
import { tokenize, type Token } from './lexer';

/** A wildcard's prefix shorter than this matches a large share of all words. */
const SHORT_PREFIX = 3;
const LOWER_OPERATORS = new Set(['or', 'and', 'not']);
/** Tokens that can end an operand (what a lower-case `or` between two terms follows). */
const ENDS_OPERAND = new Set<Token['kind']>(['word', 'phrase', 'cased', 'rparen']);
const STARTS_OPERAND = new Set<Token['kind']>(['word', 'phrase', 'cased', 'lparen', 'not']);

const end = (token: Token) => token.column + token.length;

/** `or`, `and`, `not` written in lower case between two terms: searched as a word, not combining them. */
function lowerCaseOperators(tokens: Token[]): QueryWarning[] {
  const warnings: QueryWarning[] = [];
  tokens.forEach((token, i) => {
    if (token.kind !== 'word' || !LOWER_OPERATORS.has(token.text.toLowerCase()) || token.text === 'OR')
      return;
    const before = tokens[i - 1];
    const after = tokens[i + 1];
    if (!before || !after || !ENDS_OPERAND.has(before.kind) || !STARTS_OPERAND.has(after.kind)) return;
    const upper = token.text.toUpperCase();
    warnings.push({
      code: 'lowercase_operator',
      message:
        `"${token.text}" at column ${token.column} is searched as a word; write ${upper} in capitals to ` +
        `combine the terms around it`,
      column: token.column,
      length: token.length,
      fix: { label: `Write ${upper}`, column: token.column, length: token.length, text: upper },
    });
  });
  return warnings;
}

/** A bracket level's pieces: an operand (a term, or a whole bracketed group) with its span, or an operator. */
type Piece = { kind: 'operand' | 'and' | 'or' | 'not' | 'near'; from: number; to: number };

/**
 * AND (written, or terms side by side) and OR in one bracket level: AND binds tighter, so `a b OR c` is `(a b) OR c`.
 * The fix writes the brackets as the query is read, which changes nothing but makes it visible. `at` is the index of
 * the level's first token; levels inside are checked as they are met.
 */
function mixedAndOr(text: string, tokens: Token[], warnings: QueryWarning[], at = 0): number {
  const pieces: Piece[] = [];
  let i = at;
  for (; i < tokens.length; i += 1) {
    const token = tokens[i]!;
    if (token.kind === 'eof' || token.kind === 'rparen') break;
    if (token.kind === 'lparen') {
      const close = mixedAndOr(text, tokens, warnings, i + 1);
      pieces.push({ kind: 'operand', from: token.column, to: end(tokens[close] ?? token) });
      i = close;
    } else if (
      token.kind === 'word' ||
      token.kind === 'phrase' ||
      token.kind === 'cased' ||
      token.kind === 'list'
    ) {
      pieces.push({ kind: 'operand', from: token.column, to: end(token) });
    } else pieces.push({ kind: token.kind, from: token.column, to: end(token) });
  }
  const segments: Piece[][] = [[]];
  for (const piece of pieces) {
    if (piece.kind === 'or') segments.push([]);
    else segments.at(-1)!.push(piece);
  }
  // A segment's AND operands: its operands, less one for each NEAR (which makes one operand of two).
  const ands = (segment: Piece[]) =>
    segment.filter((p) => p.kind === 'operand').length - segment.filter((p) => p.kind === 'near').length;
  // A segment's text: from its first piece (a NOT before its first operand belongs to it) to its last.
  const spans = segments.map((segment) => ({
    from: segment[0]?.from ?? 0,
    to: segment.at(-1)?.to ?? 0,
    mixed: ands(segment) > 1,
  }));
  if (segments.length < 2 || !spans.some((span) => span.mixed)) return i;
  const from = spans[0]!.from;
  const to = spans.at(-1)!.to;
  let rewritten = '';
  let cursor = from;
  for (const span of spans) {
    rewritten += text.slice(cursor - 1, span.from - 1);
    const inner = text.slice(span.from - 1, span.to - 1);
    rewritten += span.mixed ? `(${inner})` : inner;
    cursor = span.to;
  }
  warnings.push({
    code: 'mixed_and_or',
    message: `AND and OR are mixed without brackets at column ${from}: AND binds first, so this reads as ${rewritten}`,
    column: from,
    length: to - from,
    fix: { label: 'Add the brackets', column: from, length: to - from, text: rewritten },
  });
  return i;
}

/** A wildcard of two letters (`co*`; one is refused): it matches so many words that the query means little. */
function shortWildcards(tokens: Token[]): QueryWarning[] {
  return tokens.flatMap((token): QueryWarning[] => {
    if (token.kind !== 'word' || !token.text.endsWith('*')) return [];
    const prefix = token.text.slice(0, -1);
    if ([...prefix].length >= SHORT_PREFIX || prefix.includes(':')) return [];
    return [
      {
        code: 'short_wildcard',
        message:
          `"${token.text}" at column ${token.column} matches every word that starts with "${prefix}": ` +
          `give at least ${SHORT_PREFIX} letters before the *`,
        column: token.column,
        length: token.length,
        fix: {
          label: `Search "${token.text.slice(0, -1)}" only`,
          ...span(token),
          text: token.text.slice(0, -1),
        },
      },
    ];
  });
}

const span = (token: Token) => ({ column: token.column, length: token.length });

/** Whether a post can match `node` only by lacking terms: NOT x, or an AND of NOTs. */
function onlyNegative(node: QueryNode): boolean {
  if (node.type === 'not') return true;
  if (node.type === 'and') return node.operands.every(onlyNegative);
  if (node.type === 'or') return node.operands.some(onlyNegative);
  return false;
}

function negativeOnly(ast: QueryNode, tokens: Token[]): QueryWarning[] {
  if (!onlyNegative(ast)) return [];
  const not = tokens.find((token) => token.kind === 'not');
  if (!not) return [];
  // The space after NOT goes with it, so that the fix leaves the term where NOT was.
  const length = (tokens[tokens.indexOf(not) + 1]?.column ?? end(not)) - not.column;
  return [
    {
      code: 'only_negative',
      message:
        `This query only excludes (NOT at column ${not.column}): it matches every post of the range without ` +
        'those terms. Add a term to look for',
      column: not.column,
      length: not.length,
      fix: { label: 'Search the term instead', column: not.column, length, text: '' },
    },
  ];
}

function mixedAndOrs(text: string, tokens: Token[]): QueryWarning[] {
  const warnings: QueryWarning[] = [];
  mixedAndOr(text, tokens, warnings);
  return warnings;
}

/** The warnings of a query that parsed (`ast` is its tree), in the order of their columns. */
export function queryWarnings(text: string, ast: QueryNode): QueryWarning[] {
  const tokens = tokenize(text);
  return [
    ...lowerCaseOperators(tokens),
    ...mixedAndOrs(text, tokens),
    ...shortWildcards(tokens),
    ...negativeOnly(ast, tokens),
  ].sort((a, b) => a.column - b.column);
}
