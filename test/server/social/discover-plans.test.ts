// Discover finds a page two ways: walking the sort's index (common matches) or finding every match and sorting
// (rare matches, after the walk ran out of its budget). Both must give the same pages; and a walk that runs out of
// budget falls back instead of failing.
import { sql, type SQL } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { after, pageQuery, type PageRow } from '@server/social/discover/queries';
import { searchPosts } from '@server/social/discover/search';
import type { Cursor } from '@server/social/discover/cursor';
import { parseQuery } from '@server/query/index';
import { resolveScope, scopeWhere } from '@server/social/scope';
import { DISCOVER_SORTS } from '@contract/discover';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { buildPosts, insertDiscoverCorpus } from '@test/support/discover.fixtures';

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer();
  await insertDiscoverCorpus(server, buildPosts());
});
afterAll(() => server.close());

const WHOLE = { from: '2026-02-28T00:00:00Z', to: '2026-03-03T00:00:00Z' };

function where(query: string, filters: object = WHOLE) {
  const parsed = parseQuery(query);
  if (!parsed.ok) throw new Error(query);
  return scopeWhere(resolveScope(parsed.ast, filters));
}

/** Every page's external ids, following the keyset, with one plan. */
async function pages(query: string, sort: (typeof DISCOVER_SORTS)[number], walk: boolean) {
  const keys: string[][] = [];
  let cursor: Cursor | null = null;
  for (;;) {
    const condition: SQL = cursor ? sql`${where(query)} AND ${after(sort, cursor)}` : where(query);
    const rows: PageRow[] = (await server.db.execute<PageRow>(pageQuery(condition, sort, 6, walk))).rows;
    keys.push(rows.slice(0, 6).map((row) => row.external_id as string));
    if (rows.length <= 6) return keys;
    const last = rows[5]!;
    cursor = {
      v: 1,
      s: sort,
      k: sort === 'recency' ? last.posted_key : last.engagement,
      id: Number(last.id),
      ...WHOLE,
      r: [WHOLE.from, WHOLE.to],
      h: '',
    };
  }
}

describe('the two ways to find a page', () => {
  it.each(
    DISCOVER_SORTS.flatMap((sort) =>
      ['coffee', 'tea NOT milk', '#latteart OR lang:ko', 'matcha'].map((query) => [sort, query] as const),
    ),
  )('agree, sorted by %s, for %s', async (sort, query) => {
    const walked = await pages(query, sort, true);
    expect(walked.flat().length).toBeGreaterThan(6);
    expect(await pages(query, sort, false)).toEqual(walked);
  });

  it('falls back to sorting every match when the walk runs out of budget', async () => {
    // The walk sleeps on its first row; the fallback's condition is the same, so the sleep moves into it: a budget
    // of one millisecond for the walk and a generous one for the rest.
    const slowWalk = sql`${where('coffee')} AND pg_sleep(0.01) IS NOT NULL`;
    const result = await searchPosts(server.db, {
      where: slowWalk,
      sort: 'recency',
      cursor: null,
      limit: 3,
      timeoutMs: 20_000,
      walkBudgetMs: 1,
    });
    const expected = (await server.db.execute<PageRow>(pageQuery(where('coffee'), 'recency', 3))).rows;
    expect(result.posts.map((post) => post.external_id)).toEqual(
      expected.slice(0, 3).map((row) => row.external_id),
    );
  });
});
