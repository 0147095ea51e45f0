// The query editor's pure parts: the highlighting tokenizer (against the server's lexer), the terms marked in post
// text, the diagnostics' positions, completion, and discover's search-param codec.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tokenize } from '@server/query/lexer';
import { scanQuery, type QueryToken } from '@/components/query-editor/query-tokens';
import { highlightText, termPatterns } from '@/components/query-editor/match-terms';
import { applyQueryFix, toDiagnostics } from '@/components/query-editor/diagnostics';
import { suggestionsFromPosts } from '@/components/query-editor/query-completion';
import { parseSearch, stringifySearch } from '@/lib/search-params';
import {
  discoverSearchSchema,
  fromSearch,
  LANGUAGE_VALUES,
  RANGE_DAYS,
  toSearch,
  type DiscoverState,
} from '@/features/discover/discover-search';
import { PLATFORM_VALUES } from '@contract/social-scope';
import { DISCOVER_SORTS } from '@contract/discover';

const kinds = (text: string) => scanQuery(text).map((t) => [t.kind, text.slice(t.from, t.to)]);

describe('scanQuery', () => {
  it('names every token kind', () => {
    expect(
      kinds('(coffee OR "flat white") AND barist* NOT #LatteArt @starbucks NEAR/3 author:jane lang:ko)'),
    ).toEqual([
      ['paren', '('],
      ['word', 'coffee'],
      ['operator', 'OR'],
      ['phrase', '"flat white"'],
      ['paren', ')'],
      ['operator', 'AND'],
      ['wildcard', 'barist*'],
      ['operator', 'NOT'],
      ['hashtag', '#LatteArt'],
      ['mention', '@starbucks'],
      ['near', 'NEAR/3'],
      ['fieldName', 'author:'],
      ['fieldValue', 'jane'],
      ['fieldName', 'lang:'],
      ['fieldValue', 'ko'],
      ['paren', ')'],
    ]);
  });

  it('reads a list reference whole, after a field or not, as the lexer does', () => {
    expect(kinds('author:list(competitors) OR list(misspellings) list (a) site:list(pre')).toEqual([
      ['fieldName', 'author:'],
      ['fieldValue', 'list(competitors)'],
      ['operator', 'OR'],
      ['fieldValue', 'list(misspellings)'],
      ['word', 'list'],
      ['paren', '('],
      ['word', 'a'],
      ['paren', ')'],
      ['fieldName', 'site:'],
      ['fieldValue', 'list(pre'],
    ]);
  });

  it('keeps lower-case operators as words, a bare field name alone, and an unclosed phrase to the end', () => {
    expect(kinds('rock and roll NEAR platform: "open')).toEqual([
      ['word', 'rock'],
      ['word', 'and'],
      ['word', 'roll'],
      ['near', 'NEAR'],
      ['fieldName', 'platform:'],
      ['phrase', '"open'],
    ]);
  });

  it("keeps a phrase's slop with it", () => {
    expect(kinds('"flat white"~3 tea')).toEqual([
      ['phrase', '"flat white"~3'],
      ['word', 'tea'],
    ]);
  });

  it('counts CJK and emoji in UTF-16 code units, as the server does', () => {
    const text = '東京 🔥🔥 "서울에서 커피" #커피';
    expect(kinds(text)).toEqual([
      ['word', '東京'],
      ['word', '🔥🔥'],
      ['phrase', '"서울에서 커피"'],
      ['hashtag', '#커피'],
    ]);
    expect(scanQuery(text)[1]).toEqual({ kind: 'word', from: 3, to: 7 });
  });

  it('marks <<< comments >>> (to the end when unclosed), which also end a word', () => {
    expect(kinds('coffee <<< our "brand" >>> OR tea<<<x>>>')).toEqual([
      ['word', 'coffee'],
      ['comment', '<<< our "brand" >>>'],
      ['operator', 'OR'],
      ['word', 'tea'],
      ['comment', '<<<x>>>'],
    ]);
    expect(kinds('tea <<< unclosed (')).toEqual([
      ['word', 'tea'],
      ['comment', '<<< unclosed ('],
    ]);
  });

  it('handles a 10,000-character query', () => {
    const text = 'coffee 🔥 '.repeat(1000);
    expect(text.length).toBe(10_000);
    expect(scanQuery(text)).toHaveLength(2000);
  });

  it('splits text exactly where the server lexer does', () => {
    const merged = (tokens: QueryToken[]) =>
      tokens.reduce<Array<[number, number]>>((spans, token) => {
        const previous = spans.at(-1);
        if (token.kind === 'fieldValue' && previous) previous[1] = token.to;
        else spans.push([token.from, token.to]);
        return spans;
      }, []);
    const unit = fc.constantFrom(...Array.from('ab AND OR NOT NEAR/2 ()"{}[]#@:*東🔥 \t\n'));
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 40 }), (text) => {
        let server;
        try {
          server = tokenize(text);
        } catch {
          return; // the server refuses it; the editor still colours it (never throws)
        }
        const expected = server
          .filter((t) => t.kind !== 'eof')
          .map((t) => [t.column - 1, t.column - 1 + t.length]);
        expect(merged(scanQuery(text))).toEqual(expected);
      }),
    );
  });
});

describe('highlighting matched terms in post text', () => {
  const marked = (query: string, text: string) =>
    highlightText(text, termPatterns(query))
      .filter((segment) => segment.match)
      .map((segment) => segment.text);

  it('marks words whole and in any case, phrases, wildcards, hashtags and mentions', () => {
    expect(marked('coffee', 'Coffee, coffeehouse and COFFEE!')).toEqual(['Coffee', 'COFFEE']);
    expect(marked('"flat white"', 'A Flat  White please, flat')).toEqual(['Flat  White']);
    expect(marked('barist*', 'Baristas and the barista')).toEqual(['Baristas', 'barista']);
    expect(marked('"flat white"~2', 'White oat flat, a flat')).toEqual(['White', 'flat', 'flat']);
    expect(marked('#LatteArt @starbucks', 'so #latteart with @Starbucks and @starbucks_fan')).toEqual([
      '#latteart',
      '@Starbucks',
    ]);
  });

  it('leaves out terms after NOT, field filters and operators', () => {
    expect(marked('coffee NOT decaf lang:en', 'decaf coffee en')).toEqual(['coffee']);
    expect(marked('tea NOT (decaf OR milk) sugar', 'tea decaf milk sugar')).toEqual(['tea', 'sugar']);
    expect(marked('tea AND OR NEAR/2', 'tea AND OR')).toEqual(['tea']);
  });

  it('marks CJK and emoji terms as substrings', () => {
    expect(marked('서울 🔥', '서울에서 커피 🔥🔥')).toEqual(['서울', '🔥', '🔥']);
    expect(marked('東京', '東京タワーに行った')).toEqual(['東京']);
  });

  it('keeps the text whole: the segments join back to it', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (query, text) => {
        expect(
          highlightText(text, termPatterns(query))
            .map((segment) => segment.text)
            .join(''),
        ).toBe(text);
      }),
    );
  });
});

describe('diagnostics', () => {
  it('turns 1-based columns into 0-based offsets, clamped to the text', () => {
    expect(toDiagnostics([{ message: 'Unexpected ")" at column 3', column: 3, length: 1 }], 5)).toEqual([
      { from: 2, to: 3, severity: 'error', message: 'Unexpected ")" at column 3' },
    ]);
    expect(toDiagnostics([{ message: 'too long', column: 1001, length: 50 }], 1020)[0]).toMatchObject({
      from: 1000,
      to: 1020,
    });
    expect(toDiagnostics([{ message: 'end', column: 9, length: 0 }], 4)[0]).toMatchObject({ from: 4, to: 4 });
  });

  it("makes warnings of the check's warnings, their fix an action that rewrites the text", () => {
    const fix = { label: 'Write OR', column: 6, length: 2, text: 'OR' };
    const [diagnostic] = toDiagnostics([], 14, [
      { code: 'lowercase_operator', message: 'searched as a word', column: 6, length: 2, fix },
    ]);
    expect(diagnostic).toMatchObject({ from: 5, to: 7, severity: 'warning', message: 'searched as a word' });
    expect(diagnostic!.actions!.map((action) => action.name)).toEqual(['Write OR']);
    expect(applyQueryFix('nova or nebula', fix)).toBe('nova OR nebula');
    // Clamped: a fix past the end appends.
    expect(applyQueryFix('nova', { ...fix, column: 9, length: 3, text: '!' })).toBe('nova!');
  });
});

describe('completion suggestions from posts', () => {
  it('ranks hashtags, mentions, authors and countries by how often they occur', () => {
    const post = (hashtags: string[], handle: string, country: string | null) => ({
      hashtags,
      mentions: ['x'],
      author: { handle, country },
    });
    expect(suggestionsFromPosts([post(['a'], 'Ann', 'KR'), post(['b', 'a'], 'bo', null)])).toEqual({
      hashtags: ['a', 'b'],
      mentions: ['x'],
      authors: ['ann', 'bo'],
      countries: ['KR'],
    });
  });
});

describe('discover search params', () => {
  const decode = (address: string) => fromSearch(discoverSearchSchema.parse(parseSearch(address)));
  const stateArb: fc.Arbitrary<DiscoverState> = fc.record({
    query: fc.string({ maxLength: 60 }),
    range: fc.constantFrom(...(Object.keys(RANGE_DAYS) as Array<keyof typeof RANGE_DAYS>)),
    platforms: fc.subarray([...PLATFORM_VALUES]),
    languages: fc.subarray([...LANGUAGE_VALUES]),
    sort: fc.constantFrom(...DISCOVER_SORTS),
  });

  it('reads back every search it writes (a copied link reproduces the search)', () => {
    fc.assert(
      fc.property(stateArb, (state) => {
        expect(decode(stringifySearch(toSearch(state)))).toEqual(state);
      }),
    );
  });

  it('falls back to defaults for anything hand-edited, never throwing', () => {
    expect(decode('?range=1y&sort=random&platforms=myspace,x,x&languages=EN,ko')).toEqual({
      query: '',
      range: '30d',
      platforms: ['x'],
      languages: ['ko'],
      sort: 'recency',
    });
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom('q', 'range', 'platforms', 'languages', 'sort', 'x'), fc.string()),
        (params) => {
          expect(() => fromSearch(discoverSearchSchema.parse(params))).not.toThrow();
        },
      ),
    );
  });

  it('leaves defaults out of the address', () => {
    expect(stringifySearch(toSearch(decode('')))).toBe('');
    expect(stringifySearch(toSearch({ ...decode(''), query: 'a b', platforms: ['reddit', 'x'] }))).toBe(
      '?q=a+b&platforms=x%2Creddit',
    );
  });
});
