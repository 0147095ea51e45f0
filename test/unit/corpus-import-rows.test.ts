// Import rows without a database: validation reasons, CSV coercion, dates, derived fields, line-aware readers.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { arrayLiteral, copyLine } from '@server/social/corpus/copy';
import { coerceCsvRecord, normaliseRow } from '@server/social/corpus/import/normalise';
import { explainSentiment, sentimentRated } from '@server/social/corpus/sentiment-explain';
import { scoreSentiment } from '@server/social/corpus/sentiment-model';
import { FileFormatError, readCsv, readNdjson, type SourceRecord } from '@server/social/corpus/import/read';
import { parseInstant, validateRow } from '@server/social/corpus/import/schema';
import { registrableDomain } from '@contract/domains';
import { extractDomains, extractHashtags, extractMentions } from '@server/social/corpus/text';

const row = {
  platform: 'x',
  external_id: '1',
  author_external_id: 'a1',
  author_handle: '@Hana',
  text: 'Matcha tiramisu, take two #MatchaTiramisu @Nova https://news.bbc.co.uk/x',
  posted_at: '2025-05-01T09:30:00+09:00',
};

const reasons = (value: unknown) => {
  const result = validateRow(value);
  return result.ok ? [] : result.reasons;
};

async function collect(records: AsyncGenerator<SourceRecord>): Promise<SourceRecord[]> {
  const out: SourceRecord[] = [];
  for await (const record of records) out.push(record);
  return out;
}

const streamOf = (...chunks: (string | Buffer)[]) =>
  Readable.from(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : c)));

describe('import row validation', () => {
  it('accepts a minimal row', () => {
    expect(validateRow(row)).toMatchObject({ ok: true });
  });

  it('names each problem with its field', () => {
    expect(reasons({ ...row, external_id: undefined })).toEqual(['external_id: required']);
    expect(reasons({ ...row, likes: '12' })).toEqual(['likes: expected number, got "12"']);
    expect(reasons({ ...row, likes: -1 })).toEqual(['likes: must be ≥ 0']);
    expect(reasons({ ...row, likes: 1.5 })).toEqual(['likes: expected a whole number, got number 1.5']);
    expect(reasons({ ...row, platform: 'myspace' })).toEqual([
      'platform: must be one of x, instagram, tiktok, youtube, facebook, reddit, mastodon, bluesky, rss, hackernews (got "myspace")',
    ]);
    expect(reasons({ ...row, colour: 'red', size: 1 })).toEqual(['unknown fields "colour", "size"']);
    expect(reasons({ ...row, author_country: 'Japan' })[0]).toMatch(/^author_country: must be an ISO 3166-1/);
    expect(reasons({ ...row, text: 'a\u0000b' })[0]).toMatch(/^text: contains a NUL/);
    expect(reasons({ ...row, text: 'broken \ud83d' })[0]).toMatch(
      /^text: contains an unpaired UTF-16 surrogate/,
    );
    expect(reasons([1, 2])).toEqual(['expected a JSON object, got an array']);
  });

  it('requires an ISO 8601 date-time with offset that exists', () => {
    for (const bad of [
      'yesterday',
      '2025-05-01',
      '2025-05-01T09:30:00',
      '2025-02-30T10:00:00Z',
      '2025-05-01T24:00Z',
    ]) {
      expect(reasons({ ...row, posted_at: bad })[0], bad).toMatch(
        /^posted_at: must be an ISO 8601 date-time/,
      );
    }
    expect(parseInstant('2025-05-01T09:30:00+09:00')).toBe(Date.UTC(2025, 4, 1, 0, 30));
    expect(parseInstant('2025-05-01T09:30:00+0900')).toBe(Date.UTC(2025, 4, 1, 0, 30));
    expect(parseInstant('2025-05-01T09:30+09')).toBe(Date.UTC(2025, 4, 1, 0, 30));
    expect(parseInstant('2025-05-01 00:30:00.250Z')).toBe(Date.UTC(2025, 4, 1, 0, 30, 0, 250));
    expect(parseInstant('2024-02-29T12:00:00-05:00')).toBe(Date.UTC(2024, 1, 29, 17));
    // Years before 100 are those years, not 1900–1999 (Date.UTC's reading of two-digit years).
    expect(new Date(parseInstant('0025-05-01T00:00:00Z')!).toISOString()).toBe('0025-05-01T00:00:00.000Z');
    expect(parseInstant('0004-02-29T00:00:00Z')).toBeDefined(); // a leap year (1904 is too, 1900 is not)
    expect(parseInstant('0100-02-29T00:00:00Z')).toBeUndefined();
    expect(parseInstant('0000-06-01T00:00:00Z')).toBeUndefined(); // PostgreSQL has no year 0
    // Every day of every month of a common and a leap year, and the day after each month's last.
    for (const year of [2025, 2024, 1900, 2000, 24, 25]) {
      for (let month = 1; month <= 12; month++) {
        const days = new Date(Date.UTC(2001, month, 0)).getUTCDate() + (month === 2 && isLeap(year) ? 1 : 0);
        const at = (day: number) =>
          `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}T01:35:31.602Z`;
        for (let day = 1; day <= days; day++) {
          expect(new Date(parseInstant(at(day))!).toISOString(), at(day)).toBe(at(day));
        }
        expect(parseInstant(at(days + 1)), at(days + 1)).toBeUndefined();
      }
    }
  });

  it('derives hashtags, mentions, domains, language and sentiment when absent', () => {
    const result = validateRow({ ...row, author_language: 'en-GB', author_country: 'gb' });
    if (!result.ok) throw new Error(result.reasons.join());
    const stored = normaliseRow(result.row, 3);
    expect(stored).toMatchObject({
      line: 3,
      hashtags: ['matchatiramisu'],
      mentions: ['nova'],
      domains: ['bbc.co.uk'],
      language: 'en',
      postedAt: '2025-05-01T00:30:00.000Z',
      author: { handle: 'Hana', country: 'GB', language: 'en' },
    });
    const given = validateRow({
      ...row,
      hashtags: ['#NovaX', 'novax'],
      domains: ['https://m.youtube.com/watch'],
    });
    if (!given.ok) throw new Error(given.reasons.join());
    expect(normaliseRow(given.row, 1)).toMatchObject({ hashtags: ['novax'], domains: ['youtube.com'] });
    const korean = validateRow({ ...row, text: '새 폰 정말 최고예요!' });
    if (!korean.ok) throw new Error(korean.reasons.join());
    expect(normaliseRow(korean.row, 1)).toMatchObject({ language: 'ko', sentimentLabel: 'positive' });
  });

  it("records whether the sentiment is rated, by the scorer's count and label (sentimentRated)", () => {
    for (const text of [
      '',
      '@nova',
      'ok',
      'Terrible!',
      'The new phone arrived today and the screen is bright',
    ]) {
      const result = validateRow({ ...row, text: text || ' ' });
      if (!result.ok) continue;
      const stored = normaliseRow(result.row, 1);
      const { tokens, label } = scoreSentiment(stored.text, stored.language);
      expect(stored.sentimentRated, text).toBe(sentimentRated(tokens, label));
      expect(stored.sentimentRated, text).toBe(explainSentiment(stored.text, stored.language).rated);
    }
    const empty = validateRow({ ...row, text: '@nova' });
    if (!empty.ok) throw new Error(empty.reasons.join());
    expect(normaliseRow(empty.row, 1).sentimentRated).toBe(false);
  });
});

describe('text extraction', () => {
  it('finds hashtags and mentions the way the posts table stores them', () => {
    expect(extractHashtags('Go #NovaX! #노바X #ノバX and #1 not#this, (#Cup_Final)')).toEqual([
      'novax',
      '노바x',
      'ノバx',
      'cup_final',
    ]);
    expect(extractMentions('@Nova_Official thanks. mail me@example.com, RT @cloudnest:')).toEqual([
      'nova_official',
      'cloudnest',
    ]);
  });

  it('reduces hosts to registrable domains', () => {
    expect(registrableDomain('news.bbc.co.uk')).toBe('bbc.co.uk');
    expect(registrableDomain('www3.nhk.or.jp')).toBe('nhk.or.jp');
    expect(registrableDomain('m.blog.naver.com')).toBe('naver.com');
    expect(registrableDomain('status.cloudnest.io')).toBe('cloudnest.io');
    expect(registrableDomain('user.github.io')).toBe('user.github.io');
    expect(extractDomains('see https://www.YouTube.com/watch?v=1, and www.elpais.com/x.')).toEqual([
      'youtube.com',
      'elpais.com',
    ]);
  });
});

describe('CSV rows', () => {
  it('coerces cells to the types a JSON row has', () => {
    expect(
      coerceCsvRecord({
        likes: '12',
        views: '',
        author_verified: 'Yes',
        hashtags: 'a, b c',
        text: ' hi ',
        kind: 'reply',
      }),
    ).toEqual({ likes: 12, author_verified: true, hashtags: ['a', 'b', 'c'], text: ' hi ', kind: 'reply' });
    expect(reasons({ ...row, ...coerceCsvRecord({ likes: 'lots' }) })).toEqual([
      'likes: expected number, got "lots"',
    ]);
  });

  it('reads an empty text cell as the empty text of a repost without comment, other empty cells as absent', () => {
    expect(coerceCsvRecord({ text: '', language: '', kind: 'repost' })).toEqual({ text: '', kind: 'repost' });
    expect(reasons({ ...row, ...coerceCsvRecord({ text: '', kind: 'repost' }) })).toEqual([]);
  });
});

describe('line-aware readers', () => {
  it('reads NDJSON lines with their numbers: BOM, CRLF, blank lines, invalid JSON and invalid UTF-8', async () => {
    const records = await collect(
      readNdjson(
        streamOf(
          '\ufeff{"a":1}\r\n\n{"b":',
          '2}\n{oops\n',
          Buffer.from([0x7b, 0x22, 0x63, 0x61, 0x66, 0xe9, 0x22, 0x7d, 0x0a]),
          '[3]',
        ),
      ),
    );
    expect(records.map((r) => [r.line, r.value ?? r.error])).toEqual([
      [1, { a: 1 }],
      [3, { b: 2 }],
      [4, expect.stringMatching(/^invalid JSON/)],
      [5, 'not valid UTF-8: byte 0xE9 at byte 6 (the file must be UTF-8 encoded)'],
      [6, [3]],
    ]);
  });

  it('reads CSV records with the line they start on, across quoted newlines', async () => {
    const csv =
      'platform,external_id,author_external_id,author_handle,text,posted_at\n' +
      'x,1,a,h,"two\nlines",2025-05-01T00:00:00Z\n' +
      'x,2,a,h,short\n';
    const records = await collect(
      readCsv(streamOf(csv, Buffer.from('x,3,a,h,caf\xe9,2025-05-01T00:00:00Z\n', 'latin1'))),
    );
    expect(records.map((r) => [r.line, r.error ?? (r.value as { text: string }).text])).toEqual([
      [2, 'two\nlines'],
      [4, expect.stringMatching(/^malformed CSV/)],
      [5, expect.stringMatching(/^not valid UTF-8: byte 0xE9/)],
    ]);
  });

  it('refuses a CSV header with unknown or missing columns', async () => {
    await expect(collect(readCsv(streamOf('platform,colour\nx,red\n')))).rejects.toThrow(
      /Unknown CSV column "colour"/,
    );
    const missing = collect(readCsv(streamOf('platform,external_id\nx,1\n')));
    await expect(missing).rejects.toThrow(FileFormatError);
  });
});

describe('COPY text format', () => {
  it('escapes backslashes, tabs and newlines, writes NULL and quotes array elements', () => {
    expect(copyLine(['a\tb', 'line\nnext\\', null, 3, true])).toBe('a\\tb\tline\\nnext\\\\\t\\N\t3\ttrue\n');
    expect(arrayLiteral([])).toBe('{}');
    expect(arrayLiteral(['a b', 'q"x', 'back\\slash'])).toBe('{"a b","q\\"x","back\\\\slash"}');
  });
});

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
