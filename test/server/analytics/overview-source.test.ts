// The overview answers from the analytics store when the store holds exactly the corpus version PostgreSQL's
// snapshot sees, and the answer is the same as PostgreSQL's, field by field; a store that is behind (or not ready) is
// not read, and the answer comes from PostgreSQL. Through the dashboard route too: the running service is what the
// route reads.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AnalyticsService } from '@server/analytics/service';
import { generateCorpus } from '@server/social/corpus/generate/load';
import { overview } from '@server/social/insights/overview';
import { insertPosts } from '@server/social/corpus/changes';
import { insertCorpus } from '@test/support/insights.fixtures';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { contextOf, RANGES, rounded, TYPED_QUERIES, type Case, storeBehind } from './dashboards.fixtures';

let server: TestServer;
let dataDir: string;
let service: AnalyticsService;

beforeAll(async () => {
  server = await createTestServer();
  await generateCorpus(server.pool, {
    seed: 31,
    posts: 2_000,
    end: Date.UTC(2026, 10, 15),
    batchSize: 1_000,
  });
  await insertCorpus(server);
  dataDir = mkdtempSync(join(tmpdir(), 'murmur-overview-source-'));
  service = AnalyticsService.start({ db: server.db, pool: server.pool, dataDir, log: () => {} });
  await service.caughtUpOnce();
}, 240_000);
afterAll(async () => {
  await service?.stop();
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const cases: Case[] = [
  { name: 'every post, 30 days', zone: 'America/New_York', range: RANGES['30 days of days']! },
  {
    name: 'every post, hours over DST',
    zone: 'America/New_York',
    range: RANGES['hours over the clocks going forward']!,
  },
  ...TYPED_QUERIES.map((query) => ({
    name: query,
    zone: 'Asia/Kolkata',
    range: RANGES['120 days of weeks']!,
    query,
  })),
];

describe('the overview from the analytics store', () => {
  it.each(cases)('equals PostgreSQL’s answer, read from the store: $name', async (c) => {
    const context = await contextOf(server, c);
    const query = vi.spyOn(service.store!, 'query');
    const fromStore = await overview(server.db, context, service);
    expect(query).toHaveBeenCalled();
    query.mockRestore();
    expect(rounded(fromStore)).toEqual(rounded(await overview(server.db, context)));
  });

  it('is not read when it is behind PostgreSQL: the answer comes from PostgreSQL', async () => {
    const context = await contextOf(server, cases[0]!);
    const behind = storeBehind(service);
    const query = vi.spyOn(service.store!, 'query');
    const answer = await overview(server.db, context, behind);
    expect(query).not.toHaveBeenCalled();
    query.mockRestore();
    expect(answer).toEqual(await overview(server.db, context));
  });
});

describe('the overview from the analytics store after rounds that change posts', () => {
  it('equals PostgreSQL’s answer with the changed posts’ columns read from the delta', async () => {
    const version = async () =>
      Number((await server.pool.query<{ v: string }>('SELECT version AS v FROM corpus_state')).rows[0]!.v);
    // Changed, moved, deleted and new posts of the typed queries' terms, each write its own round.
    await server.pool.query(
      `SELECT corpus_update_posts('text ILIKE ''%nova%'' AND id % 3 = 0', 'likes = likes + 7, shares = shares + 1')`,
    );
    await server.pool.query(
      `SELECT corpus_update_posts('text ILIKE ''%cloudnest%'' AND id % 4 = 1',
        'posted_at = posted_at - interval ''9 days'', sentiment = -sentiment')`,
    );
    await server.pool.query(`SELECT corpus_delete_posts('text ILIKE ''%nova%'' AND id % 5 = 2')`);
    const { rows } = await server.pool.query<{ id: string }>('SELECT id FROM profiles ORDER BY id LIMIT 1');
    await insertPosts(server.db, [
      {
        platform: 'x',
        externalId: 'delta-nova',
        authorId: Number(rows[0]!.id),
        text: 'nova launch night, cloudnest outage',
        language: 'en',
        postedAt: new Date(Date.UTC(2026, 9, 20, 12)),
        kind: 'original',
        media: 'text',
        likes: 40,
        comments: 3,
        shares: 2,
        views: 900,
        hashtags: [],
        mentions: [],
        domains: [],
        sentiment: 0.5,
        sentimentLabel: 'positive',
      },
    ]);
    const target = await version();
    while ((await service.caughtUpOnce()).corpusVersion < target);
    const [delta] = await service.store!.query<{ n: string }>('SELECT count() AS n FROM murmur.posts_delta');
    expect(Number(delta!.n)).toBeGreaterThan(0);
    for (const c of cases.filter((c) => c.query === 'nova' || c.query?.includes('cloudnest'))) {
      const context = await contextOf(server, c);
      const query = vi.spyOn(service.store!, 'query');
      const fromStore = await overview(server.db, context, service);
      expect(query).toHaveBeenCalled();
      query.mockRestore();
      expect(rounded(fromStore)).toEqual(rounded(await overview(server.db, context)));
    }
  });
});
