import { describe, expect, it } from 'vitest';
import { parse, parseQuery, printQuery, QuerySyntaxError, type QueryNode } from '@server/query/index';
import { fieldRange, maskPattern } from '@server/query/terms';

const term = (value: string) => ({ type: 'term' as const, value });
const and = (...operands: QueryNode[]): QueryNode => ({ type: 'and', operands });
const or = (...operands: QueryNode[]): QueryNode => ({ type: 'or', operands });
const not = (operand: QueryNode): QueryNode => ({ type: 'not', operand });

describe('parsing every construct', () => {
  it.each<[string, QueryNode, string]>([
    ['coffee', term('coffee'), 'coffee'],
    ['Coffee', term('Coffee'), 'Coffee'],
    ['coffee tea', and(term('coffee'), term('tea')), 'coffee AND tea'],
    ['coffee AND tea', and(term('coffee'), term('tea')), 'coffee AND tea'],
    ['coffee OR tea', or(term('coffee'), term('tea')), 'coffee OR tea'],
    ['NOT decaf', not(term('decaf')), 'NOT decaf'],
    ['(coffee)', term('coffee'), 'coffee'],
    ['"flat  white "', { type: 'phrase', value: 'flat white' }, '"flat white"'],
    ['barist*', { type: 'wildcard', prefix: 'barist' }, 'barist*'],
    ['#LatteArt', { type: 'hashtag', value: 'latteart' }, '#latteart'],
    ['@StarBucks', { type: 'mention', value: 'starbucks' }, '@starbucks'],
    ['author:Jane_Doe', { type: 'field', field: 'author', value: 'jane_doe' }, 'author:jane_doe'],
    ['author:@jane.d', { type: 'field', field: 'author', value: 'jane.d' }, 'author:jane.d'],
    ['platform:YouTube', { type: 'field', field: 'platform', value: 'youtube' }, 'platform:youtube'],
    ['site:x', { type: 'field', field: 'platform', value: 'x' }, 'platform:x'],
    ['Lang:KO', { type: 'field', field: 'lang', value: 'ko' }, 'lang:ko'],
    ['country:kr', { type: 'field', field: 'country', value: 'KR' }, 'country:KR'],
    [
      'latte NEAR/3 art',
      { type: 'near', distance: 3, left: term('latte'), right: term('art') },
      'latte NEAR/3 art',
    ],
    [
      '(latte OR mocha) NEAR/2 "oat milk"',
      {
        type: 'near',
        distance: 2,
        left: { type: 'or', operands: [term('latte'), term('mocha')] },
        right: { type: 'phrase', value: 'oat milk' },
      },
      '(latte OR mocha) NEAR/2 "oat milk"',
    ],
    ['oat* NEAR/20 milk', expect.objectContaining({ type: 'near', distance: 20 }), 'oat* NEAR/20 milk'],
    [
      "don't covid-19 x.com 10:30",
      and(term("don't"), term('covid-19'), term('x.com'), term('10:30')),
      "don't AND covid-19 AND x.com AND 10:30",
    ],
  ])('%s', (text, tree, printed) => {
    const ast = parse(text);
    expect(ast).toEqual(tree);
    expect(printQuery(ast)).toBe(printed);
  });

  it('treats lower-case and, or, not and near/2 as words', () => {
    expect(parse('rock and roll or not near/2')).toEqual(
      and(term('rock'), term('and'), term('roll'), term('or'), term('not'), term('near/2')),
    );
  });

  it('accepts any whitespace between tokens, the ideographic space included', () => {
    expect(parse('a\tb\nc\u3000d')).toEqual(and(term('a'), term('b'), term('c'), term('d')));
  });

  it('lets a phrase or a group follow a word without a space', () => {
    expect(parse('a"b c"(d)')).toEqual(and(term('a'), { type: 'phrase', value: 'b c' }, term('d')));
  });
});

describe('precedence: NOT > NEAR > AND > OR', () => {
  it.each<[string, string]>([
    ['a b OR c', 'a AND b OR c'],
    ['a OR b c', 'a OR b AND c'],
    ['(a OR b) c', '(a OR b) AND c'],
    ['NOT a b', 'NOT a AND b'],
    ['NOT (a b)', 'NOT (a AND b)'],
    ['NOT (a OR b) OR c', 'NOT (a OR b) OR c'],
    ['a NEAR/2 b c', 'a NEAR/2 b AND c'],
    ['a NEAR/2 b OR c', 'a NEAR/2 b OR c'],
    ['NOT (a NEAR/2 b)', 'NOT (a NEAR/2 b)'],
    ['a AND (b AND c)', 'a AND b AND c'],
    ['(a OR b) OR (c OR d)', 'a OR b OR c OR d'],
    ['((a))', 'a'],
    ['NOT NOT a', 'NOT NOT a'],
  ])('%s → %s', (text, printed) => {
    expect(printQuery(parse(text))).toBe(printed);
  });

  it('builds the trees the precedence implies', () => {
    expect(parse('a b OR c')).toEqual(or(and(term('a'), term('b')), term('c')));
    expect(parse('NOT a b')).toEqual(and(not(term('a')), term('b')));
    expect(parse('x OR a NEAR/2 b c')).toEqual(
      or(term('x'), and({ type: 'near', distance: 2, left: term('a'), right: term('b') }, term('c'))),
    );
  });
});

describe('Unicode', () => {
  it.each<[string, QueryNode]>([
    ['東京タワー', term('東京タワー')],
    ['서울에서 맛집', and(term('서울에서'), term('맛집'))],
    ['"ラーメン 大好き"', { type: 'phrase', value: 'ラーメン 大好き' }],
    ['canción año', and(term('canción'), term('año'))],
    ['#東京 @사용자', and({ type: 'hashtag', value: '東京' }, { type: 'mention', value: '사용자' })],
    ['#Ñandú', { type: 'hashtag', value: 'ñandú' }],
    ['café*', { type: 'wildcard', prefix: 'café' }],
    ['東京*', { type: 'wildcard', prefix: '東京' }],
    ['🔥🔥', term('🔥🔥')],
    ['NOT 😀 lang:ja', and(not(term('😀')), { type: 'field', field: 'lang', value: 'ja' })],
  ])('%s', (text, tree) => {
    expect(parse(text)).toEqual(tree);
  });

  it('counts columns in UTF-16 code units, as the browser does', () => {
    // 😀 is two code units: the ")" is at index 3, column 4.
    expect(parseQuery('😀 )')).toEqual({
      ok: false,
      errors: [{ message: 'Unexpected ")" at column 4', column: 4, length: 1 }],
    });
  });
});

const long = 'a'.repeat(4097);
const tooMany = Array.from({ length: 301 }, (_, i) => `w${i}`).join(' ');
const lastTerm = tooMany.lastIndexOf('w300') + 1;
const deep = `${'('.repeat(11)}a${')'.repeat(11)}`;

describe('errors: exact message, column and length', () => {
  it.each<[string, string, number, number]>([
    [long, 'The query is too long: 4097 characters, at most 4096', 4097, 1],
    ['a <<< note', 'Missing >>> for the comment that starts at column 3', 3, 8],
    ['a {NASA', 'Missing } for the case-sensitive term that starts at column 3', 3, 5],
    ['followers:[10 TO', 'Missing ] for the range that starts at column 1', 1, 16],
    [
      'followers:[10 TO 5]',
      'Invalid range "[10 TO 5]" at column 11 (its lower end is above its upper end)',
      11,
      9,
    ],
    [
      'engagement:[a TO b]',
      'Invalid range "[a TO b]" at column 12 (as in [1000 TO *]: whole numbers or *, both ends included)',
      12,
      8,
    ],
    ['is:retweet', 'Invalid kind "retweet" at column 4 (one of original, reply, repost, quote)', 4, 7],
    ['a c?lor', 'A "?" needs at least 2 characters before it, at column 3', 3, 5],
    ['co?l*or', '"*" can only end a word, at column 5', 5, 1],
    [
      'co?-op',
      '"?" works within one word of letters and digits, as in colo?r; not "co?-op" at column 1',
      1,
      6,
    ],
    [
      'a {NASA rocket}',
      'A case-sensitive term holds one word of letters and digits, as in {NASA}; not "{NASA rocket}" at column 3',
      3,
      13,
    ],
    [
      '{東京}',
      'A case-sensitive term holds one word of letters and digits, as in {NASA}; not "{東京}" at column 1',
      1,
      4,
    ],
    ['a\u0000b', 'Invalid character U+0000 at column 2', 2, 1],
    ['ab \u0007', 'Invalid character U+0007 at column 4', 4, 1],
    ['a \ud800b', 'Invalid character U+D800 at column 3', 3, 1],
    ['a \udc00', 'Invalid character U+DC00 at column 3', 3, 1],
    ['', 'The query is empty', 1, 0],
    [' \n ', 'The query is empty', 1, 0],
    ['(a OR b) AND c)', 'Unexpected ")" at column 15', 15, 1],
    [') a', 'Unexpected ")" at column 1', 1, 1],
    ['apple "flat white', 'Missing closing quote for the phrase that starts at column 7', 7, 11],
    ['a AND b NOT', 'Expected a term after "NOT" at column 9', 9, 3],
    ['apple AND', 'Expected a term after "AND" at column 7', 7, 3],
    ['a OR OR b', 'Expected a term after "OR" at column 3', 3, 2],
    ['(a AND ) b', 'Expected a term after "AND" at column 4', 4, 3],
    ['a NEAR/2', 'Expected a term after "NEAR/2" at column 3', 3, 6],
    ['AND a', 'Expected a term before "AND" at column 1', 1, 3],
    ['(OR a)', 'Expected a term before "OR" at column 2', 2, 2],
    ['NEAR/2 a', 'Expected a term before "NEAR/2" at column 1', 1, 6],
    [
      'a NEAR/0 b',
      'NEAR needs a distance from 1 to 20, as in NEAR/3 (or NEAR/3f: in this order), at column 3',
      3,
      6,
    ],
    [
      'a NEAR/21 b',
      'NEAR needs a distance from 1 to 20, as in NEAR/3 (or NEAR/3f: in this order), at column 3',
      3,
      7,
    ],
    [
      'a NEAR b',
      'NEAR needs a distance from 1 to 20, as in NEAR/3 (or NEAR/3f: in this order), at column 3',
      3,
      4,
    ],
    [
      'a NEAR/x b',
      'NEAR needs a distance from 1 to 20, as in NEAR/3 (or NEAR/3f: in this order), at column 3',
      3,
      6,
    ],
    ['a NEAR/2 b NEAR/3 c', 'NEAR/3 at column 12 follows another NEAR: join the pairs with AND', 12, 6],
    [
      '#tag NEAR/2 b',
      'NEAR/2 at column 6 can only join words, phrases, wildcards or (… OR …) groups of them',
      6,
      6,
    ],
    [
      'NOT a NEAR/2 b',
      'NEAR/2 at column 7 can only join words, phrases, wildcards or (… OR …) groups of them',
      7,
      6,
    ],
    [
      'a NEAR/2 (b c)',
      'NEAR/2 at column 3 can only join words, phrases, wildcards or (… OR …) groups of them',
      3,
      6,
    ],
    [
      'a NEAR/2 (b OR lang:en)',
      'NEAR/2 at column 3 can only join words, phrases, wildcards or (… OR …) groups of them',
      3,
      6,
    ],
    [
      '東京 NEAR/2 tower',
      'NEAR/2 at column 4 cannot use "東京": Chinese, Japanese, Korean, Thai and emoji are matched as text, without word positions',
      4,
      6,
    ],
    [tooMany, `Too many terms: at most 300, and term 301 is at column ${lastTerm}`, lastTerm, 4],
    [deep, 'Too many nested parentheses at column 11: at most 10 levels', 11, 1],
    ['a ( ) b', 'Empty parentheses at column 3', 3, 3],
    ['a (b OR (c)', 'Missing closing parenthesis for the "(" at column 3', 3, 1],
    ['a (', 'Missing closing parenthesis for the "(" at column 3', 3, 1],
    [
      'foo:bar',
      'Unknown field "foo:" at column 1 (use author:, platform:, lang:, country:, is:, followers:, engagement:, site:, instance:, subreddit:, source:, url:)',
      1,
      4,
    ],
    [
      'a https://x.com',
      'Unknown field "https:" at column 3 (use author:, platform:, lang:, country:, is:, followers:, engagement:, site:, instance:, subreddit:, source:, url:)',
      3,
      6,
    ],
    ['author:', 'Expected a value after "author:" at column 1', 1, 7],
    ['a Lang:', 'Expected a value after "Lang:" at column 3', 3, 5],
    ['author:bo*', 'A wildcard works on words only, not on "author:bo*" at column 1', 1, 10],
    ['#coffee*', 'A wildcard works on words only, not on "#coffee*" at column 1', 1, 8],
    ['@bob*', 'A wildcard works on words only, not on "@bob*" at column 1', 1, 5],
    ['author:bob!', 'Invalid author "bob!" at column 8 (a handle: letters, digits, _ . -)', 8, 4],
    [
      'platform:myspace',
      'Invalid platform "myspace" at column 10 (one of x, instagram, tiktok, youtube, facebook, reddit, mastodon, bluesky, rss, hackernews)',
      10,
      7,
    ],
    ['lang:english', 'Invalid language "english" at column 6 (a code such as en, ko, ja or es)', 6, 7],
    ['country:usa', 'Invalid country "usa" at column 9 (a two-letter code such as US, KR or JP)', 9, 3],
    ['a #', 'Expected a hashtag after "#" at column 3', 3, 1],
    ['@', 'Expected a mention after "@" at column 1', 1, 1],
    ['#no-dash', 'Invalid hashtag "#no-dash" at column 1 (letters, digits and _ only)', 1, 8],
    ['@a,b', 'Invalid mention "@a,b" at column 1 (letters, digits, _ . - only)', 1, 4],
    ['ab*c', '"*" can only end a word, at column 3', 3, 1],
    ['ab**', '"*" can only end a word, at column 3', 3, 1],
    ['a*', 'A wildcard needs at least 2 characters before "*", at column 1', 1, 2],
    ['x 東*', 'A wildcard needs at least 2 characters before "*", at column 3', 3, 2],
    [
      '--*',
      'Nothing to search for in "--*" at column 1 (combine terms with AND, OR, NOT in upper case)',
      1,
      3,
    ],
    [
      'a & b',
      'Nothing to search for in "&" at column 3 (combine terms with AND, OR, NOT in upper case)',
      3,
      1,
    ],
    [
      '"?!"',
      'Nothing to search for in the phrase at column 1 (combine terms with AND, OR, NOT in upper case)',
      1,
      4,
    ],
    ['a "  "', 'Empty phrase at column 3', 3, 4],
  ])('%j', (text, message, column, length) => {
    expect(parseQuery(text)).toEqual({ ok: false, errors: [{ message, column, length }] });
    try {
      parse(text);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(QuerySyntaxError);
      expect(error).toMatchObject({ message, column, length });
    }
  });

  it('accepts the limits themselves', () => {
    expect(parseQuery('a'.repeat(4096)).ok).toBe(true);
    expect(parseQuery(tooMany.replace(/ w300$/, '')).ok).toBe(true);
    expect(parseQuery(`${'('.repeat(10)}a${')'.repeat(10)}`).ok).toBe(true);
    expect(parseQuery('a NEAR/1 b').ok).toBe(true);
    expect(parseQuery('ab*').ok).toBe(true);
  });
});

describe('comments and lines', () => {
  it('skips <<< comments >>> and line breaks as whitespace: the tree is the same', () => {
    const plain = parseQuery('coffee OR tea');
    expect(parseQuery('coffee <<< our brand, "quoted" (and bracketed) >>> OR tea')).toEqual(plain);
    expect(parseQuery('<<< a note first >>>\ncoffee\nOR\ttea\n<<< and last >>>')).toEqual(plain);
    // A comment ends a word: coffee<<<x>>>tea is two terms.
    expect(parseQuery('coffee<<<x>>>tea')).toEqual(parseQuery('coffee tea'));
    // Inside a phrase, <<< is text.
    expect(parseQuery('"a <<< b"')).toEqual(parseQuery('"a <<< b"'));
    expect(parseQuery('"a <<< b"').ok).toBe(true);
  });
});

describe('case-sensitive terms', () => {
  it('parses {NASA} as the word in its case, printed back the same, a term among the others', () => {
    expect(parseQuery('{NASA} launch')).toEqual({
      ok: true,
      ast: {
        type: 'and',
        operands: [
          { type: 'cased', value: 'NASA' },
          { type: 'term', value: 'launch' },
        ],
      },
    });
    const parsed = parseQuery('{US} OR {Été}');
    expect(parsed.ok && printQuery(parsed.ast)).toBe('{US} OR {Été}');
  });
});

describe('masks', () => {
  it('parses colo?r and organi?ation* as masks, printed back as typed, joinable by NEAR', () => {
    expect(parseQuery('colo?r')).toEqual({ ok: true, ast: { type: 'mask', value: 'colo?r' } });
    const parsed = parseQuery('organi?ation* NEAR/2 "oat milk"');
    expect(parsed.ok && printQuery(parsed.ast)).toBe('organi?ation* NEAR/2 "oat milk"');
    expect(maskPattern('Colo?r')).toEqual({ prefix: 'colo', regex: '^colo.r$' });
    expect(maskPattern('organi?ation*')).toEqual({ prefix: 'organi', regex: '^organi.ation.*$' });
  });
});

describe('ordered proximity', () => {
  it('parses NEAR/3f as the right operand after the left one, printed back the same', () => {
    expect(parseQuery('coffee NEAR/3f shop')).toEqual({
      ok: true,
      ast: {
        type: 'near',
        distance: 3,
        ordered: true,
        left: { type: 'term', value: 'coffee' },
        right: { type: 'term', value: 'shop' },
      },
    });
    const parsed = parseQuery('(latte OR mocha) NEAR/2f "oat milk"');
    expect(parsed.ok && printQuery(parsed.ast)).toBe('(latte OR mocha) NEAR/2f "oat milk"');
  });
});

describe('phrase slop', () => {
  it('parses "flat white"~3 as the phrase with its slop, printed back the same', () => {
    expect(parseQuery('"flat  white"~3 coffee')).toEqual({
      ok: true,
      ast: {
        type: 'and',
        operands: [
          { type: 'phrase', value: 'flat white', slop: 3 },
          { type: 'term', value: 'coffee' },
        ],
      },
    });
    const parsed = parseQuery('("flat white"~20 OR latte) NOT decaf');
    expect(parsed.ok && printQuery(parsed.ast)).toBe('("flat white"~20 OR latte) AND NOT decaf');
  });

  it.each([
    [
      '"flat white"~',
      '~ after the phrase at column 1 needs a number of extra words from 1 to 20, as in "flat white"~3',
      1,
      13,
    ],
    [
      '"flat white"~0',
      '~ after the phrase at column 1 needs a number of extra words from 1 to 20, as in "flat white"~3',
      1,
      14,
    ],
    [
      'a "flat white"~21',
      '~ after the phrase at column 3 needs a number of extra words from 1 to 20, as in "flat white"~3',
      3,
      15,
    ],
    ['"flat"~2', '~2 at column 1 needs a phrase of two words or more, of scripts written with spaces', 1, 8],
    [
      '"東京 タワー"~2',
      '~2 at column 1 needs a phrase of two words or more, of scripts written with spaces',
      1,
      10,
    ],
    [
      '"flat white"~2 NEAR/3 coffee',
      'NEAR/3 at column 16 cannot join a phrase with ~n: write the words apart, as a NEAR of them',
      16,
      6,
    ],
  ])('refuses %s', (query, message, column, length) => {
    expect(parseQuery(query)).toEqual({ ok: false, errors: [{ message, column, length }] });
  });
});

describe('kinds and ranges', () => {
  it('parses is: and the ranges of followers: and engagement:, canonical when printed', () => {
    const parsed = parseQuery('is:Reply followers:[0100  to *] engagement:[* TO 50]');
    expect(parsed).toEqual({
      ok: true,
      ast: {
        type: 'and',
        operands: [
          { type: 'field', field: 'is', value: 'reply' },
          { type: 'field', field: 'followers', value: '[100 TO *]' },
          { type: 'field', field: 'engagement', value: '[* TO 50]' },
        ],
      },
    });
    expect(parsed.ok && printQuery(parsed.ast)).toBe(
      'is:reply AND followers:[100 TO *] AND engagement:[* TO 50]',
    );
    expect(fieldRange('[100 TO *]')).toEqual({ min: 100, max: null });
  });
});
