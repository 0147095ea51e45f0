// The exports' one CSV writer (contract/csv.ts), through the SPA's chart tables (src/features/insight/csv.ts)
// and directly: the file's shape byte for byte, RFC 4180 quoting, and formula neutralising, whitespace before the
// formula and full-width formula characters included.
import { describe, expect, it } from 'vitest';
import { csvComments, csvRecords } from '@contract/csv';
import { toCsv } from '@/features/insight/csv';

const meta = {
  title: 'overview – top hashtags',
  timeZone: 'Europe/Paris',
  range: { from: '2026-10-01T00:00:00.000Z', to: '2026-11-01T00:00:00.000Z' },
  counted: 'Counted: 12 posts\r\nin the range',
};

/** Text a spreadsheet would take for a formula, and the field the file must hold for it. */
const FORMULAS: Array<[string, string]> = [
  ['=1+1', "'=1+1"],
  ['+1', "'+1"],
  ['-1', "'-1"],
  ['@SUM(A1)', "'@SUM(A1)"],
  ['\t=1', "'\t=1"],
  ['\r=1', `"'\r=1"`],
  [' =1', "' =1"],
  ['   +1', "'   +1"],
  ['\n=1', `"'\n=1"`],
  ['\r\n@a', `"'\r\n@a"`],
  ['\u00a0=1', "'\u00a0=1"],
  ['\u3000-1', "'\u3000-1"],
  ['\uFF1D1+1', "'\uFF1D1+1"],
  ['\uFF0B1', "'\uFF0B1"],
  ['\uFF0D1', "'\uFF0D1"],
  ['\uFF20a', "'\uFF20a"],
  [' \uFF1D1', "' \uFF1D1"],
  ['=HYPERLINK("http://evil.test","x")', `"'=HYPERLINK(""http://evil.test"",""x"")"`],
];

describe("the chart tables' CSV", () => {
  it('writes the comment lines, the header and the records, CRLF after each', async () => {
    const csv = await toCsv(
      meta,
      [
        { label: 'Hashtag', value: (row: { tag: string; posts: number | null; up: boolean }) => row.tag },
        { label: 'Posts, all', value: (row) => row.posts },
        { label: 'Rising', value: (row) => row.up },
      ],
      [
        { tag: '#murmur', posts: 12, up: true },
        { tag: 'say "hi"', posts: null, up: false },
        { tag: 'two\nlines', posts: -1.5, up: false },
      ],
    );
    expect(csv).toBe(
      '# Murmur export: overview – top hashtags\r\n' +
        '# Workspace time zone: Europe/Paris\r\n' +
        '# Range (UTC, from inclusive, to exclusive): 2026-10-01T00:00:00.000Z to 2026-11-01T00:00:00.000Z\r\n' +
        '# Counted: Counted: 12 posts in the range\r\n' +
        'Hashtag,"Posts, all",Rising\r\n' +
        '#murmur,12,true\r\n' +
        '"say ""hi""",,false\r\n' +
        '"two\nlines",-1.5,false\r\n',
    );
  });

  it.each(FORMULAS)('neutralises %j', async (text, field) => {
    const csv = await toCsv(meta, [{ label: 'Text', value: (row: string) => row }], [text]);
    expect(csv.split('Text\r\n')[1]).toBe(`${field}\r\n`);
  });
});

describe('the CSV writer', () => {
  it('writes fields as documented', () => {
    const field = (value: string | number | boolean | null) => csvRecords([[value]]).slice(0, -2);
    expect(field(null)).toBe('');
    expect(field('')).toBe('');
    expect(field(-1.5)).toBe('-1.5');
    expect(field(0)).toBe('0');
    expect(field(true)).toBe('true');
    expect(field(false)).toBe('false');
    expect(field('plain')).toBe('plain');
    expect(field(' plain')).toBe(' plain');
    expect(field('a=b')).toBe('a=b');
    expect(field('1-2')).toBe('1-2');
    expect(field('a,b')).toBe('"a,b"');
    expect(field('say "hi"')).toBe('"say ""hi"""');
    expect(field('two\nlines')).toBe('"two\nlines"');
    expect(field('two\rlines')).toBe('"two\rlines"');
    for (const [text, expected] of FORMULAS) expect(field(text), JSON.stringify(text)).toBe(expected);
  });

  it('writes records and comment lines, each ending in CRLF', () => {
    expect(csvRecords([])).toBe('');
    expect(
      csvRecords([
        ['a', 1, null],
        ['b', 2, true],
      ]),
    ).toBe('a,1,\r\nb,2,true\r\n');
    expect(csvComments(['Murmur export: posts', 'Query: a\r\nb\nc'])).toBe(
      '# Murmur export: posts\r\n# Query: a b c\r\n',
    );
  });
});
