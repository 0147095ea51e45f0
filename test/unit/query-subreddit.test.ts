// `subreddit:` (server/query/README.md): its forms and canonical text, its errors, the rule that reads a Reddit post's
// subreddit from its permalink (server/query/subreddit.ts), and the tracking matcher's answers on it, which the
// reference evaluator (test/support/reference/query.ts) gives too.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseQuery, printQuery, type QueryNode } from '@server/query/index';
import { compileMatcher } from '@server/query/match/index';
import { subredditOf, subredditValue } from '@server/query/subreddit';
import { matchPostOf, refPost, referenceIds, tracked } from '@test/support/matcher-oracle';

const field = (value: string): QueryNode => ({ type: 'field', field: 'subreddit', value });

describe('subreddit: parses and prints', () => {
  it.each([
    ['subreddit:android', 'android'],
    ['Subreddit:Android', 'android'],
    ['subreddit:r/Android', 'android'],
    ['subreddit:R/android', 'android'],
    ['subreddit:/r/android', 'android'],
    ['subreddit:Ask_Science2', 'ask_science2'],
    ['subreddit:ab', 'ab'],
    ['subreddit:abcdefghijklmnopqrstu', 'abcdefghijklmnopqrstu'],
  ])('%s', (text, name) => {
    const parsed = parseQuery(text);
    expect(parsed).toEqual({ ok: true, ast: field(name) });
    expect(printQuery(field(name))).toBe(`subreddit:${name}`);
  });

  it('any valid name, in any case and with or without r/, is its lower-case name; the canonical text parses back', () => {
    const name = fc
      .array(fc.constantFrom(...'abcXYZ019_'), { minLength: 2, maxLength: 21 })
      .map((chars) => chars.join(''));
    fc.assert(
      fc.property(name, fc.constantFrom('', 'r/', 'R/', '/r/'), (raw, prefix) => {
        const parsed = parseQuery(`subreddit:${prefix}${raw} coffee`);
        const expected: QueryNode = {
          type: 'and',
          operands: [field(raw.toLowerCase()), { type: 'term', value: 'coffee' }],
        };
        expect(parsed).toEqual({ ok: true, ast: expected });
        expect(parseQuery(printQuery(expected))).toEqual({ ok: true, ast: expected });
      }),
      { numRuns: 300 },
    );
  });
});

describe('subreddit: errors', () => {
  const hint = '(a name such as android or r/android: 2 to 21 letters, digits and _)';
  it.each<[string, string, number, number]>([
    ['subreddit:a', `Invalid subreddit "a" at column 11 ${hint}`, 11, 1],
    ['subreddit:r/a', `Invalid subreddit "r/a" at column 11 ${hint}`, 11, 3],
    [
      'x subreddit:abcdefghijklmnopqrstuv',
      `Invalid subreddit "abcdefghijklmnopqrstuv" at column 13 ${hint}`,
      13,
      22,
    ],
    ['subreddit:an-droid', `Invalid subreddit "an-droid" at column 11 ${hint}`, 11, 8],
    ['subreddit:café', `Invalid subreddit "café" at column 11 ${hint}`, 11, 4],
    ['subreddit:r/', `Invalid subreddit "r/" at column 11 ${hint}`, 11, 2],
    ['subreddit:', 'Expected a value after "subreddit:" at column 1', 1, 10],
    ['subreddit:andr*', 'A wildcard works on words only, not on "subreddit:andr*" at column 1', 1, 15],
    ['subreddit:list(subs)', 'Only author: and site: read a list, not "subreddit:" at column 1', 1, 20],
  ])('%s', (text, message, column, length) => {
    expect(parseQuery(text)).toEqual({ ok: false, errors: [{ message, column, length }] });
  });
});

describe("a post's subreddit", () => {
  it.each<[string | null, string | null]>([
    ['https://www.reddit.com/r/Android/comments/1a2b3c/new_phone/', 'android'],
    ['https://old.reddit.com/r/android/comments/1a2b3c/', 'android'],
    ['https://reddit.com/r/android', 'android'],
    ['http://np.reddit.com/r/Android?sort=top', 'android'],
    ['https://new.reddit.com/r/android#top', 'android'],
    ['https://m.reddit.com/r/android/', 'android'],
    ['HTTPS://WWW.REDDIT.COM/R/ANDROID/', 'android'],
    ['https://www.reddit.com/r/ab/', 'ab'],
    ['https://www.reddit.com/r/a/comments/1', null],
    ['https://www.reddit.com/r/abcdefghijklmnopqrstuv/', null],
    ['https://www.reddit.com/r/android.json', null],
    ['https://www.reddit.com/user/someone/comments/1/', null],
    ['https://www.reddit.com/', null],
    ['https://notreddit.com/r/android/', null],
    ['https://reddit.com.evil.example/r/android/', null],
    ['https://example.com/?next=https://www.reddit.com/r/android/', null],
    ['ftp://reddit.com/r/android/', null],
    ['', null],
    [null, null],
  ])('%j', (url, name) => {
    expect(subredditOf('reddit', url)).toBe(name);
    // Another platform's post names no subreddit, whatever it links to.
    expect(subredditOf('x', url)).toBeNull();
  });

  it('a query value names what a permalink does', () => {
    expect(subredditValue('r/Android')).toBe(subredditOf('reddit', 'https://reddit.com/r/ANDROID'));
    expect(subredditValue('a')).toBeNull();
  });
});

describe('the tracking matcher on subreddit:', () => {
  const posts = [
    refPost({ text: 'new phone', platform: 'reddit', url: 'https://www.reddit.com/r/Android/comments/1/x/' }),
    refPost({ text: 'new phone', platform: 'reddit', url: 'https://old.reddit.com/r/apple/comments/2/' }),
    refPost({ text: 'new phone', platform: 'reddit', url: null }),
    refPost({ text: 'new phone', platform: 'x', url: 'https://www.reddit.com/r/android/comments/3/' }),
  ];
  const queries = tracked([
    'subreddit:android',
    'subreddit:r/APPLE phone',
    'subreddit:android OR subreddit:apple',
    'NOT subreddit:android',
    'phone NOT subreddit:apple',
    'platform:reddit NOT subreddit:android',
  ]);

  it('answers as the reference evaluator, post by post', () => {
    const matcher = compileMatcher(queries);
    const answers = posts.map((post) => matcher.match(matchPostOf(post)));
    expect(answers).toEqual(posts.map((post) => referenceIds(queries, post)));
    expect(answers).toEqual([
      ['q0', 'q2', 'q4'],
      ['q1', 'q2', 'q3', 'q5'],
      ['q3', 'q4', 'q5'],
      ['q3', 'q4'],
    ]);
  });
});
