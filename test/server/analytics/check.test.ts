// corpus:check's store half (server/analytics/check.ts): the store changed behind PostgreSQL's back (a post's
// engagement alone, a post deleted, a profile's followers; a post's tag lost, doubled or made up) is found in words,
// month by month and id by id, tag by tag and post by post; the repair feeds those ids through the change feed again,
// and the check is then clean.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkStore, describeStoreCheck, differingIds, refeedStore } from '@server/analytics/check';
import { STORE_DATABASE } from '@server/analytics/layout';
import type { AnalyticsService } from '@server/analytics/service';
import { generateCorpus } from '@server/social/corpus/generate/load';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam } from '@test/support/workspaces.fixtures';
import { runningService } from './dashboards.fixtures';

let server: TestServer;
let running: Awaited<ReturnType<typeof runningService>>;
let service: AnalyticsService;

beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  await generateCorpus(server.pool, { seed: 52, posts: 800, end: Date.UTC(2026, 10, 8), batchSize: 400 });
  running = await runningService(server, 'check');
  service = running.service;
}, 240_000);
afterAll(async () => {
  await running?.close();
  await server?.close();
});

/** A statement on the store behind PostgreSQL's back (what a bypass, a restore or a fault leaves). */
async function behindTheBack(statement: string) {
  await service.reading()!.store.exec(`${statement} SETTINGS mutations_sync = 2`);
}

describe('corpus:check on the analytics store', () => {
  it('finds a post whose engagement alone differs, a post gone, a subreddit lost and a profile changed; the repair makes it equal', async () => {
    const clean = await checkStore(server.pool, service);
    expect(clean.state).toBe('checked');
    expect(describeStoreCheck(clean)).toEqual([
      expect.stringMatching(
        /^The analytics store equals PostgreSQL at corpus version \d+ \(800 posts by month/,
      ),
    ]);

    const { rows } = await server.pool.query<{ id: string; engagement: number; month: string }>(
      `SELECT id::text, engagement, to_char(posted_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month FROM posts
       ORDER BY engagement DESC, id LIMIT 2`,
    );
    const [changed, deleted] = rows as [(typeof rows)[0], (typeof rows)[0]];
    const { rows: people } = await server.pool.query<{ id: string; followers: string }>(
      'SELECT id::text, followers::text FROM profiles ORDER BY id LIMIT 1',
    );
    const profile = people[0]!;
    // A Reddit post's subreddit (layout 14), from its permalink: the store's taken away.
    const { rows: reddit } = await server.pool.query<{ id: string; url: string }>(
      `SELECT id::text, url FROM posts WHERE platform = 'reddit' AND id NOT IN ($1, $2) ORDER BY id LIMIT 1`,
      [changed.id, deleted.id],
    );
    const thread = reddit[0]!;
    const subreddit = /\/r\/([^/]+)\//.exec(thread.url)![1]!.toLowerCase();
    const db = STORE_DATABASE;
    // Engagement only: its count, likes, comments, shares, views and ids are as PostgreSQL has them.
    await behindTheBack(
      `ALTER TABLE ${db}.posts UPDATE engagement = engagement + 7 WHERE id = ${changed.id}`,
    );
    await behindTheBack(`DELETE FROM ${db}.posts WHERE id = ${deleted.id}`);
    await behindTheBack(`ALTER TABLE ${db}.posts UPDATE subreddit = '' WHERE id = ${thread.id}`);
    await behindTheBack(
      `ALTER TABLE ${db}.profiles UPDATE followers = followers + 1000 WHERE id = ${profile.id}`,
    );

    const found = await checkStore(server.pool, service);
    expect(found.state).toBe('checked');
    if (found.state !== 'checked') return;
    expect(differingIds(found)).toEqual({
      posts: [Number(changed.id), Number(deleted.id), Number(thread.id)].sort((a, b) => a - b),
      profiles: [Number(profile.id)],
      tagPosts: [],
    });
    const words = describeStoreCheck(found).join('\n');
    expect(words).toContain(
      `post ${changed.id} has engagement ${changed.engagement + 7} in the store, ${changed.engagement} in PostgreSQL`,
    );
    expect(words).toContain(`post ${deleted.id} is missing from the store`);
    expect(words).toContain(`post ${thread.id} has subreddit none in the store, ${subreddit} in PostgreSQL`);
    expect(words).toMatch(new RegExp(`${changed.month}: [^\\n]*engagement `));
    expect(words).toMatch(new RegExp(`${deleted.month}: [^\\n]*posts `));
    const followers = Number(profile.followers);
    expect(words).toContain(
      `profile ${profile.id} has ${(followers + 1000).toLocaleString('en-US')} followers in the store, ` +
        `${followers.toLocaleString('en-US')} in PostgreSQL`,
    );

    const version = await refeedStore(server.pool, differingIds(found));
    expect(version).toBeGreaterThan(found.corpusVersion);
    const repaired = await checkStore(server.pool, service);
    expect(repaired).toMatchObject({
      state: 'checked',
      corpusVersion: version,
      months: [],
      profileDifferences: [],
    });
    expect(describeStoreCheck(repaired)[0]).toMatch(/^The analytics store equals PostgreSQL/);
  }, 240_000);

  it('finds the tags the store holds otherwise than PostgreSQL says the posts carry; the repair makes them equal', async () => {
    // Two posts tagged by hand, through the API (and so the outbox).
    const team = await createTeam(server);
    const base = `/api/workspaces/${team.workspaceId}`;
    const category = await as(server, team.manager, {
      method: 'POST',
      url: `${base}/tag-categories`,
      payload: { name: 'Topic' },
    });
    const tag = await as(server, team.manager, {
      method: 'POST',
      url: `${base}/tag-categories/${category.json<{ id: string }>().id}/tags`,
      payload: { name: 'Outage' },
    });
    const tagId = tag.json<{ id: string }>().id;
    const { rows } = await server.pool.query<{ id: string }>(
      'SELECT id::text FROM posts ORDER BY id LIMIT 3',
    );
    const [lost, doubled, madeUp] = rows.map((row) => Number(row.id)) as [number, number, number];
    const tagged = await as(server, team.manager, {
      method: 'POST',
      url: `${base}/tags/${tagId}/posts`,
      payload: { post_ids: [lost, doubled], tagged: true },
    });
    expect(tagged.statusCode, tagged.body).toBe(200);
    const clean = await checkStore(server.pool, service);
    expect(clean).toMatchObject({ state: 'checked', tags: { pairs: 2, differences: [] } });
    expect(describeStoreCheck(clean)[0]).toMatch(/; 2 tags carried by posts\)\.$/);

    const db = STORE_DATABASE;
    const gone = '00000000-0000-4000-8000-0000000000ff';
    await behindTheBack(`DELETE FROM ${db}.post_tags WHERE post = ${lost}`);
    await service
      .reading()!
      .store.exec(
        `INSERT INTO ${db}.post_tags (tag, post) VALUES ('${tagId}', ${doubled}), ('${gone}', ${madeUp})`,
      );
    const found = await checkStore(server.pool, service);
    expect(found.state).toBe('checked');
    if (found.state !== 'checked') return;
    expect(differingIds(found)).toEqual({ posts: [], profiles: [], tagPosts: [lost, doubled, madeUp] });
    const words = describeStoreCheck(found);
    expect(words).toEqual([
      `tags: 3 (tag, post) pairs differ (post ${lost} carries "Topic › Outage" in PostgreSQL, not in the store; ` +
        `post ${doubled} holds "Topic › Outage" 2 times in the store; post ${madeUp} carries ${gone} (no longer a ` +
        'tag) in the store, not in PostgreSQL).',
    ]);

    const version = await refeedStore(server.pool, differingIds(found));
    expect(version).toBeGreaterThan(found.corpusVersion);
    const repaired = await checkStore(server.pool, service);
    expect(repaired).toMatchObject({ state: 'checked', tags: { pairs: 2, differences: [] }, months: [] });
    const held = await service
      .reading()!
      .store.query<{ post: string }>(`SELECT toString(post) AS post FROM ${db}.post_tags ORDER BY post`);
    expect(held.map((row) => Number(row.post))).toEqual([lost, doubled]);
  }, 240_000);
});
