// The post lists' pages from the store (storePostPage) held to the reference evaluator (test/support/reference/
// lists.ts): on a generated corpus written through the change path and fed to a running store, for generated scopes
// (test/support/reference/scopes.ts) and each sort (engagement, recency, overperformance), the total, every page's
// posts and keys, and the walk from the first page by each page's cursor to the last, without repeats or gaps. By
// recency the store gives each page's candidates, which the caller orders (postList looks them up in PostgreSQL; here
// the reference's order: the corpus's times are whole milliseconds, so the microsecond never breaks a tie). Then what
// the reference cannot say: an overperformance key printed as PostgreSQL prints a float8, and the recency order of
// posts sharing a millisecond, which the store keeps whole, walked through postList.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostSort } from '@contract/insights';
import { float8Text, storePostPage } from '@server/analytics/figures/posts';
import type { AnalyticsStore } from '@server/analytics/store';
import { insertPosts } from '@server/social/corpus/changes';
import type { Cursor } from '@server/social/insights/cursor';
import { postList } from '@server/social/insights/posts';
import { generatedCorpus, writeCorpus } from '@test/support/reference/corpus';
import { postListOrder, type RefListRow } from '@test/support/reference/lists';
import type { RefPost } from '@test/support/reference/query';
import { caseArb, correctionsOf, scopesOf } from '@test/support/reference/scopes';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { contextOf, runningService } from '../analytics/dashboards.fixtures';

let server: TestServer;
let running: Awaited<ReturnType<typeof runningService>>;
let store: AnalyticsStore;
let posts: RefPost[];

beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  posts = await writeCorpus(server, generatedCorpus(5260, 400));
  running = await runningService(server, 'posts-property');
  store = running.service.store!;
}, 120_000);
afterAll(async () => {
  await running?.close();
  await server?.close();
});

/** A recency key as PostgreSQL prints posted_at (to the microsecond; the corpus's are whole milliseconds). */
const recencyKey = (at: number) => `${new Date(at).toISOString().slice(0, 23)}000Z`;

/** A page's row as the reference has it: the id and the key (a score read back from its text). */
const asRow = (sort: PostSort, row: { id: number; k: string }): RefListRow => ({
  id: row.id,
  key: sort === 'recency' ? Date.parse(row.k) : Number(row.k),
});

/** The page from the store: its rows, or by recency its candidates in the reference's order after the cursor. */
async function pageOf(
  c: Awaited<ReturnType<typeof scopesOf>>,
  sort: PostSort,
  limit: number,
  cursor: Cursor | null,
  whole: RefListRow[],
) {
  const got = await storePostPage(store, c, sort, limit, cursor);
  if ('page' in got)
    return {
      total: got.total,
      page: got.page.map((row) => asRow(sort, row)),
      texts: got.page.map((row) => row.k),
    };
  // Every candidate is a matching post; the page is the first limit + 1 of them after the cursor.
  const byId = new Map(whole.map((row) => [row.id, row]));
  expect(got.candidates.filter((id) => !byId.has(id))).toEqual([]);
  const after = (row: RefListRow) =>
    !cursor ||
    row.key < Date.parse(cursor.key) ||
    (row.key === Date.parse(cursor.key) && row.id < cursor.ties[0]!);
  const page = got.candidates
    .map((id) => byId.get(id)!)
    .filter(after)
    .sort((a, b) => b.key - a.key || b.id - a.id)
    .slice(0, limit + 1);
  return { total: got.total, page, texts: page.map((row) => recencyKey(row.key)) };
}

describe("the store's post lists equal the reference's, page by page", () => {
  it.each(['engagement', 'recency', 'overperformance'] as const)(
    'by %s: the total, each page and the walk by cursors to the end',
    async (sort) => {
      const corrections = correctionsOf(posts);
      let walked = 0;
      await fc.assert(
        fc.asyncProperty(caseArb(posts), fc.integer({ min: 1, max: 12 }), async (c, asked) => {
          const scopes = await scopesOf(server, c, corrections);
          const whole = postListOrder(posts, scopes.scope, sort);
          // At most about 25 pages a walk.
          const limit = Math.max(asked, Math.ceil(whole.length / 25));
          const seen: number[] = [];
          let cursor: Cursor | null = null;
          for (let pages = 0; ; pages += 1) {
            const offset = pages * limit;
            const { total, page, texts } = await pageOf(scopes, sort, limit, cursor, whole);
            expect({ query: c.query, pages, total }).toEqual({ query: c.query, pages, total: whole.length });
            expect({ query: c.query, pages, page }).toEqual({
              query: c.query,
              pages,
              page: whole.slice(offset, offset + limit + 1),
            });
            seen.push(...page.slice(0, limit).map((row) => row.id));
            if (page.length <= limit) break;
            const last = page[limit - 1]!;
            cursor = { key: texts[limit - 1]!, ties: [last.id], from: '', to: '' };
          }
          if (whole.length > limit) walked += 1;
          // The walk: every post of the list once, in the list's order.
          expect(seen).toEqual(whole.map((row) => row.id));
        }),
        { seed: 5261, numRuns: 60, endOnFailure: true },
      );
      // Not vacuous: most scopes' lists take more than one page.
      expect(walked).toBeGreaterThan(20);
    },
    120_000,
  );
});

describe('the post lists beyond the reference', () => {
  it('print an overperformance key as PostgreSQL prints a float8', async () => {
    // Edges of the fixed and exponent notations, and numbers of every magnitude (a fixed sequence).
    const values = [0, 1, 0.5, 1 / 3, 2 / 3, 0.1 + 0.2, 100, 1e-4, 1.5e-4, 9.99e-5, 1e-5, 1.2345e-7];
    values.push(
      1e14,
      99999999999999.9,
      123456789012345.6,
      1e15,
      1234567890123456,
      1e16,
      1e21,
      1e22,
      1e23,
      1e100,
    );
    values.push(22447067499160768, 2 ** 60, 2 ** 52 + 0.5, 2 ** 51 + 0.25, 2 ** 53 + 4, 2 ** 52 + 1.5);
    values.push(5e-324, 2.2250738585072014e-308, Number.MAX_VALUE, 2 ** 53, 2 ** 53 + 2);
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 2_000; i++) values.push(next() * 10 ** Math.floor(next() * 44 - 22));
    for (let i = 0; i < 200; i++) values.push(Math.floor(next() * 1000) / Math.floor(1 + next() * 1000));
    const { rows } = await server.pool.query<{ t: string }>(
      'SELECT v::text AS t FROM unnest($1::float8[]) WITH ORDINALITY u (v, n) ORDER BY n',
      [values.map(String)],
    );
    expect(values.map(float8Text)).toEqual(rows.map((row) => row.t));
  });

  /**
   * Posts of the word "microsecond" in three milliseconds: nine in one whose microseconds fall as their ids rise (the
   * lowest id is the newest, where the store alone would list it last), four at one instant (by id), and five whose
   * microseconds repeat and interleave. Offsets in ms from the first millisecond and microseconds within it, in the
   * order of their ids.
   */
  const MICROSECONDS: Array<[number, number]> = [
    ...Array.from({ length: 9 }, (_, i): [number, number] => [0, (8 - i) * 100]),
    ...Array.from({ length: 4 }, (): [number, number] => [-1, 0]),
    [-2, 999],
    [-2, 500],
    [-2, 999],
    [-2, 1],
    [-2, 500],
  ];

  it('lists posts of one millisecond by recency to the microsecond, pages cut inside it', async () => {
    const { rows: authors } = await server.pool.query<{ id: string }>(
      'SELECT id FROM profiles ORDER BY id LIMIT 3',
    );
    const at = Date.UTC(2026, 9, 20, 12, 0, 0, 500);
    const ids = await insertPosts(
      server.db,
      MICROSECONDS.map(([ms], i) => ({
        platform: 'x' as const,
        externalId: `microsecond${i}`,
        authorId: Number(authors[i % authors.length]!.id),
        text: `microsecond tick ${i}`,
        language: 'en',
        postedAt: new Date(at + ms),
        kind: 'original' as const,
        media: 'text' as const,
        likes: i % 3,
        comments: i % 2,
        shares: 0,
        views: null,
        hashtags: [],
        mentions: [],
        domains: [],
        sentiment: 0,
        sentimentLabel: 'neutral' as const,
      })),
    );
    // The microseconds through the change path (a Date holds milliseconds only).
    const shift = ids
      .map((id, i) => `WHEN ${id} THEN interval '${MICROSECONDS[i]![1]} microseconds'`)
      .join(' ');
    await server.pool.query('SELECT corpus_update_posts($1, $2)', [
      `id = ANY ('{${ids.join(',')}}'::bigint[])`,
      `posted_at = posted_at + CASE id ${shift} END`,
    ]);
    // The store fed those writes before the pages are read (a read does not wait for it here).
    await running.service.catchUp(60_000);
    const { rows: expected } = await server.pool.query<{ id: string }>(
      `SELECT id FROM posts WHERE id = ANY ($1::bigint[]) ORDER BY posted_at DESC, id DESC`,
      [ids],
    );
    const context = await contextOf(server, {
      name: 'microsecond',
      zone: 'UTC',
      range: ['2026-10-01T00:00:00Z', '2026-10-31T00:00:00Z'],
      query: 'microsecond',
    });
    // Pages of 4 cut inside each millisecond; each page read with its own context, as each request resolves one.
    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await postList(
        server.db,
        { ...context },
        { sort: 'recency', limit: 4, cursor },
        running.service,
      );
      expect(page.total).toBe(MICROSECONDS.length);
      seen.push(...page.posts.map((post) => Number(post.id)));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(expected.map((row) => Number(row.id)));
  });
});
