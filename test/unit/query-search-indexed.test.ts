// searchIndexed: which conditions the search index finds alone, so that the conversation dashboard can take the
// sample marks into the same index scan.
import { describe, expect, it } from 'vitest';
import { searchIndexed } from '@server/query/compile';
import { parse } from '@server/query/index';

describe('searchIndexed', () => {
  it.each<[string, boolean]>([
    ['nova', true],
    ['"midnight harbor"', true],
    ['nov*', true],
    ['nova NEAR/3 launch', true],
    ['nova NOT #unboxing', true],
    ['#unboxing nova', true],
    ['cloudnest OR outage OR "down detector"', true],
    ['(nova OR launch) platform:x', true],
    ['#unboxing', false],
    ['@novaofficial', false],
    ['platform:tiktok lang:es', false],
    ['NOT nova', false],
    ['nova OR #unboxing', false],
    ['노바X', false],
    ['노바X nova', true],
    ['nova OR 노바X', false],
  ])('%s: %s', (query, expected) => {
    expect(searchIndexed(parse(query))).toBe(expected);
  });

  it('is false without a query', () => {
    expect(searchIndexed(null)).toBe(false);
  });
});
