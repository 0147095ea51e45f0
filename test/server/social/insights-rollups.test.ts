// The rollups (migration 0007) and author_post_times (0009): which dashboards they serve and how a range splits, the
// corpus's change path (migration 0016; triggers before it) that keeps them equal to a recount of the posts after every
// kind of write (concurrent ones too), and the dashboards read from them equal to the same dashboards read from the
// posts.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Refine } from '@contract/insights';
import { AUTHOR_TIMES_MIN_DAYS, authorTimesServe } from '@server/social/insights/sources/author-times';
import { resolveInsightScope } from '@server/social/insights/request';
import { rollupSplit, wholeHourOffsets, type Grain } from '@server/social/insights/sources/rollups';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createWorkspace, type Person } from '@test/support/workspaces.fixtures';
import { insertCorpus } from '@test/support/insights.fixtures';
import { rollupDifferences } from '@test/support/rollups';

let server: TestServer;
let viewer: Person;
let workspaceId: string;

beforeAll(async () => {
  server = await createTestServer();
  viewer = await server.createUser();
  workspaceId = (await createWorkspace(server, [[viewer, 'viewer']], { timeZone: 'America/New_York' })).id;
  await insertCorpus(server);
});
afterAll(() => server.close());

const contextOf = (
  query: string,
  [from, to]: [string, string],
  { timeZone = 'America/New_York', refine = [] as Refine[] } = {},
) =>
  resolveInsightScope(server.db, { timeZone }, { workspace_id: 'w', query, filters: { from, to }, refine });

async function split(
  grain: Grain,
  query: string,
  range: [string, string],
  options: { timeZone?: string; refine?: Refine[] } = {},
) {
  const result = rollupSplit(await contextOf(query, range, options), grain);
  return (
    result && {
      whole: [result.whole.from.toISOString(), result.whole.to.toISOString()],
      partial: result.partial.map((r) => [r.from.toISOString(), r.to.toISOString()]),
    }
  );
}

describe('which dashboards the rollups serve', () => {
  const range: [string, string] = ['2026-10-28T13:37:00.000Z', '2026-11-04T08:12:30.000Z'];

  it('splits a range into whole UTC hours or days and the partial ones at its ends', async () => {
    expect(await split('hour', '', range)).toEqual({
      whole: ['2026-10-28T14:00:00.000Z', '2026-11-04T08:00:00.000Z'],
      partial: [
        ['2026-10-28T13:37:00.000Z', '2026-10-28T14:00:00.000Z'],
        ['2026-11-04T08:00:00.000Z', '2026-11-04T08:12:30.000Z'],
      ],
    });
    expect(await split('day', '', range)).toEqual({
      whole: ['2026-10-29T00:00:00.000Z', '2026-11-04T00:00:00.000Z'],
      partial: [
        ['2026-10-28T13:37:00.000Z', '2026-10-29T00:00:00.000Z'],
        ['2026-11-04T00:00:00.000Z', '2026-11-04T08:12:30.000Z'],
      ],
    });
    expect(await split('hour', '', ['2026-10-28T00:00:00Z', '2026-10-29T00:00:00Z'])).toEqual({
      whole: ['2026-10-28T00:00:00.000Z', '2026-10-29T00:00:00.000Z'],
      partial: [],
    });
  });

  it('leaves a range without a whole unit to the posts', async () => {
    expect(await split('hour', '', ['2026-10-28T13:05:00Z', '2026-10-28T13:55:00Z'])).toBeNull();
    expect(await split('day', '', ['2026-10-28T01:00:00Z', '2026-10-29T00:59:00Z'])).toBeNull();
  });

  it('serves queries of platform: and lang: only, however combined', async () => {
    for (const query of [
      'platform:x',
      'lang:en OR (platform:reddit AND NOT lang:ko)',
      'NOT platform:tiktok',
    ]) {
      expect(await split('hour', query, range)).not.toBeNull();
      expect(await split('day', query, range)).not.toBeNull();
    }
    for (const query of [
      'coffee',
      'platform:x AND coffee',
      '#launch',
      '@nova',
      'author:hana',
      'country:KR',
      'te*',
    ]) {
      expect(await split('hour', query, range)).toBeNull();
      expect(await split('day', query, range)).toBeNull();
    }
  });

  it('serves platform and language refinements; the hourly rollup date buckets and hours of the week too', async () => {
    const kept: Refine[] = [
      { field: 'platform', values: ['x'], exclude: true },
      { field: 'language', values: ['en'] },
    ];
    expect(await split('day', '', range, { refine: kept })).not.toBeNull();
    const date: Refine[] = [{ field: 'date', bucket: 'day', values: ['2026-10-30T04:00:00.000Z'] }];
    expect(await split('hour', '', range, { refine: date })).not.toBeNull();
    expect(await split('day', '', range, { refine: date })).toBeNull();
    const cell: Refine[] = [{ field: 'hour_of_week', values: [{ day: 1, hour: 9 }], exclude: true }];
    expect(await split('hour', '', range, { refine: cell })).not.toBeNull();
    expect(await split('day', '', range, { refine: cell })).toBeNull();
    expect(await split('hour', '', range, { refine: cell, timeZone: 'America/St_Johns' })).toBeNull();
    const others: Refine[][] = [
      [{ field: 'sentiment', values: ['negative'] }],
      [{ field: 'media', values: ['video'] }],
      [{ field: 'kind', values: ['reply'] }],
      [{ field: 'hashtag', values: ['launch'] }],
      [{ field: 'followers', values: [{ min: 0 }] }],
    ];
    for (const refine of others) {
      expect(await split('hour', '', range, { refine })).toBeNull();
      expect(await split('day', '', range, { refine })).toBeNull();
    }
  });

  it('reads the hourly rollup only in zones whose offset is whole hours over the range', async () => {
    expect(await split('hour', '', range, { timeZone: 'Asia/Kolkata' })).toBeNull();
    expect(await split('day', '', range, { timeZone: 'Asia/Kolkata' })).not.toBeNull();
    expect(await split('hour', '', range, { timeZone: 'Asia/Seoul' })).not.toBeNull();
    // Lord Howe Island: +11 in its summer, +10:30 from the first Sunday of April (5 April 2026).
    const lordHowe = 'Australia/Lord_Howe';
    expect(wholeHourOffsets(lordHowe, new Date('2026-01-10T00:00Z'), new Date('2026-03-30T00:00Z'))).toBe(
      true,
    );
    expect(wholeHourOffsets(lordHowe, new Date('2026-03-20T00:00Z'), new Date('2026-04-20T00:00Z'))).toBe(
      false,
    );
    expect(wholeHourOffsets(lordHowe, new Date('2026-03-20T00:00Z'), new Date('2026-04-04T16:00Z'))).toBe(
      false,
    );
    expect(wholeHourOffsets('UTC', new Date('2026-01-01T00:00Z'), new Date('2027-01-01T00:00Z'))).toBe(true);
  });
});

describe('which per-author figures author_post_times serves', () => {
  const serves = async (query: string, range: [string, string], refine: Refine[] = []) => {
    const context = await contextOf(query, range, { refine });
    return authorTimesServe(context, context.scope.from, context.scope.to);
  };
  const long: [string, string] = ['2026-10-01T00:00:00Z', '2026-10-20T13:37:00Z'];

  it('serves ranges of at least AUTHOR_TIMES_MIN_DAYS, to the microsecond, in any zone', async () => {
    const from = '2026-10-01T00:00:00.000Z';
    const days = (n: number) => new Date(Date.parse(from) + n * 86_400_000).toISOString();
    expect(await serves('', [from, days(AUTHOR_TIMES_MIN_DAYS)])).toBe(true);
    expect(await serves('', [from, days(AUTHOR_TIMES_MIN_DAYS - 0.001)])).toBe(false);
    const kolkata = await contextOf('', long, { timeZone: 'Asia/Kolkata' });
    expect(authorTimesServe(kolkata, kolkata.scope.from, kolkata.scope.to)).toBe(true);
  });

  it('serves platform: and lang:, and platform and language refinements, nothing else', async () => {
    expect(await serves('lang:en OR (platform:reddit AND NOT lang:ko)', long)).toBe(true);
    expect(await serves('', long, [{ field: 'platform', values: ['x'], exclude: true }])).toBe(true);
    expect(await serves('', long, [{ field: 'language', values: ['en'] }])).toBe(true);
    for (const query of ['nova', 'platform:x nova', 'author:someone', 'country:KR', '#matcha']) {
      expect(await serves(query, long), query).toBe(false);
    }
    for (const refine of [
      { field: 'date', bucket: 'day', values: ['2026-10-05T04:00:00.000Z'] },
      { field: 'followers', values: [{ min: 0 }] },
      { field: 'sentiment', values: ['positive'] },
    ] as Refine[]) {
      expect(await serves('', long, [refine]), refine.field).toBe(false);
    }
  });
});

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

const RANGE = { from: '2026-10-25T13:37:00Z', to: '2026-11-08T05:12:30Z' };

/** Fractions to 12 significant digits: sums taken in another order differ in their last bits. */
function rounded(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? value : Number(value.toPrecision(12));
  if (Array.isArray(value)) return value.map(rounded);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, rounded(v)]));
  }
  return value;
}

/** A dashboard's figures (not its `counted` sentence, which names the refinement), fractions rounded. */
async function figures(url: string, query: string, refine: Refine[] = []) {
  const response = await as(server, viewer, {
    method: 'POST',
    url: `/social/insights/${url}`,
    payload: { workspace_id: workspaceId, query, filters: RANGE, refine },
  });
  expect(response.statusCode, response.body).toBe(200);
  // A cursor carries a fingerprint of the refinements too.
  const { counted: _counted, next_cursor: _cursor, ...rest } = response.json() as Record<string, unknown>;
  return rounded(rest);
}

/**
 * A refinement every post matches (every author has 0 or more followers) that neither the rollups nor
 * author_post_times serve. RANGE is longer than AUTHOR_TIMES_MIN_DAYS.
 */
const THROUGH_POSTS: Refine[] = [{ field: 'followers', values: [{ min: 0 }] }];

const DASHBOARDS = [
  'overview',
  'performance',
  'conversation',
  'posts',
  'filtered-posts',
  'people',
  'filtered-profiles',
];

async function expectRollupsEqualPosts() {
  for (const query of ['', 'platform:x OR lang:es']) {
    for (const url of DASHBOARDS) {
      expect(await figures(url, query), `${url} ${query}`).toEqual(await figures(url, query, THROUGH_POSTS));
    }
  }
}

describe('the change path keeps the rollups and author_post_times equal to a recount of the posts', () => {
  it('after the corpus went in', async () => {
    expect((await counts()).hours).toBeGreaterThan(0);
    expect((await counts()).authors).toBeGreaterThan(0);
    expect(await rollupDifferences(server.db)).toEqual(NONE);
    await expectRollupsEqualPosts();
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
    await expectRollupsEqualPosts();
  });

  it('after followers change (to and from none) and posts are deleted', async () => {
    await updateProfiles(server.db, 'id % 2 = 0', 'followers = followers * 3 + 11');
    await updateProfiles(server.db, 'id % 3 = 0', 'followers = 0');
    await updateProfiles(server.db, 'id % 3 = 0 AND id % 2 = 0', 'followers = 5');
    await deletePosts(server.db, 'id % 9 = 4');
    expect(await rollupDifferences(server.db)).toEqual(NONE);
    await expectRollupsEqualPosts();
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
    await expectRollupsEqualPosts();
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
