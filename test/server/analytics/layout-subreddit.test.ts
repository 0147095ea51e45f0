// Layout 14: a Reddit post's subreddit in the store (`subreddit:`). PostgreSQL computes it from posts.url as the rows
// are read (rows.ts, SUBREDDIT_SQL), the same as the query side's rule (server/query/subreddit.ts) for every address;
// and a store of layout 13, which holds no post's address, is brought to 14 where it stands: the column added, the
// Reddit posts fed through the change feed again, and then `subreddit:` finds them as a rebuilt store does.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyRound } from '@server/analytics/applier';
import { storeCurrency } from '@server/analytics/current';
import { LAYOUT_VERSION, layoutVersion, STORE_DATABASE } from '@server/analytics/layout';
import { LAYOUT_STEPS, migrateLayout, refeedPosts } from '@server/analytics/layout-steps';
import { candidateIds, compileStoreCandidates } from '@server/analytics/matching/candidates';
import { compileStoreQuery } from '@server/analytics/matching/compile';
import { readOutbox } from '@server/analytics/outbox';
import { StoreParams } from '@server/analytics/params';
import type { StorePosition } from '@server/analytics/position';
import { rebuildStore } from '@server/analytics/rebuild';
import { type AnalyticsStore, EmbeddedStore } from '@server/analytics/store';
import { parseQuery } from '@server/query/index';
import { subredditOf } from '@server/query/subreddit';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import { generateCorpus } from '@server/social/corpus/generate/load';
import { TOPICS } from '@server/social/corpus/generate/topics';
import { createTestServer, type TestServer } from '@test/support/server-harness';

const db = STORE_DATABASE;
const OWNER = '00000000-0000-4000-8000-00000000514b';
let server: TestServer;
let dataDir: string;
let store: AnalyticsStore;
let position: StorePosition;

/** Addresses of every kind the rule reads, each on a Reddit post and on an X post. */
const URLS = [
  'https://www.reddit.com/r/Android/comments/1a2b3c/new_phone/',
  'https://old.reddit.com/r/android/comments/1a2b3c/',
  'https://reddit.com/r/android',
  'http://np.reddit.com/r/Android?sort=top',
  'https://new.reddit.com/r/apple#top',
  'https://m.reddit.com/r/Apple/',
  'HTTPS://WWW.REDDIT.COM/R/ANDROID/',
  'https://www.reddit.com/r/ab/',
  'https://www.reddit.com/r/a/comments/1',
  'https://www.reddit.com/r/abcdefghijklmnopqrstuv/',
  'https://www.reddit.com/r/abcdefghijklmnopqrstu/',
  'https://www.reddit.com/r/android.json',
  'https://www.reddit.com/user/someone/comments/1/',
  'https://notreddit.com/r/android/',
  'https://reddit.com.evil.example/r/android/',
  'https://example.com/?next=https://www.reddit.com/r/android/',
  "https://www.reddit.com/r/Bobby_Tables/comments/9/'); DROP TABLE posts; --",
  'https://www.reddit.com/r/Ünicode/',
  '',
  null,
];

beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  await generateCorpus(server.pool, { seed: 11, posts: 600, end: Date.UTC(2025, 5, 1), batchSize: 300 });
  dataDir = mkdtempSync(join(tmpdir(), 'murmur-analytics-subreddit-'));
  store = await EmbeddedStore.open({ dataDir });
  const [reddit, x] = (await insertProfiles(server.db, [
    { platform: 'reddit', externalId: 'r-author', handle: 'someone', displayName: 'Someone' },
    { platform: 'x', externalId: 'x-author', handle: 'someone_x', displayName: 'Someone' },
  ])) as [number, number];
  const post = (platform: 'reddit' | 'x', url: string | null, i: number) => ({
    authorId: platform === 'reddit' ? reddit : x,
    platform,
    externalId: `${platform}-${i}`,
    text: `new phone ${i}`,
    language: 'en',
    postedAt: new Date(Date.UTC(2026, 0, 1, 0, i)),
    url,
  });
  await insertPosts(server.db, [
    ...URLS.map((url, i) => post('reddit', url, i)),
    ...URLS.map((url, i) => post('x', url, i)),
  ]);
  position = (await rebuildStore({ ...server, owner: OWNER }, store)).position;
});
afterAll(async () => {
  await store?.close();
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The ids of the store's posts that `query` matches, ascending. */
async function storeIds(query: string): Promise<number[]> {
  const parsed = parseQuery(query);
  if (!parsed.ok) throw new Error(query);
  const params = new StoreParams();
  const condition = compileStoreQuery(parsed.ast, params);
  const rows = await store.query<{ id: string }>(
    `SELECT toString(p.id) AS id FROM ${db}.posts p WHERE ${condition} ORDER BY p.id`,
    params.values,
  );
  return rows.map((row) => Number(row.id));
}

/**
 * The same from the query's candidate set (the token slices a dashboard reads instead of the range's posts), its own
 * nodes not tested again.
 */
async function candidateMatches(query: string): Promise<number[]> {
  const parsed = parseQuery(query);
  if (!parsed.ok) throw new Error(query);
  const params = new StoreParams();
  const set = compileStoreCandidates(parsed.ast, params);
  if (set === null) throw new Error(`${query} has no candidate set`);
  const condition = compileStoreQuery(parsed.ast, params, undefined, set.given);
  const rows = await store.query<{ id: string }>(
    `SELECT toString(p.id) AS id FROM ${db}.posts p WHERE p.id IN (${candidateIds(set, params)}) AND ${condition}
      ORDER BY p.id`,
    params.values,
  );
  return rows.map((row) => Number(row.id));
}

/** The ids of PostgreSQL's posts whose subreddit is `name` by the query side's rule, ascending. */
async function expectedIds(name: string): Promise<number[]> {
  const { rows } = await server.pool.query<{ id: string; platform: string; url: string | null }>(
    'SELECT id::text AS id, platform::text AS platform, url FROM posts ORDER BY posts.id',
  );
  return rows.filter((row) => subredditOf(row.platform, row.url) === name).map((row) => Number(row.id));
}

const QUERIES: Array<[string, string]> = [
  ['subreddit:android', 'android'],
  ['subreddit:r/Apple', 'apple'],
  ['subreddit:ab', 'ab'],
  ['subreddit:abcdefghijklmnopqrstu', 'abcdefghijklmnopqrstu'],
  ['subreddit:bobby_tables', 'bobby_tables'],
];

describe('layout 14: the subreddit', () => {
  it("is computed by PostgreSQL as the query side's rule reads every address", async () => {
    const { rows } = await server.pool.query<{ id: string; platform: string; url: string | null }>(
      'SELECT id::text AS id, platform::text AS platform, url FROM posts ORDER BY posts.id',
    );
    const held = await store.query<{ id: string; subreddit: string }>(
      `SELECT toString(id) AS id, subreddit FROM ${db}.posts ORDER BY toUInt64(id)`,
    );
    expect(held).toEqual(
      rows.map((row) => ({ id: row.id, subreddit: subredditOf(row.platform, row.url) ?? '' })),
    );
    // Not vacuous: Reddit posts of five subreddits, and X posts with the same addresses and none.
    const names = new Set(held.map((row) => row.subreddit));
    for (const name of ['', 'android', 'apple', 'ab', 'abcdefghijklmnopqrstu', 'bobby_tables'])
      expect(names).toContain(name);
  });

  it("of the generated corpus's Reddit posts is their topic's", async () => {
    const { rows } = await server.pool.query<{ id: string; url: string | null }>(
      `SELECT id::text AS id, url FROM posts WHERE platform = 'reddit' AND external_id NOT LIKE 'reddit-%'`,
    );
    expect(rows.length).toBeGreaterThan(10);
    const held = await store.query<{ subreddit: string }>(
      `SELECT subreddit FROM ${db}.posts WHERE id IN (${rows.map((row) => row.id).join(', ')})`,
    );
    const names = new Set(TOPICS.map((topic) => topic.subreddit.toLowerCase()));
    expect(held.length).toBe(rows.length);
    for (const { subreddit } of held) expect(names).toContain(subreddit);
    const android = await expectedIds('android');
    expect(android.length).toBeGreaterThan(0);
    expect(await storeIds('subreddit:Android')).toEqual(android);
  });

  it.each(QUERIES)('%s finds the Reddit posts of that subreddit', async (query, name) => {
    const expected = await expectedIds(name);
    expect(expected.length).toBeGreaterThan(0);
    expect(await storeIds(query)).toEqual(expected);
    expect(await candidateMatches(query)).toEqual(expected);
    // With other terms: the subreddit's slice drives, or joins an OR's slices.
    const phone = (await storeIds('phone')).filter((id) => expected.includes(id));
    expect(await candidateMatches(`${query} phone`)).toEqual(phone);
    expect(await candidateMatches(`${query} OR #nothing_here`)).toEqual(expected);
  });

  it('a store of layout 13 is brought to 14 in place: the column, then the Reddit posts fed again', async () => {
    expect(LAYOUT_VERSION).toBe(14);
    // The store as layout 13 had it: no subreddit column, no subreddit tokens.
    await store.exec(`ALTER TABLE ${db}.posts DROP COLUMN subreddit`);
    await store.exec(
      `DELETE FROM ${db}.tok WHERE tok IN (${QUERIES.map(([, name]) => `sipHash64('r', '${name}')`).join(', ')})`,
    );
    await store.exec(`TRUNCATE TABLE ${db}.layout`);
    await store.exec(`INSERT INTO ${db}.layout (version) VALUES (13)`);
    expect(await storeIds('subreddit:android')).toEqual([]);

    // Without a way to feed posts again, the step is not taken: the store is left to a rebuild.
    expect(await migrateLayout(store, db)).toEqual([]);
    expect(await layoutVersion(store, db)).toBe(13);
    expect(LAYOUT_STEPS.find((step) => step.version === 14)?.refeed).toBe(`platform = 'reddit'`);

    // The service's path (storeCurrency): the step, its refeed, the layout checked, the position reconciled.
    const lines: string[] = [];
    const deps = { db: server.db, pool: server.pool, store, owner: OWNER };
    expect(await storeCurrency(deps, null, (line) => lines.push(line))).toEqual({ position });
    expect(await layoutVersion(store, db)).toBe(14);
    const { rows: reddit } = await server.pool.query<{ id: string }>(
      `SELECT id::text AS id FROM posts WHERE platform = 'reddit' ORDER BY posts.id`,
    );
    expect(lines).toEqual([
      `[analytics] ${reddit.length} posts fed again for the new layout (platform = 'reddit').`,
      "[analytics] The store's layout was brought forward to 14 in place.",
    ]);
    const batches = await readOutbox(server.db, position.seq, 100);
    expect(batches.flatMap((batch) => batch.postIds)).toEqual(reddit.map((row) => Number(row.id)));
    // Until the batches are applied, the posts already there have no subreddit (the column's default).
    expect(await storeIds('subreddit:android')).toEqual([]);

    for (let next = await applyRound(deps, position); next; next = await applyRound(deps, position))
      position = next;
    for (const [query, name] of QUERIES) expect(await storeIds(query)).toEqual(await expectedIds(name));

    // Fed again in smaller batches: every Reddit post once, in id order, page after page.
    expect(await refeedPosts(server.pool, `platform = 'reddit'`, 7)).toBe(reddit.length);
    const pages = await readOutbox(server.db, position.seq, 100);
    expect(pages.length).toBe(Math.ceil(reddit.length / 7));
    expect(pages.flatMap((batch) => batch.postIds)).toEqual(reddit.map((row) => Number(row.id)));
    for (let next = await applyRound(deps, position); next; next = await applyRound(deps, position))
      position = next;
    expect(await storeIds('subreddit:android')).toEqual(await expectedIds('android'));
    const { rows: all } = await server.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM posts');
    const [count] = await store.query<{ n: string }>(`SELECT count() AS n FROM ${db}.posts`);
    expect(Number(count!.n)).toBe(all[0]!.n);
  });
});
