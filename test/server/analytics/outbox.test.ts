// The analytics store's change feed (migration 0020): while a consumer is registered, every batch of the corpus's
// change path appends one row to analytics_outbox in the writer's transaction, with exactly the ids it removed, added
// or changed and the corpus version it made; a batch that rolls back leaves nothing; the consumer's position trims the
// rows it has applied. With no consumer nothing is written.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  markApplied,
  OUTBOX_READ_MAX,
  OutboxError,
  outboxSizes,
  readOutbox,
  registerConsumer,
  unregisterConsumer,
  consumerPosition,
} from '@server/analytics/outbox';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import type { ImportRow } from '@server/social/corpus/import/normalise';
import { writeBatch } from '@server/social/corpus/import/write';
import { createTestServer, type TestServer } from '@test/support/server-harness';

let server: TestServer;
let authorId: number;
let postCount = 0;

beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  [authorId] = (await insertProfiles(server.db, [
    { platform: 'x', externalId: 'outbox-author', handle: 'outbox', displayName: 'Outbox', followers: 10 },
  ])) as [number];
});
afterAll(() => server.close());

const version = async () =>
  Number((await server.pool.query<{ v: string }>('SELECT version AS v FROM corpus_state')).rows[0]!.v);
const outboxRows = async () =>
  Number((await server.pool.query<{ n: string }>('SELECT count(*) AS n FROM analytics_outbox')).rows[0]!.n);

function post(postedAt = '2026-11-01T12:00:00Z') {
  postCount += 1;
  return {
    authorId,
    platform: 'x' as const,
    externalId: `outbox-${postCount}`,
    text: `outbox post ${postCount}`,
    language: 'en',
    postedAt: new Date(postedAt),
    likes: 1,
    comments: 0,
    shares: 0,
    sentiment: 0,
    sentimentLabel: 'neutral' as const,
  };
}

/** Every batch after the consumer's position. */
async function pending() {
  const position = await consumerPosition(server.db);
  return readOutbox(server.db, position?.appliedSeq ?? 0, OUTBOX_READ_MAX);
}

/** Marks everything read so far applied, so each test sees only its own batches. */
async function applyAll() {
  const batches = await pending();
  if (batches.length > 0) await markApplied(server.db, batches.at(-1)!.seq);
}

describe('without a consumer', () => {
  it('writes nothing', async () => {
    await insertPosts(server.db, [post(), post()]);
    await insertProfiles(server.db, [
      { platform: 'x', externalId: 'outbox-lonely', handle: 'lonely', displayName: 'Lonely' },
    ]);
    await server.pool.query(`SELECT corpus_update_profiles('id = ${authorId}', 'followers = followers + 1')`);
    expect(await outboxRows()).toBe(0);
    expect(await consumerPosition(server.db)).toBeNull();
  });
});

describe('with a consumer', () => {
  beforeAll(async () => {
    const registered = await registerConsumer(server.db);
    expect(registered).toEqual({ appliedSeq: 0, corpusVersion: await version() });
    // Registering again keeps the position.
    expect(await registerConsumer(server.db)).toEqual(registered);
  });

  it('appends one row per batch with exactly its post ids and the version it made', async () => {
    await applyAll();
    const first = await insertPosts(server.db, [post(), post('2026-10-03T08:00:00Z')]);
    const afterFirst = await version();
    const second = await insertPosts(server.db, [post()]);
    const afterSecond = await version();
    const batches = await pending();
    expect(batches).toHaveLength(2);
    expect(batches[0]).toMatchObject({
      corpusVersion: afterFirst,
      postIds: [...first].sort((a, b) => a - b),
      profileIds: [],
      reset: false,
    });
    expect(batches[1]).toMatchObject({ corpusVersion: afterSecond, postIds: second, profileIds: [] });
    expect(batches[1]!.seq).toBeGreaterThan(batches[0]!.seq);
  });

  it("names a statement's tagged posts in batches of 50,000, each at a version of its own (migration 0056)", async () => {
    await applyAll();
    const before = await version();
    // Unordered and repeated, as a statement's rows come: each post once, in order, across the batches.
    await server.pool.query(
      `SELECT corpus_tags_changed(ARRAY(SELECT 900000000 + (g * 7919) % 120001 FROM generate_series(0, 130000) g))`,
    );
    const batches = await pending();
    expect(batches.map((batch) => batch.tagPostIds.length)).toEqual([50_000, 50_000, 20_001]);
    expect(batches.map((batch) => batch.corpusVersion)).toEqual([before + 1, before + 2, before + 3]);
    expect(await version()).toBe(before + 3);
    const named = batches.flatMap((batch) => batch.tagPostIds);
    expect(named).toEqual(Array.from({ length: 120_001 }, (_, i) => 900_000_000 + i));
    expect(batches.every((batch) => batch.postIds.length === 0 && batch.profileIds.length === 0)).toBe(true);
    // A few posts: one batch, one version.
    await applyAll();
    await server.pool.query(`SELECT corpus_tags_changed(ARRAY[900000005, 900000003]::bigint[])`);
    expect((await pending()).map((batch) => [batch.tagPostIds, batch.corpusVersion])).toEqual([
      [[900_000_003, 900_000_005], before + 4],
    ]);
  });

  it('records updates and deletes of posts, once per batch', async () => {
    const ids = await insertPosts(server.db, [post(), post()]);
    await applyAll();
    // A changed post that moves month is one row of corpus_removed and one of corpus_added: its id appears once.
    await server.pool.query(
      `SELECT corpus_update_posts('id = ANY (''{${ids.join(',')}}''::bigint[])',
        'likes = likes + 5, posted_at = posted_at - interval ''40 days''')`,
    );
    const afterUpdate = await version();
    await server.pool.query(`SELECT corpus_delete_posts('id = ${ids[0]}')`);
    const afterDelete = await version();
    const batches = await pending();
    expect(batches.map((b) => [b.postIds, b.corpusVersion])).toEqual([
      [[...ids].sort((a, b) => a - b), afterUpdate],
      [[ids[0]], afterDelete],
    ]);
  });

  it('records profiles added, changed (followers, handle, country) and removed', async () => {
    await applyAll();
    const [added] = (await insertProfiles(server.db, [
      { platform: 'x', externalId: 'outbox-new', handle: 'newcomer', displayName: 'Newcomer', followers: 5 },
    ])) as [number];
    const afterAdd = await version();
    await server.pool.query(`SELECT corpus_update_profiles('id = ${added}', 'followers = 500')`);
    const afterFollowers = await version();
    await server.pool.query(
      `SELECT corpus_update_profiles('id = ${added}', 'handle = ''renamed'', country = ''FR''')`,
    );
    const afterRename = await version();
    const [gone] = await insertPosts(server.db, [{ ...post(), authorId: added }]);
    await server.pool.query(`SELECT corpus_delete_profiles('id = ${added}')`);
    const afterDelete = await version();
    const batches = await pending();
    expect(
      batches.map((b) => ({ posts: b.postIds, profiles: b.profileIds, version: b.corpusVersion })),
    ).toEqual([
      { posts: [], profiles: [added], version: afterAdd },
      { posts: [], profiles: [added], version: afterFollowers },
      { posts: [], profiles: [added], version: afterRename },
      { posts: [gone], profiles: [], version: expect.any(Number) },
      // The profile's posts go in the row before (the posts' batch); its own row carries the last version.
      { posts: [gone], profiles: [], version: expect.any(Number) },
      { posts: [], profiles: [added], version: afterDelete },
    ]);
  });

  it('writes nothing for a batch that rolls back or throws after applying', async () => {
    await applyAll();
    const before = await version();
    const client = await server.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT corpus_changes_begin()');
      await client.query(`INSERT INTO corpus_added (platform, external_id, author_id, text, posted_at)
        VALUES ('x', 'outbox-rolled-back', ${authorId}, 'never', '2026-11-02T00:00:00Z')`);
      await client.query('SELECT corpus_changes_apply()');
      expect(Number((await client.query('SELECT count(*) AS n FROM analytics_outbox')).rows[0].n)).toBe(1);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    await expect(
      server.db.transaction(async (tx) => {
        await tx.execute(sql`SELECT corpus_changes_begin()`);
        await tx.execute(sql`INSERT INTO corpus_added (platform, external_id, author_id, text, posted_at)
          VALUES ('x', 'outbox-crashed', ${authorId}, 'never', '2026-11-02T00:00:00Z')`);
        await tx.execute(sql`SELECT corpus_changes_apply()`);
        throw new Error('the writer died after applying');
      }),
    ).rejects.toThrow('the writer died');
    expect(await pending()).toEqual([]);
    expect(await outboxRows()).toBe(0);
    expect(await version()).toBe(before);
  });

  it("counts each batch's ids without reading them, in seq order, as many batches as asked", async () => {
    await applyAll();
    const start = (await consumerPosition(server.db))!.appliedSeq;
    await insertPosts(server.db, [post(), post(), post()]);
    await insertProfiles(server.db, [
      { platform: 'x', externalId: 'outbox-sized', handle: 'sized', displayName: 'Sized', followers: 1 },
    ]);
    await insertPosts(server.db, [post()]);
    const batches = await pending();
    const sizes = batches.map((batch) => ({
      seq: batch.seq,
      posts: batch.postIds.length,
      profiles: batch.profileIds.length,
      tagPosts: batch.tagPostIds.length,
      reset: batch.reset,
    }));
    expect(sizes.map((size) => size.posts)).toEqual([3, 0, 1]);
    expect(sizes[1]!.profiles).toBe(1);
    expect(await outboxSizes(server.db, start, OUTBOX_READ_MAX)).toEqual(sizes);
    expect(await outboxSizes(server.db, start, 2)).toEqual(sizes.slice(0, 2));
    expect(await outboxSizes(server.db, batches[1]!.seq, 10)).toEqual(sizes.slice(2));
    await expect(outboxSizes(server.db, 0, OUTBOX_READ_MAX + 1)).rejects.toBeInstanceOf(OutboxError);
    await expect(outboxSizes(server.db, -1, 10)).rejects.toBeInstanceOf(OutboxError);
  });

  it('trims the rows the store has applied, and only forward', async () => {
    await applyAll();
    const start = (await consumerPosition(server.db))!.appliedSeq;
    await insertPosts(server.db, [post()]);
    await insertPosts(server.db, [post()]);
    await insertPosts(server.db, [post()]);
    const batches = await pending();
    expect(batches).toHaveLength(3);
    expect(await readOutbox(server.db, start, 2)).toEqual(batches.slice(0, 2));

    await markApplied(server.db, batches[1]!.seq);
    expect((await consumerPosition(server.db))!.appliedSeq).toBe(batches[1]!.seq);
    expect(await outboxRows()).toBe(1);
    expect(await pending()).toEqual([batches[2]]);
    // The same position again is a no-op; behind it, or a seq that names no batch, is refused and changes nothing.
    await markApplied(server.db, batches[1]!.seq);
    await expect(markApplied(server.db, batches[0]!.seq)).rejects.toThrow(/behind the applied position/);
    await expect(markApplied(server.db, batches[2]!.seq + 1000)).rejects.toThrow(/not a batch/);
    await expect(markApplied(server.db, -1)).rejects.toBeInstanceOf(OutboxError);
    await expect(readOutbox(server.db, 0, 0)).rejects.toBeInstanceOf(OutboxError);
    await expect(readOutbox(server.db, 1.5, 10)).rejects.toBeInstanceOf(OutboxError);
    expect(await outboxRows()).toBe(1);
    expect((await consumerPosition(server.db))!.appliedSeq).toBe(batches[1]!.seq);
  });

  it('records what an import batch changed: new authors, their posts, then new followers', async () => {
    await applyAll();
    const row = (followers: number): ImportRow => ({
      line: 1,
      platform: 'x',
      externalId: 'outbox-imported',
      author: { externalId: 'outbox-importer', handle: 'importer', followers },
      text: 'an imported post',
      language: 'en',
      postedAt: '2026-11-03T10:00:00.000Z',
      hashtags: [],
      mentions: [],
      domains: [],
      sentiment: 0,
      sentimentLabel: 'neutral',
      sentimentModel: 'test',
      sentimentRated: true,
    });
    const client = await server.pool.connect();
    try {
      await writeBatch(client, [row(7)]);
      await writeBatch(client, [row(70)]);
    } finally {
      client.release();
    }
    const { rows } = await server.pool.query<{ author: string; post: string }>(
      `SELECT a.id AS author, p.id AS post FROM profiles a JOIN posts p ON p.author_id = a.id
       WHERE a.external_id = 'outbox-importer'`,
    );
    const author = Number(rows[0]!.author);
    const imported = Number(rows[0]!.post);
    // The second batch changes the author's followers and leaves the identical post alone: no posts row.
    expect((await pending()).map((b) => [b.postIds, b.profileIds])).toEqual([
      [[], [author]],
      [[imported], []],
      [[], [author]],
    ]);
  });

  it('marks the batch that empties the corpus', async () => {
    await applyAll();
    await server.pool.query('SELECT corpus_truncate()');
    expect(await pending()).toEqual([
      expect.objectContaining({ postIds: [], profileIds: [], reset: true, corpusVersion: await version() }),
    ]);
  });

  it('stops recording once the consumer is unregistered', async () => {
    expect(await unregisterConsumer(server.db)).toBe(true);
    expect(await outboxRows()).toBe(0);
    await insertProfiles(server.db, [
      { platform: 'x', externalId: 'outbox-after', handle: 'after', displayName: 'After' },
    ]);
    expect(await outboxRows()).toBe(0);
    expect(await unregisterConsumer(server.db)).toBe(false);
    await expect(markApplied(server.db, 1)).rejects.toThrow(/No consumer/);
  });
});

it('keeps its id arrays out of line and uncompressed (migration 0053): pglz took 140 ms for 50,000 ids', async () => {
  const { rows } = await server.pool.query<{ attname: string; attstorage: string }>(
    `SELECT attname, attstorage FROM pg_attribute
      WHERE attrelid = 'analytics_outbox'::regclass AND attname IN ('post_ids', 'profile_ids', 'tag_post_ids')
      ORDER BY attname`,
  );
  expect(rows).toEqual(
    ['post_ids', 'profile_ids', 'tag_post_ids'].map((attname) => ({ attname, attstorage: 'e' })),
  );
});
