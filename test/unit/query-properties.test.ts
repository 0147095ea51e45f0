import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PLATFORMS } from '@server/db/social-schema';
import {
  parse,
  parseQuery,
  printQuery,
  QuerySyntaxError,
  type LeafNode,
  type ProximityLeaf,
  type ProximityOperand,
  type QueryNode,
} from '@server/query/index';
import { matchMode } from '@server/query/terms';

const chars = (alphabet: string) => fc.constantFrom(...Array.from(alphabet));
const text = (alphabet: string, minLength: number, maxLength: number) =>
  fc.string({ unit: chars(alphabet), minLength, maxLength });

// Words as a person could type them: letters of several scripts, digits, inner punctuation, emoji.
const WORD_CHARS = "abzXYNEARODT09éñ東한タ🔥'-._/#@:&";
/** A word the lexer reads back as the same term (not an operator, field, hashtag, mention or wildcard). */
const isPlainWord = (word: string) =>
  !/^(AND|OR|NOT)$/.test(word) &&
  !/^NEAR(\/|$)/.test(word) &&
  !/^[#@]/.test(word) &&
  !/^[A-Za-z]+:/.test(word) &&
  matchMode(word) !== 'none';

const termArb = text(WORD_CHARS, 1, 8)
  .filter(isPlainWord)
  .map((value): LeafNode => ({ type: 'term', value }));
const wildcardArb = text(WORD_CHARS, 2, 8)
  .filter((prefix) => [...prefix].length >= 2 && isPlainWord(prefix))
  .map((prefix): LeafNode => ({ type: 'wildcard', prefix }));
// Inside quotes anything but a quote goes, operators and parentheses included.
const phraseArb = fc
  .array(text(`${WORD_CHARS}()*`, 1, 6), { minLength: 1, maxLength: 4 })
  .map((words) => words.join(' '))
  .filter((value) => matchMode(value) !== 'none')
  .map((value): LeafNode => ({ type: 'phrase', value }));
// A phrase with slop: two words or more of spaced scripts.
const loosePhraseArb = fc
  .tuple(
    fc.array(text(WORD_CHARS, 1, 6).filter(isPlainWord), { minLength: 2, maxLength: 4 }),
    fc.integer({ min: 1, max: 20 }),
  )
  .filter(
    ([words]) =>
      matchMode(words.join(' ')) === 'words' &&
      (words.join(' ').match(/[\p{L}\p{M}\p{N}]+/gu)?.length ?? 0) >= 2,
  )
  .map(([words, slop]): LeafNode => ({ type: 'phrase', value: words.join(' '), slop }));
const hashtagArb = text('abz09_é東한', 1, 8).map((value): LeafNode => ({ type: 'hashtag', value }));
const casedArb = text('aBzZ09éÉ', 1, 8).map((value): LeafNode => ({ type: 'cased', value }));
const maskArb = fc
  .tuple(text('abzé09', 2, 4), text('ab?', 1, 4), fc.boolean())
  .map(([head, tail, rest]): LeafNode => ({ type: 'mask', value: `${head}?${tail}${rest ? '*' : ''}` }));
const handle = text('abz09_.-é', 1, 8);
const mentionArb = handle.map((value): LeafNode => ({ type: 'mention', value }));
const fieldArb = fc.oneof(
  handle.map((value): LeafNode => ({ type: 'field', field: 'author', value })),
  fc.constantFrom(...PLATFORMS).map((value): LeafNode => ({ type: 'field', field: 'platform', value })),
  text('abcdejkoz', 2, 3).map((value): LeafNode => ({ type: 'field', field: 'lang', value })),
  text('ABJKRSUZ', 2, 2).map((value): LeafNode => ({ type: 'field', field: 'country', value })),
  fc
    .constantFrom('original', 'reply', 'repost', 'quote')
    .map((value): LeafNode => ({ type: 'field', field: 'is', value })),
  fc
    .constantFrom('bbc.co.uk', 'example.com', 'murmur.app')
    .map((value): LeafNode => ({ type: 'field', field: 'site', value })),
  fc
    .constantFrom('mastodon.social', 'fosstodon.org', 'sub.example-host.net')
    .map((value): LeafNode => ({ type: 'field', field: 'instance', value })),
  text('abz09_', 2, 21).map((value): LeafNode => ({ type: 'field', field: 'subreddit', value })),
  fc
    .tuple(
      fc.constantFrom('followers', 'engagement'),
      fc.option(fc.integer({ min: 0, max: 500 })),
      fc.option(fc.integer({ min: 500, max: 9999 })),
    )
    .map(([field, min, max]): LeafNode => ({
      type: 'field',
      field: field as 'followers' | 'engagement',
      value: `[${min ?? '*'} TO ${max ?? '*'}]`,
    })),
);
const listArb = fc
  .tuple(fc.constantFrom('authors', 'sites', 'words'), text('abz09_-', 1, 40))
  .map(([kind, name]): LeafNode => ({ type: 'list', kind, name }));
const leafArb = fc.oneof(
  termArb,
  listArb,
  phraseArb,
  loosePhraseArb,
  wildcardArb,
  maskArb,
  casedArb,
  hashtagArb,
  mentionArb,
  fieldArb,
);

const proximityLeafArb = fc
  .oneof(termArb, phraseArb, wildcardArb)
  .map((leaf) => leaf as ProximityLeaf)
  .filter((leaf) => matchMode(leaf.type === 'wildcard' ? leaf.prefix : leaf.value) === 'words');
const proximityOperandArb: fc.Arbitrary<ProximityOperand> = fc.oneof(
  { weight: 3, arbitrary: proximityLeafArb },
  fc
    .array(proximityLeafArb, { minLength: 2, maxLength: 3 })
    .map((operands) => ({ type: 'or' as const, operands })),
);
const nearArb = fc
  .record({
    distance: fc.integer({ min: 1, max: 20 }),
    left: proximityOperandArb,
    right: proximityOperandArb,
    ordered: fc.boolean(),
  })
  .map(({ ordered, ...near }): QueryNode => ({
    type: 'near',
    ...near,
    ...(ordered && { ordered: true as const }),
  }));

/** Canonical trees, as the parser builds them: no `and` directly in an `and`, no `or` in an `or`. */
const { node: nodeArb } = fc.letrec<{ node: QueryNode }>((tie) => ({
  node: fc.oneof(
    { maxDepth: 4, depthSize: 'small' },
    { weight: 4, arbitrary: leafArb },
    nearArb,
    tie('node').map((operand): QueryNode => ({ type: 'not', operand })),
    fc.array(tie('node'), { minLength: 2, maxLength: 4 }).map((nodes): QueryNode => ({
      type: 'and',
      operands: nodes.flatMap((node) => (node.type === 'and' ? node.operands : [node])),
    })),
    fc.array(tie('node'), { minLength: 2, maxLength: 4 }).map((nodes): QueryNode => ({
      type: 'or',
      operands: nodes.flatMap((node) => (node.type === 'or' ? node.operands : [node])),
    })),
  ),
}));

function countLeaves(node: QueryNode | ProximityOperand): number {
  switch (node.type) {
    case 'not':
      return countLeaves(node.operand);
    case 'and':
    case 'or':
      return (node.operands as QueryNode[]).reduce((sum, operand) => sum + countLeaves(operand), 0);
    case 'near':
      return countLeaves(node.left) + countLeaves(node.right);
    default:
      return 1;
  }
}

const withinLimits = (node: QueryNode) => countLeaves(node) <= 50 && printQuery(node).length <= 1000;

/** Parses, or fails with a QuerySyntaxError inside the text; any other exception fails the property. */
function checkTotal(input: string) {
  let ast: QueryNode;
  try {
    ast = parse(input);
  } catch (error) {
    if (!(error instanceof QuerySyntaxError)) throw error;
    expect(error.column).toBeGreaterThanOrEqual(1);
    expect(error.column).toBeLessThanOrEqual(input.length + 1);
    expect(error.length).toBeGreaterThanOrEqual(0);
    expect(error.column + error.length).toBeLessThanOrEqual(input.length + 1);
    expect(error.message).toMatch(/\S/);
    const result = parseQuery(input);
    expect(result).toEqual({ ok: false, errors: [error.toJSON()] });
    return;
  }
  // What parses is stable under normalisation: the canonical text parses to the same tree.
  expect(parse(printQuery(ast))).toEqual(ast);
  expect(parseQuery(input)).toEqual({ ok: true, ast });
}

// Pieces of queries, valid and not, glued with or without whitespace.
const PIECES = [
  ...['AND', 'OR', 'NOT', 'NEAR/3', 'NEAR/1', 'NEAR/0', 'NEAR/21', 'NEAR', 'NEAR/x', 'and', 'or'],
  ...[
    '(',
    ')',
    '"',
    '"',
    '"a b"',
    '""',
    'word',
    'ab*',
    'a*',
    '*',
    'ab*c',
    '東京',
    '서울에서',
    '🔥',
    '&',
    '--',
  ],
  ...['list(press)', 'author:list(rivals)', 'site:list(', 'lang:list(a)', 'list(Bad name)', 'list()'],
  ...['#tag', '#', '#a-b', '#x*', '@user', '@', 'author:', 'author:bob', 'platform:x', 'platform:myspace'],
  ...[
    'lang:en',
    'lang:english',
    'country:KR',
    'country:usa',
    'site:reddit',
    'foo:bar',
    "'",
    ';',
    '\\',
    '%',
    '_',
  ],
  ...['\u0000', '\ud800', '\u3000', 'ñ'],
];
const nearValidArb = fc
  .array(fc.tuple(fc.constantFrom(...PIECES), fc.constantFrom('', ' ', ' ', ' ', '\t', '\n')), {
    maxLength: 25,
  })
  .map((parts) => parts.map(([piece, space]) => piece + space).join(''));

describe('printing then parsing', () => {
  it('gives the same tree back', () => {
    fc.assert(
      fc.property(nodeArb.filter(withinLimits), (ast) => {
        expect(parse(printQuery(ast))).toEqual(ast);
      }),
      { numRuns: 500 },
    );
  });
});

describe('any input', () => {
  it('printable ASCII: parses, or fails with a QuerySyntaxError at a column inside the text', () => {
    fc.assert(fc.property(fc.string({ maxLength: 60 }), checkTotal), { numRuns: 1000 });
  });

  it('any code point, control characters included', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 60 }), checkTotal), { numRuns: 1000 });
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 30 }), checkTotal), { numRuns: 500 });
  });

  it('any UTF-16 code units, unpaired surrogates included', () => {
    const unit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));
    fc.assert(fc.property(fc.string({ unit, maxLength: 40 }), checkTotal), { numRuns: 500 });
  });

  it('near-valid queries built from the grammar', () => {
    fc.assert(fc.property(nearValidArb, checkTotal), { numRuns: 3000 });
  });

  it('very long inputs', () => {
    fc.assert(
      fc.property(nearValidArb, fc.integer({ min: 990, max: 1100 }), (query, size) => {
        checkTotal(query.padEnd(size, ' x').slice(0, size));
      }),
      { numRuns: 200 },
    );
  });

  it('printed trees of the generator that break the limits still only raise QuerySyntaxError', () => {
    fc.assert(
      fc.property(nodeArb, (ast) => checkTotal(printQuery(ast))),
      { numRuns: 200 },
    );
  });
});
