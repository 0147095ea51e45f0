// The post lists' pages from the store (storePostPage) held to the reference evaluator (test/support/reference/
// lists.ts): on a generated corpus written through the change path and fed to a running store, for generated scopes
// (test/support/reference/scopes.ts) and each sort (engagement, recency, overperformance), the total, every page's
// posts and keys, and the walk from the first page by each page's cursor to the last, without repeats or gaps. By
// recency the store gives each page's candidates, which the caller orders (PostgreSQL's recencyPageOfIds, here the
// reference's order: the corpus's times are whole milliseconds, so the microsecond never breaks a tie).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostSort } from '@contract/insights';
import { storePostPage } from '@server/analytics/insights/posts';
import type { AnalyticsStore } from '@server/analytics/store';
import type { Cursor } from '@server/social/insights/cursor';
import { generatedCorpus, writeCorpus } from '@test/support/reference/corpus';
import { postListOrder, type RefListRow } from '@test/support/reference/lists';
import type { RefPost } from '@test/support/reference/query';
import { caseArb, correctionsOf, scopesOf } from '@test/support/reference/scopes';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { runningService } from '../analytics/dashboards.fixtures';

let server: TestServer;
let running: Awaited<ReturnType<typeof runningService>>;
let store: AnalyticsStore;
let posts: RefPost[];

beforeAll(async () => {
  server = await createTestServer();
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
