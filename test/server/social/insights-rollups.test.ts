// The rollups (migration 0007) and author_post_times (0009): the corpus's change path (migration 0016; triggers before
// it) keeps them equal to a recount of the posts after every kind of write (concurrent ones too). The dashboards no
// longer read them (the analytics store gives every figure); they stay until a migration drops them.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { insertCorpus } from '@test/support/insights.fixtures';
import { rollupDifferences } from '@test/support/rollups';

let server: TestServer;

// The store is not read here.
beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  await insertCorpus(server);
});
afterAll(() => server.close());

const counts = async () =>
  (
    await server.db.execute<{
      posts: number;
      hours: number;
      days: number;
      tags: number;
      authors: number;
    }>(sql`SELECT
      (SELECT count(*) FROM posts)::int AS posts, (SELECT count(*) FROM post_hours)::int AS hours,
      (SELECT count(*) FROM post_days)::int AS days, (SELECT count(*) FROM post_tag_days)::int AS tags,
      (SELECT count(*) FROM author_post_times)::int AS authors`)
  ).rows[0]!;

type Tx = Parameters<Parameters<TestServer['db']['transaction']>[0]>[0];

/** Hand-written changes through the change path (migration 0016): a plain UPDATE would leave the rollups behind. */
const updatePosts = (db: TestServer['db'], condition: string, assignments: string) =>
  db.execute(sql`SELECT corpus_update_posts(${condition}, ${assignments})`);
const deletePosts = (db: TestServer['db'], condition: string) =>
  db.execute(sql`SELECT corpus_delete_posts(${condition})`);
const updateProfiles = (db: TestServer['db'], condition: string, assignments: string) =>
  db.execute(sql`SELECT corpus_update_profiles(${condition}, ${assignments})`);

/** New posts copied from those a condition selects: external id + suffix, time + shift, likes + extra. */
async function copyPosts(tx: Tx, suffix: string, shift: string, condition: string, extraLikes = 0) {
  await tx.execute(sql`SELECT corpus_changes_begin()`);
  await tx.execute(
    sql.raw(`INSERT INTO corpus_added (platform, external_id, author_id, text, language, posted_at, kind, media,
      likes, comments, shares, views, hashtags, mentions, domains, sentiment, sentiment_label)
    SELECT platform, external_id || ${suffix}, author_id, text, language, posted_at + ${shift}::interval, kind, media,
      likes + ${extraLikes}, comments, shares, views, hashtags, mentions, domains, sentiment, sentiment_label
    FROM posts WHERE ${condition}`),
  );
  await tx.execute(sql`SELECT corpus_changes_apply()`);
}

const NONE = { hours: 0, days: 0, tags: 0, authors: 0, empty: 0 };

describe('the change path keeps the rollups and author_post_times equal to a recount of the posts', () => {
  it('after the corpus went in', async () => {
    expect((await counts()).hours).toBeGreaterThan(0);
    expect((await counts()).authors).toBeGreaterThan(0);
    expect(await rollupDifferences(server.db)).toEqual(NONE);
  });

  it('after updates of counts, times, languages, tags and authors', async () => {
    await updatePosts(server.db, 'id % 3 = 0', 'likes = likes + 7, views = coalesce(views, 0) + 1');
    // Across a month's end too: the post moves to another partition.
    await updatePosts(
      server.db,
      'id % 5 = 0',
      `posted_at = posted_at + interval '5 hours 17 minutes', language = CASE WHEN language IS NULL THEN 'en' END`,
    );
    await updatePosts(
      server.db,
      'id % 4 = 1',
      `hashtags = hashtags || hashtags || '{fresh}', mentions = '{}', domains = domains || '{example.org}'`,
    );
    await updatePosts(
      server.db,
      'id % 7 = 2',
      `sentiment = -sentiment, sentiment_label = 'negative', kind = 'quote', media = 'video', platform = 'reddit'`,
    );
    await updatePosts(server.db, 'id % 6 = 5', 'author_id = (SELECT min(id) FROM profiles)');
    expect(await rollupDifferences(server.db)).toEqual(NONE);
  });

  it('after followers change (to and from none) and posts are deleted', async () => {
    await updateProfiles(server.db, 'id % 2 = 0', 'followers = followers * 3 + 11');
    await updateProfiles(server.db, 'id % 3 = 0', 'followers = 0');
    await updateProfiles(server.db, 'id % 3 = 0 AND id % 2 = 0', 'followers = 5');
    await deletePosts(server.db, 'id % 9 = 4');
    expect(await rollupDifferences(server.db)).toEqual(NONE);
  });

  it('after a profile is deleted with its posts, and posts are inserted in the same transaction', async () => {
    const before = await counts();
    await server.db.transaction(async (tx) => {
      await tx.execute(sql`SELECT corpus_delete_profiles('id = (SELECT author_id FROM posts GROUP BY 1
        ORDER BY count(*) DESC, 1 LIMIT 1)')`);
      await copyPosts(tx, "'-again'", "'-3 days'", 'id % 4 = 0');
    });
    expect((await counts()).posts).not.toBe(before.posts);
    expect(await rollupDifferences(server.db)).toEqual(NONE);
  });

  it('after concurrent transactions write posts of the same authors', async () => {
    const copy = (tx: Tx, suffix: string, shift: string, remainder: number) =>
      copyPosts(tx, `'${suffix}'`, `'${shift}'`, `id % 5 = ${remainder} AND external_id NOT LIKE '%-x%'`, 1);
    const before = await counts();
    // The first holds its transaction open after its insert, while the second inserts and deletes.
    await Promise.all([
      server.db.transaction(async (tx) => {
        await copy(tx, '-x1', '-1 day', 1);
        await tx.execute(sql`SELECT pg_sleep(0.3)`);
      }),
      (async () => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        await server.db.transaction(async (tx) => {
          await copy(tx, '-x2', '2 hours', 2);
          await tx.execute(sql`SELECT corpus_delete_posts('id % 11 = 3')`);
        });
      })(),
    ]);
    expect((await counts()).posts).not.toBe(before.posts);
    expect(await rollupDifferences(server.db)).toEqual(NONE);
  });

  it('after followers change while posts of the same authors are written, in either order', async () => {
    const insert = (suffix: string) => (tx: Tx) =>
      copyPosts(tx, `'${suffix}'`, "'-3 hours'", `id % 4 = 1 AND external_id NOT LIKE '%-f%'`);
    const follow = async (tx: Tx) => {
      await tx.execute(sql`SELECT corpus_update_profiles('id % 2 = 1', 'followers = followers + 17')`);
    };
    // Each first writer holds its transaction open after its statement; the second starts meanwhile.
    for (const [first, second] of [
      [insert('-f1'), follow],
      [follow, insert('-f2')],
    ] as const) {
      await Promise.all([
        server.db.transaction(async (tx) => {
          await first(tx);
          await tx.execute(sql`SELECT pg_sleep(0.3)`);
        }),
        (async () => {
          await new Promise((resolve) => setTimeout(resolve, 100));
          await server.db.transaction((tx) => second(tx));
        })(),
      ]);
      expect(await rollupDifferences(server.db)).toEqual(NONE);
    }
  });

  it('after a write that fails: nothing of it stays', async () => {
    const before = await counts();
    await expect(
      server.db.transaction(async (tx) => {
        await tx.execute(sql`SELECT corpus_update_posts('true', 'likes = likes + 1000')`);
        await tx.execute(sql`SELECT 1 / 0`);
      }),
    ).rejects.toThrow();
    expect(await counts()).toEqual(before);
    expect(await rollupDifferences(server.db)).toEqual(NONE);
  });

  it('after the posts are emptied', async () => {
    await server.db.execute(sql`SELECT corpus_truncate()`);
    expect(await counts()).toEqual({ posts: 0, hours: 0, days: 0, tags: 0, authors: 0 });
  });
});
