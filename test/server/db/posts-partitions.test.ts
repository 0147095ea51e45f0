// Posts partitioned by month (migration 0016, issue 20 item 2): every dashboard and discover statement reads only the
// months of its range (shown by the plans PostgreSQL makes for the statements the endpoints really ran), the external
// key stays unique across months, retention drops whole months with their keys, and no trigger is left on the corpus
// (item 3: the change path keeps the keys exact without them).
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { insertPosts } from '@server/social/corpus/changes';
import { writeBatch } from '@server/social/corpus/import/write';
import type { ImportRow } from '@server/social/corpus/import/normalise';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createWorkspace, type Person } from '@test/support/workspaces.fixtures';
import { insertCorpus } from '@test/support/insights.fixtures';
import { scanned, statementsOf } from '@test/support/pruning';
import { profiles } from '@server/db/social-schema';
import { tagCategories, tagRules, tags } from '@server/db/tags-schema';
import { loadCatalogue } from '@server/billing/plans';
import { maintainPartitions, retentionProblem } from '@server/social/corpus/partitions';

let server: TestServer;
let viewer: Person;
let workspaceId: string;

/** Keys without their post, and posts without their key: none while the change path keeps post_keys. */
const keyDifferences = async () =>
  (
    await server.db.execute<{ n: number }>(sql`SELECT (
      (SELECT count(*) FROM post_keys k WHERE NOT EXISTS (SELECT FROM posts p WHERE p.id = k.id
        AND p.posted_at = k.posted_at AND p.platform = k.platform AND p.external_id = k.external_id))
      + (SELECT count(*) FROM posts p WHERE NOT EXISTS (SELECT FROM post_keys k WHERE p.id = k.id
        AND p.posted_at = k.posted_at AND p.platform = k.platform AND p.external_id = k.external_id)))::int AS n`)
  ).rows[0]!.n;
/** The fixtures' range (insights.fixtures.ts): 25 October to 8 November 2026, two months. */
const RANGE = { from: '2026-10-25T13:37:00Z', to: '2026-11-08T05:12:30Z' };
const IN_RANGE = new Set(['posts_2026_10', 'posts_2026_11']);

const partitions = async () =>
  (await server.db.execute<{ name: string }>(sql`SELECT name FROM posts_partitions()`)).rows.map(
    (r) => r.name,
  );

beforeAll(async () => {
  server = await createTestServer();
  viewer = await server.createUser();
  workspaceId = (await createWorkspace(server, [[viewer, 'viewer']], { timeZone: 'America/New_York' })).id;
  await insertCorpus(server);
  // Months outside the range, so that pruning has something to leave out.
  const [author] = await server.db.select().from(profiles).limit(1);
  await insertPosts(
    server.db,
    ['2025-12-31T23:59:59.999Z', '2026-03-15T12:00:00Z', '2026-09-30T23:59:59Z', '2026-12-01T00:00:00Z'].map(
      (at, i) => ({
        authorId: author!.id,
        platform: author!.platform,
        externalId: `outside-${i}`,
        text: 'outage nova coffee',
        language: 'en',
        postedAt: new Date(at),
        likes: i,
        hashtags: ['outage'],
      }),
    ),
  );
});
afterAll(() => server.close());
afterEach(() => vi.restoreAllMocks());

describe('partitions', () => {
  it('are one per UTC month, made as posts arrive', async () => {
    const names = await partitions();
    for (const month of [
      'posts_2025_12',
      'posts_2026_03',
      'posts_2026_09',
      'posts_2026_10',
      'posts_2026_11',
    ]) {
      expect(names).toContain(month);
    }
    // The last millisecond of a month is in that month; the first of the next is not.
    const { rows } = await server.db.execute<{ external_id: string; partition: string }>(
      sql`SELECT external_id, tableoid::regclass::text AS partition FROM posts WHERE external_id LIKE 'outside-%'
          ORDER BY 1`,
    );
    expect(rows.map((r) => r.partition)).toEqual([
      'posts_2025_12',
      'posts_2026_03',
      'posts_2026_09',
      'posts_2026_12',
    ]);
  });

  it('leave no trigger on the corpus but the statement guard: the change path keeps the keys exact', async () => {
    // The guard (migration 0018) runs once per statement and only refuses; nothing maintains data in a trigger.
    // (post_tags, the workspaces' tags and not the corpus, names the posts it changed in the outbox: migration 0044.)
    const { rows } = await server.db.execute<{ name: string; relation: string; kind: string }>(sql`
      SELECT t.tgname AS name, t.tgrelid::regclass::text AS relation, t.tgfoid::regproc::text AS kind
      FROM pg_trigger t
      WHERE NOT t.tgisinternal AND t.tgrelid IN (SELECT oid FROM pg_class WHERE relname = 'profiles'
        OR (relname LIKE 'post%' AND relname <> 'post_tags'))
        AND (t.tgname <> 'corpus_guard' OR t.tgfoid <> 'corpus_write_guard'::regproc
          OR t.tgtype & 1 <> 0 OR t.tgtype & 2 = 0)`);
    expect(rows).toEqual([]);
    expect(await keyDifferences()).toBe(0);
  });
});

describe('partition pruning', () => {
  const dashboards = [
    'overview',
    'posts',
    'people',
    'performance',
    'conversation',
    'filtered-posts',
    'filtered-profiles',
  ];

  it('every dashboard and discover statement over a range reads only its months', async () => {
    // The store fed first, so that what is caught is the reads (their look-ups of posts by id), not the feed's COPY.
    await server.storeCaughtUp();
    const caught = await statementsOf(async () => {
      // Queries with text and without: the store answers, PostgreSQL is asked for posts and profiles by id.
      for (const query of ['outage OR nova OR coffee', '', 'platform:x']) {
        for (const url of dashboards) {
          const response = await as(server, viewer, {
            method: 'POST',
            url: `/social/insights/${url}`,
            payload: { workspace_id: workspaceId, query, filters: RANGE },
          });
          expect(response.statusCode, `${url} ${query}: ${response.body}`).toBe(200);
        }
        const search = await as(server, viewer, {
          method: 'POST',
          url: '/social/discover',
          payload: { workspace_id: workspaceId, query: query || 'outage', filters: RANGE },
        });
        expect(search.statusCode, search.body).toBe(200);
      }
    });
    const statements = caught.filter(({ text }) => /^\s*(SELECT|WITH)\b/i.test(text));
    expect(statements.length).toBeGreaterThan(10);
    const client = await server.pool.connect();
    try {
      await client.query(`SET TimeZone = 'America/New_York'`);
      let pruned = 0;
      for (const { text, values } of statements) {
        const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(
          `EXPLAIN (FORMAT JSON) ${text}`,
          values,
        );
        const months = [...scanned(rows[0]!['QUERY PLAN'])].filter((name) =>
          /^posts_\d{4}_\d{2}$/.test(name),
        );
        // A statement that reads posts reads them through their partitions; only the range's months.
        expect(
          months.filter((name) => !IN_RANGE.has(name)),
          text,
        ).toEqual([]);
        if (months.length > 0) pruned++;
      }
      expect(pruned).toBeGreaterThan(10);
    } finally {
      await client.query('RESET TimeZone');
      client.release();
    }
  });

  it('also prunes at run time, for a generic plan whose range is a parameter', async () => {
    const client = await server.pool.connect();
    try {
      await client.query('SET plan_cache_mode = force_generic_plan');
      await client.query(`PREPARE ranged(timestamptz, timestamptz) AS
        SELECT count(*) FROM posts p WHERE p.posted_at >= $1 AND p.posted_at < $2`);
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE ranged('${RANGE.from}', '${RANGE.to}')`,
      );
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).toMatch(/Subplans Removed: [1-9]/);
      expect(plan).not.toContain('posts_2026_03');
    } finally {
      await client.query('DEALLOCATE ranged');
      await client.query('RESET plan_cache_mode');
      client.release();
    }
  });
});

const row = (externalId: string, postedAt: string, likes: number): ImportRow => ({
  line: 1,
  platform: 'x',
  externalId,
  author: { externalId: 'mover', handle: 'mover', displayName: 'Mover', followers: 10 },
  text: 'a post that moves between months',
  language: 'en',
  postedAt,
  likes,
  hashtags: ['moving'],
  mentions: [],
  domains: [],
  sentiment: 0,
  sentimentLabel: 'neutral',
  sentimentModel: 'test',
  sentimentRated: true,
});

describe('the external key', () => {
  it('stays unique when a re-import moves a post to another month, and keeps its id', async () => {
    const client = await server.pool.connect();
    let firstId: string;
    try {
      expect(await writeBatch(client, [row('mover-1', '2026-10-31T23:00:00Z', 1)])).toEqual({
        inserted: 1,
        updated: 0,
        unchanged: 0,
      });
      firstId = (
        await server.db.execute<{ id: string }>(
          sql`SELECT id::text FROM post_keys WHERE external_id = 'mover-1'`,
        )
      ).rows[0]!.id;
      expect(await writeBatch(client, [row('mover-1', '2026-11-01T01:00:00Z', 2)])).toEqual({
        inserted: 0,
        updated: 1,
        unchanged: 0,
      });
      expect(await writeBatch(client, [row('mover-1', '2026-11-01T01:00:00Z', 2)])).toEqual({
        inserted: 0,
        updated: 0,
        unchanged: 1,
      });
    } finally {
      client.release();
    }
    const { rows } = await server.db.execute<{ id: string; partition: string; likes: number; key_at: Date }>(
      sql`SELECT p.id::text, p.tableoid::regclass::text AS partition, p.likes, k.posted_at AS key_at
          FROM posts p JOIN post_keys k ON k.id = p.id WHERE p.external_id = 'mover-1'`,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: firstId!, partition: 'posts_2026_11', likes: 2 });
    expect(new Date(rows[0]!.key_at).toISOString()).toBe('2026-11-01T01:00:00.000Z');
    expect(await keyDifferences()).toBe(0);
  });

  it('refuses a second post with a key already taken, and a plain DELETE of a profile that has posts', async () => {
    const [taken] = (
      await server.db.execute<{ author_id: string; platform: string }>(
        sql`SELECT author_id::text, platform FROM posts WHERE external_id = 'outside-1'`,
      )
    ).rows;
    await expect(
      insertPosts(server.db, [
        {
          authorId: Number(taken!.author_id),
          platform: taken!.platform as 'x',
          externalId: 'outside-1',
          text: 'again',
          postedAt: new Date('2026-05-05T00:00:00Z'),
        },
      ]),
    ).rejects.toThrow();
    await expect(
      server.db.execute(sql`DELETE FROM profiles WHERE id = ${Number(taken!.author_id)}`),
    ).rejects.toThrow();
    expect(await keyDifferences()).toBe(0);
  });
});

describe('retention', () => {
  it('drops whole months before the cutoff, with their keys and their tags', async () => {
    expect(await partitions()).toContain('posts_2025_12');
    // A post of each side of the cutoff tagged by hand: December's tag goes with its month, March's stays.
    const [category] = await server.db
      .insert(tagCategories)
      .values({ workspaceId, name: 'Topic' })
      .returning({ id: tagCategories.id });
    const [tag] = await server.db
      .insert(tags)
      .values({ workspaceId, categoryId: category!.id, name: 'Outage' })
      .returning({ id: tags.id });
    await server.db.execute(sql`INSERT INTO post_tags (workspace_id, post_id, tag_id, set_by)
      SELECT ${workspaceId}, id, ${tag!.id}::uuid, 'manual' FROM post_keys
      WHERE external_id IN ('outside-0', 'outside-1')`);
    // And by a rule's past matches, kept as bits by range of posts (migration 0057).
    const [rule] = await server.db
      .insert(tagRules)
      .values({ workspaceId, tagId: tag!.id, query: 'outside' })
      .returning({ id: tagRules.id });
    await server.db.execute(sql`INSERT INTO rule_post_ranges (rule_id, start, bits)
      SELECT ${rule!.id}::uuid, id - id % 4096, bit_or(set_bit(B'0'::bit(4096), (id % 4096)::int, 1)) FROM post_keys
      WHERE external_id IN ('outside-0', 'outside-1') GROUP BY 2`);
    // 2026-03-20 is inside March: March stays whole, December 2025 and earlier go.
    const { rows } = await server.db.execute<{ posts_partitions_drop_before: string }>(
      sql`SELECT posts_partitions_drop_before('2026-03-20T00:00:00Z')`,
    );
    expect(rows.map((r) => r.posts_partitions_drop_before)).toEqual(['posts_2025_12']);
    const names = await partitions();
    expect(names).not.toContain('posts_2025_12');
    expect(names).toContain('posts_2026_03');
    const left = await server.db.execute<{ n: number; keys: number }>(sql`
      SELECT (SELECT count(*) FROM posts WHERE posted_at < '2026-01-01')::int AS n,
        (SELECT count(*) FROM post_keys WHERE posted_at < '2026-01-01')::int AS keys`);
    expect(left.rows[0]).toEqual({ n: 0, keys: 0 });
    expect(await keyDifferences()).toBe(0);
    const tagged = await server.db.execute<{ external_id: string }>(sql`
      SELECT k.external_id FROM post_tags t JOIN post_keys k ON k.id = t.post_id WHERE t.tag_id = ${tag!.id}`);
    expect(tagged.rows).toEqual([{ external_id: 'outside-1' }]);
    const ruled = await server.db.execute<{ external_id: string }>(sql`
      SELECT k.external_id FROM post_tag_rows t JOIN post_keys k ON k.id = t.post_id WHERE t.rule_id = ${rule!.id}`);
    expect(ruled.rows).toEqual([{ external_id: 'outside-1' }]);
    const orphans = await server.db.execute<{ n: number }>(sql`
      SELECT count(*)::int AS n FROM post_tag_rows t WHERE NOT EXISTS (SELECT FROM post_keys k WHERE k.id = t.post_id)`);
    expect(orphans.rows[0]!.n).toBe(0);
  });
});

describe('partitions over time (housekeeping)', () => {
  it('makes the coming months ahead, and applies the retention in days', async () => {
    const round = await maintainPartitions(server.db, 0, new Date('2027-03-10T00:00:00Z'));
    expect(round.dropped).toEqual([]);
    const names = await partitions();
    for (const month of ['posts_2027_03', 'posts_2027_04', 'posts_2027_05']) expect(names).toContain(month);
    expect((await maintainPartitions(server.db, 0, new Date('2027-03-10T00:00:00Z'))).created).toBe(0);
    // 200 days before 2026-10-10 is 2026-03-24: March 2026 is not whole before it, so it stays.
    expect((await maintainPartitions(server.db, 200, new Date('2026-10-10T00:00:00Z'))).dropped).toEqual([]);
    // 190 days before 2026-10-10 is 2026-04-03: March 2026 goes.
    expect((await maintainPartitions(server.db, 190, new Date('2026-10-10T00:00:00Z'))).dropped).toEqual([
      'posts_2026_03',
    ]);
    expect(await keyDifferences()).toBe(0);
  });

  it('refuses a retention shorter than a plan shows', () => {
    const catalogue = loadCatalogue();
    expect(retentionProblem(0, catalogue)).toBeNull();
    expect(retentionProblem(730, catalogue)).toBeNull();
    expect(retentionProblem(400, catalogue)).toMatch(
      /^CORPUS_RETENTION_DAYS=400 is shorter than the .+ plan's history \(730 days\)/,
    );
  });
});
