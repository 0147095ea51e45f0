// The generator against a real PostgreSQL: COPY round trip, determinism (checksum), refuse/replace/append, demo seed.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadServerConfig } from '@server/config';
import { seedDemoCorpus } from '@server/seed';
import { corpusChecksum } from '@server/social/corpus/checksum';
import { poolOf } from '@server/social/corpus/copy';
import { CorpusLoadError, generateCorpus } from '@server/social/corpus/generate/load';
import { planCorpus } from '@server/social/corpus/generate/plan';
import { createTestServer, type TestServer } from '@test/support/server-harness';

const END = Date.UTC(2025, 5, 1);
const OPTIONS = { seed: 7, posts: 2_000, end: END, batchSize: 700 };

let server: TestServer;
let pool: pg.Pool;

beforeAll(async () => {
  server = await createTestServer();
  pool = poolOf(server.db);
});
afterAll(() => server.close());

describe('corpus generator (PostgreSQL)', () => {
  let first: Awaited<ReturnType<typeof corpusChecksum>>;

  it('loads profiles then posts, in batches, and stores exactly what was generated', async () => {
    const result = await generateCorpus(pool, OPTIONS);
    expect(result).toMatchObject({ loaded: true, posts: 2_000, profiles: 214 });
    first = await corpusChecksum(pool);
    expect(first).toMatchObject({ posts: 2_000, profiles: 214 });

    const plan = planCorpus(OPTIONS);
    const expected = [...plan.posts()].filter((p) => p.text.includes('\n')).slice(0, 20);
    expect(expected.length).toBeGreaterThan(0);
    const { rows } = await pool.query<{
      external_id: string;
      text: string;
      posted_at: Date;
      hashtags: string[];
      sentiment: number;
      engagement: number;
      likes: number;
      comments: number;
      shares: number;
      handle: string;
    }>(
      `SELECT p.external_id, p.text, p.posted_at, p.hashtags, p.sentiment, p.engagement, p.likes, p.comments,
              p.shares, a.handle
         FROM posts p JOIN profiles a ON a.id = p.author_id WHERE p.external_id = ANY($1)`,
      [expected.map((p) => p.externalId)],
    );
    const byId = new Map(rows.map((r) => [r.external_id, r]));
    for (const post of expected) {
      const stored = byId.get(post.externalId)!;
      expect(stored.text).toBe(post.text);
      expect(stored.posted_at.getTime()).toBe(post.postedAt);
      expect(stored.hashtags).toEqual(post.hashtags);
      expect(stored.sentiment).toBeCloseTo(post.sentiment, 4);
      expect(stored.engagement).toBe(stored.likes + stored.comments + stored.shares);
      expect(stored.handle).toBe(plan.profiles[post.authorIndex]!.handle);
    }
    const mentioning = await pool.query(
      `SELECT count(*)::int AS n FROM posts WHERE text ILIKE '%cloudnest%'`,
    );
    expect(mentioning.rows[0].n).toBeGreaterThan(0);
  });

  it('stores the posts in the order they were posted, as a collector would', async () => {
    // The generator draws them in another order (checked, so this test cannot pass by accident).
    const drawn = [...planCorpus(OPTIONS).posts()].map((p) => p.postedAt);
    expect(drawn.some((time, i) => i > 0 && time < drawn[i - 1]!)).toBe(true);
    const { rows } = await pool.query<{ out_of_order: number; physical: number }>(
      `SELECT count(*) FILTER (WHERE posted_at < before)::int AS out_of_order,
              count(*) FILTER (WHERE ctid < ctid_before)::int AS physical
         FROM (SELECT posted_at, ctid, lag(posted_at) OVER (ORDER BY id) AS before,
                      lag(ctid) OVER (PARTITION BY tableoid ORDER BY id) AS ctid_before FROM posts) t`,
    );
    // Ids follow time exactly; pages nearly so within each month's partition (each batch, written to every month it
    // spans, may first fill the room the free space map shows on that month's earlier pages).
    expect(rows[0]!.out_of_order).toBe(0);
    expect(rows[0]!.physical).toBeLessThan(OPTIONS.posts / 50);
  });

  it('refuses to add to a corpus that is not empty, with a clear message', async () => {
    await expect(generateCorpus(pool, OPTIONS)).rejects.toThrow(CorpusLoadError);
    await expect(generateCorpus(pool, OPTIONS)).rejects.toThrow(/not empty.*--replace.*--append/);
  });

  it('gives the same corpus again with the same seed and --replace', async () => {
    await generateCorpus(pool, { ...OPTIONS, batchSize: 2_000, mode: 'replace' });
    expect(await corpusChecksum(pool)).toEqual(first);
  });

  it('appends another seed (sharing the brand accounts) but not the same seed twice', async () => {
    await expect(generateCorpus(pool, { ...OPTIONS, mode: 'append' })).rejects.toThrow(
      /already in the corpus/,
    );
    await generateCorpus(pool, { ...OPTIONS, seed: 8, posts: 300, mode: 'append' });
    const counts = await corpusChecksum(pool);
    expect(counts.posts).toBe(2_300);
    const brand = await pool.query(`SELECT count(*)::int AS n FROM profiles WHERE handle = 'novamobile'`);
    expect(brand.rows[0].n).toBe(1);
  });

  it('loads nothing in if-empty mode when there are posts', async () => {
    const result = await generateCorpus(pool, { ...OPTIONS, mode: 'if-empty' });
    expect(result.loaded).toBe(false);
    expect((await corpusChecksum(pool)).posts).toBe(2_300);
  });
});

describe('demo corpus at start', () => {
  it('seeds CORPUS_DEMO_POSTS posts into an empty corpus, once; 0 turns it off', async () => {
    const fresh = await createTestServer();
    try {
      const freshPool = poolOf(fresh.db);
      const off = loadServerConfig({ APP_ENV: 'qa', DEV_OIDC: 'false', CORPUS_DEMO_POSTS: '0' });
      expect(await seedDemoCorpus(freshPool, off)).toMatchObject({ seeded: false });
      const config = loadServerConfig({ APP_ENV: 'qa', DEV_OIDC: 'false', CORPUS_DEMO_POSTS: '1500' });
      expect(await seedDemoCorpus(freshPool, config)).toMatchObject({ seeded: true, posts: 1_500 });
      expect(await seedDemoCorpus(freshPool, config)).toMatchObject({ seeded: false });
      expect((await corpusChecksum(freshPool)).posts).toBe(1_500);
      expect(loadServerConfig({}).CORPUS_DEMO_POSTS).toBe(30_000);
    } finally {
      await fresh.close();
    }
  });
});
