import { describe, expect, it } from 'vitest';
import { expandLists, listNames, parse, parseQuery, printQuery, type QueryLists } from '@server/query/index';
import { listItemNode } from '@server/query/lists';
import { QUERY_LIMITS } from '@contract/social-query';

const lists: QueryLists = new Map([
  ['competitors', { kind: 'authors', items: ['Rival', '@other.brand'] }],
  ['press', { kind: 'sites', items: ['https://www.bbc.co.uk/news', 'nytimes.com'] }],
  ['misspellings', { kind: 'words', items: ['cofee', 'coffe', 'flat  white'] }],
  ['one', { kind: 'words', items: ['solo'] }],
]);

describe('list references', () => {
  it.each([
    ['list(misspellings)', { type: 'list', kind: 'words', name: 'misspellings' }, 'list(misspellings)'],
    [
      'Author:LIST(competitors)',
      { type: 'list', kind: 'authors', name: 'competitors' },
      'author:list(competitors)',
    ],
    ['url:list(press)', { type: 'list', kind: 'sites', name: 'press' }, 'site:list(press)'],
  ])('%s is kept in the tree and printed back', (text, tree, printed) => {
    expect(parse(text)).toEqual(tree);
    expect(parse(text, lists)).toEqual(tree);
    expect(printQuery(parse(text))).toBe(printed);
  });

  it('joins other terms as any term does', () => {
    const tree = parse('coffee list(misspellings) OR NOT site:list(press)');
    expect(printQuery(tree)).toBe('coffee AND list(misspellings) OR NOT site:list(press)');
    expect(listNames(tree)).toEqual(['misspellings', 'press']);
  });

  it.each([
    ['coffee list(press)', 'No list named press in this workspace, at column 8', 8, 11],
    [
      'author:list(press)',
      'press is a list of sites (site:list(…)), not a list of authors (author:list(…)), at column 1',
      1,
      18,
    ],
    ['lang:list(press)', 'Only author: and site: read a list, not "lang:" at column 1', 1, 16],
    [
      'list(Press)',
      'Invalid list name "Press" at column 1 (lower-case letters, digits, _ and -, 1 to 40)',
      1,
      11,
    ],
    ['list()', 'Invalid list name "" at column 1 (lower-case letters, digits, _ and -, 1 to 40)', 1, 6],
    ['a list(press', 'Missing ) for the list that starts at column 3', 3, 10],
  ])('%s: %s', (text, message, column, length) => {
    const withLists = new Map([...lists].filter(([name]) => name !== 'press' || !text.startsWith('coffee')));
    expect(parseQuery(text, withLists)).toEqual({ ok: false, errors: [{ message, column, length }] });
  });

  it('checks nothing about the workspace without its lists', () => {
    expect(parseQuery('list(anything)').ok).toBe(true);
  });

  it('refuses a list in NEAR', () => {
    expect(parseQuery('list(one) NEAR/2 coffee').ok).toBe(false);
  });

  it('counts the items of each list as terms', () => {
    const many = new Map([
      ['many', { kind: 'words' as const, items: Array.from({ length: 299 }, (_, i) => `w${i}`) }],
    ]);
    expect(parseQuery('list(many) a', many).ok).toBe(true);
    expect(parseQuery('list(many) a b', many)).toEqual({
      ok: false,
      errors: [
        {
          message: `Too many terms: at most ${QUERY_LIMITS.maxTerms}, and term 301 is at column 14`,
          column: 14,
          length: 1,
        },
      ],
    });
    expect(parseQuery('a b list(many)', many).ok).toBe(false);
  });
});

describe('expandLists', () => {
  it('replaces each reference by the OR of its items, flattened into an enclosing OR', () => {
    const tree = parse('author:list(competitors) OR site:list(press) OR list(one)', lists);
    expect(expandLists(tree, lists)).toEqual({
      type: 'or',
      operands: [
        { type: 'field', field: 'author', value: 'rival' },
        { type: 'field', field: 'author', value: 'other.brand' },
        { type: 'field', field: 'site', value: 'bbc.co.uk' },
        { type: 'field', field: 'site', value: 'nytimes.com' },
        { type: 'term', value: 'solo' },
      ],
    });
    expect(printQuery(expandLists(parse('coffee NOT list(misspellings)'), lists))).toBe(
      'coffee AND NOT (cofee OR coffe OR "flat white")',
    );
  });

  it('reads the lists it is given: an edited list changes the expansion', () => {
    const tree = parse('list(one)');
    const edited: QueryLists = new Map([['one', { kind: 'words', items: ['duo', 'trio'] }]]);
    expect(printQuery(expandLists(tree, lists))).toBe('solo');
    expect(printQuery(expandLists(tree, edited))).toBe('duo OR trio');
    expect(() => expandLists(tree, new Map())).toThrow('No list named one in this workspace');
  });
});

describe('list items', () => {
  it.each<[Parameters<typeof listItemNode>[0], string, string]>([
    ['authors', 'two words', '"two words" is not a handle'],
    ['authors', 'a/b', '"a/b" is not a handle'],
    ['sites', 'reddit', '"reddit" is not a domain such as bbc.co.uk, or an address'],
    ['sites', 'not a site', '"not a site" is not a domain such as bbc.co.uk, or an address'],
    ['words', 'cof*', '"cof*" is not a word or phrase (no fields, tags or wildcards)'],
    ['words', '#tag', '"#tag" is not a word or phrase (no fields, tags or wildcards)'],
    ['words', '   ', 'An item is empty'],
  ])('%s: "%s" is refused', (kind, item, message) => {
    expect(() => listItemNode(kind, item)).toThrow(message);
  });
});
