// Per-author rows appended rather than repacked (migration 0023): a batch whose posts of an author are all later than
// the author's rows end is appended to them (the author's other rows untouched), anything else repacks the author
// (every row of it rewritten), and either way the rows equal a recount of the posts.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeBatch } from '@server/social/corpus/import/write';
import type { ImportRow } from '@server/social/corpus/import/normalise';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { rollupDifferences } from '@test/support/rollups';

let server: TestServer;
const NONE = { hours: 0, days: 0, tags: 0, authors: 0, empty: 0 };

beforeAll(async () => {
  server = await createTestServer();
});
afterAll(() => server.close());

const post = (author: string, id: string, postedAt: string, likes: number, language = 'en'): ImportRow => ({
  line: 1,
  platform: 'x',
  externalId: id,
  author: { externalId: author, handle: author, displayName: author, followers: 10 },
  text: `post ${id}`,
  language,
  postedAt,
  likes,
  hashtags: [],
  mentions: [],
  domains: [],
  sentiment: 0,
  sentimentLabel: 'neutral',
});

async function write(rows: ImportRow[]) {
  const client = await server.pool.connect();
  try {
    await writeBatch(client, rows);
  } finally {
    client.release();
  }
}

/** Each of the author's rows (by language): the transaction that last wrote it, its times and running sums. */
async function rowsOf(author: string) {
  const { rows } = await server.db.execute<{
    language: string;
    xmin: string;
    times: string[];
    running: string[];
  }>(sql`
    SELECT t.language, t.xmin::text AS xmin, t.running::text[] AS running,
      ARRAY(SELECT to_char(x AT TIME ZONE 'UTC', 'DD HH24:MI') FROM unnest(t.posted_at) x) AS times
    FROM author_post_times t JOIN profiles p ON p.id = t.author_id
    WHERE p.external_id = ${author} ORDER BY t.language`);
  return Object.fromEntries(rows.map((r) => [r.language, r]));
}

const everyAuthor = async () => ({
  ann: await rowsOf('ann'),
  bob: await rowsOf('bob'),
  cat: await rowsOf('cat'),
  dan: await rowsOf('dan'),
});

describe('per-author rows', () => {
  it('are appended to when a batch only adds later posts, and repacked otherwise; both exact', async () => {
    await write([
      post('ann', 'a1', '2026-11-01T10:00:00Z', 1),
      post('ann', 'a2', '2026-11-02T10:00:00Z', 2),
      post('ann', 'a3', '2026-11-01T12:00:00Z', 4, 'ja'),
      post('bob', 'b1', '2026-11-01T10:00:00Z', 1),
      post('bob', 'b2', '2026-11-03T10:00:00Z', 2),
      post('bob', 'b3', '2026-11-01T12:00:00Z', 4, 'ja'),
      post('cat', 'c1', '2026-11-05T10:00:00Z', 3),
      post('dan', 'd1', '2026-11-05T10:00:00Z', 3),
    ]);
    expect(await rollupDifferences(server.db)).toEqual(NONE);
    const { ann, bob, cat, dan } = await everyAuthor();

    await write([
      // ann: two later posts in English (out of order in the batch, one of them at the same instant as the other
      // with less engagement): appended; her Japanese row is not written.
      post('ann', 'a5', '2026-11-04T10:00:00Z', 5),
      post('ann', 'a4', '2026-11-04T10:00:00Z', 3),
      // bob: a post before his last: repacked, his Japanese row rewritten too.
      post('bob', 'b4', '2026-11-02T10:00:00Z', 8),
      // cat: a post at the instant of her last (not later): repacked.
      post('cat', 'c2', '2026-11-05T10:00:00Z', 1),
      // dan: a later post in a language he had no row for: repacked (a row added; sole changes).
      post('dan', 'd2', '2026-11-06T10:00:00Z', 2, 'es'),
    ]);
    expect(await rollupDifferences(server.db)).toEqual(NONE);
    const { ann: ann2, bob: bob2, cat: cat2, dan: dan2 } = await everyAuthor();

    expect(ann2.en).toMatchObject({
      times: ['01 10:00', '02 10:00', '04 10:00', '04 10:00'],
      running: ['0', '1', '3', '6', '11'],
    });
    expect(ann2.en!.xmin).not.toBe(ann.en!.xmin);
    expect(ann2.ja!.xmin).toBe(ann.ja!.xmin);
    expect(bob2.en).toMatchObject({
      times: ['01 10:00', '02 10:00', '03 10:00'],
      running: ['0', '1', '9', '11'],
    });
    expect(bob2.ja!.xmin).not.toBe(bob.ja!.xmin);
    expect(cat2.en).toMatchObject({ times: ['05 10:00', '05 10:00'], running: ['0', '1', '4'] });
    expect(cat2.en!.xmin).not.toBe(cat.en!.xmin);
    expect(Object.keys(dan2)).toEqual(['en', 'es']);
    expect(dan2.en!.xmin).not.toBe(dan.en!.xmin);
  });

  it('repack an author whose post the batch changes, even when the rest is later', async () => {
    const before = await rowsOf('ann');
    await write([
      post('ann', 'a6', '2026-11-09T10:00:00Z', 1),
      // a1's likes change: a post removed and added again (the change path's corpus_removed).
      post('ann', 'a1', '2026-11-01T10:00:00Z', 10),
    ]);
    expect(await rollupDifferences(server.db)).toEqual(NONE);
    const after = await rowsOf('ann');
    expect(after.ja!.xmin).not.toBe(before.ja!.xmin);
    expect(after.en).toMatchObject({
      times: ['01 10:00', '02 10:00', '04 10:00', '04 10:00', '09 10:00'],
      running: ['0', '10', '12', '15', '20', '21'],
    });
  });
});
