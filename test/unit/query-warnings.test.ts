// Warnings on queries that parse but may not say what was meant: each says how the query is read, and its fix, applied
// to the text, gives a query that parses with no warning of that kind (and, for the brackets, the same tree).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { QueryWarning } from '@contract/social-query';
import { parseQuery, printQuery } from '@server/query/index';
import { queryWarnings } from '@server/query/warnings';
import { queryArb } from '@test/support/reference/corpus';

function warningsOf(text: string): QueryWarning[] {
  const parsed = parseQuery(text);
  if (!parsed.ok) throw new Error(`does not parse: ${text}`);
  return queryWarnings(text, parsed.ast);
}

const applied = (text: string, warning: QueryWarning) => {
  const fix = warning.fix!;
  return text.slice(0, fix.column - 1) + fix.text + text.slice(fix.column - 1 + fix.length);
};

const printed = (text: string) => {
  const parsed = parseQuery(text);
  if (!parsed.ok) throw new Error(`does not parse: ${text}`);
  return printQuery(parsed.ast);
};

describe('query warnings', () => {
  it('none for queries that say what they mean', () => {
    for (const text of [
      'nova',
      'nova OR nebula',
      'nova cloud',
      '(nova cloud) OR nebula',
      'nova AND (cloud OR sky)',
      '"or else" nova',
      'coff*',
      'nova NOT #unboxing',
      'a NEAR/3 b OR c',
      'platform:tiktok',
    ]) {
      expect(warningsOf(text), text).toEqual([]);
    }
  });

  it('a lower-case or, and or not between terms: searched as a word; the fix writes it in capitals', () => {
    const [warning, ...rest] = warningsOf('nova or nebula');
    expect(rest).toEqual([]);
    expect(warning).toEqual({
      code: 'lowercase_operator',
      message: '"or" at column 6 is searched as a word; write OR in capitals to combine the terms around it',
      column: 6,
      length: 2,
      fix: { label: 'Write OR', column: 6, length: 2, text: 'OR' },
    });
    expect(applied('nova or nebula', warning!)).toBe('nova OR nebula');
    expect(warningsOf('nova and (cloud)').map((w) => [w.code, w.fix?.text])).toEqual([
      ['lowercase_operator', 'AND'],
    ]);
    expect(warningsOf('"nova" Not "cloud"').map((w) => w.fix?.text)).toEqual(['NOT']);
    // At the start or the end it is a word of the query, not between terms.
    expect(warningsOf('or nova')).toEqual([]);
    expect(warningsOf('nova or')).toEqual([]);
  });

  it('AND and OR mixed without brackets: the fix writes the brackets as the query is read (the same tree)', () => {
    for (const [text, fixed] of [
      ['nova cloud OR nebula', '(nova cloud) OR nebula'],
      ['nebula OR nova AND cloud', 'nebula OR (nova AND cloud)'],
      ['a OR NOT b c OR d', 'a OR (NOT b c) OR d'],
      ['x (a b OR c) y', 'x ((a b) OR c) y'],
      ['a NEAR/2 b c OR d', '(a NEAR/2 b c) OR d'],
    ] as const) {
      const found = warningsOf(text).filter((w) => w.code === 'mixed_and_or');
      expect(found, text).toHaveLength(1);
      const result = applied(text, found[0]!);
      expect(result, text).toBe(fixed);
      expect(found[0]!.message).toContain(`reads as ${found[0]!.fix!.text}`);
      expect(printed(result)).toBe(printed(text));
      expect(warningsOf(result).filter((w) => w.code === 'mixed_and_or')).toEqual([]);
    }
  });

  it('a wildcard of two letters matches too much; the fix searches the word itself', () => {
    const [warning] = warningsOf('co* nova');
    expect(warning).toMatchObject({ code: 'short_wildcard', column: 1, length: 3 });
    expect(warning!.message).toBe(
      '"co*" at column 1 matches every word that starts with "co": give at least 3 letters before the *',
    );
    expect(applied('co* nova', warning!)).toBe('co nova');
    expect(warningsOf('nova ab*').map((w) => w.code)).toEqual(['short_wildcard']);
    expect(warningsOf('cof* nova')).toEqual([]);
  });

  it('a query that can only exclude matches every other post; the fix drops the NOT', () => {
    for (const [text, fixed] of [
      ['NOT nova', 'nova'],
      ['NOT nova NOT cloud', 'nova NOT cloud'],
      ['NOT (nova OR cloud)', '(nova OR cloud)'],
    ] as const) {
      const found = warningsOf(text).filter((w) => w.code === 'only_negative');
      expect(found, text).toHaveLength(1);
      expect(applied(text, found[0]!)).toBe(fixed);
    }
    expect(warningsOf('NOT nova OR cloud').map((w) => w.code)).toEqual(['only_negative']);
    expect(warningsOf('cloud NOT nova')).toEqual([]);
  });

  it('several at once, in the order of their columns', () => {
    expect(warningsOf('nova or co* OR nebula sky').map((w) => [w.code, w.column])).toEqual([
      ['mixed_and_or', 1],
      ['lowercase_operator', 6],
      ['short_wildcard', 9],
    ]);
  });

  // Generated queries joined by operators without brackets (lower-case ones too), so that every warning comes up.
  const mixArb = fc
    .array(fc.tuple(queryArb, fc.constantFrom(' ', ' AND ', ' OR ', ' or ', ' and ', ' NOT ', ' OR NOT ')), {
      minLength: 1,
      maxLength: 4,
    })
    .map((parts) => parts.map(([query, operator], i) => (i ? operator : '') + query).join(''))
    .filter((text) => parseQuery(text).ok);

  it('on generated queries: every fix gives a query that parses; the brackets keep its tree', () => {
    let mixed = 0;
    fc.assert(
      fc.property(mixArb, (text) => {
        for (const warning of warningsOf(text)) {
          expect(warning.column + warning.length).toBeLessThanOrEqual(text.length + 1);
          if (!warning.fix) continue;
          const result = applied(text, warning);
          expect(parseQuery(result).ok, `${text} → ${result}`).toBe(true);
          if (warning.code === 'mixed_and_or') {
            mixed += 1;
            expect(printed(result)).toBe(printed(text));
          }
        }
      }),
      { numRuns: 500 },
    );
    expect(mixed).toBeGreaterThan(0);
  });
});
