// The scraping page's corpus totals from the store (server/analytics/figures/totals.ts, through corpusTotals): the
// posts per platform and UTC day over the last days, and per platform in all, against the posts themselves counted
// here (not PostgreSQL's daily rollup, which they no longer read). Posts around midnight UTC, of today, of years ago
// and of tomorrow. Without a store, a 503.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AnalyticsService } from '@server/analytics/service';
import { corpusTotals } from '@server/scraping/store';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import { insertCorpus } from '@test/support/insights.fixtures';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { runningService, watchedService } from './dashboards.fixtures';

let server: TestServer;
let service: AnalyticsService;
let closeService: () => Promise<void>;

const DAY_MS = 86_400_000;
const PLATFORMS = ['x', 'reddit', 'youtube'] as const;

beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  await insertCorpus(server);
  const [author] = await insertProfiles(server.db, [
    { platform: 'x', externalId: 'totals', handle: 'totals', displayName: 'Totals', followers: 1 },
  ]);
  const midnight = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  // A millisecond either side of the last midnights, this hour, 3 years ago and tomorrow.
  const instants = [
    ...[0, 1, 2, 5].flatMap((days) => [midnight - days * DAY_MS - 1, midnight - days * DAY_MS]),
    Date.now() - 60_000,
    midnight - 3 * 365 * DAY_MS,
    midnight + DAY_MS + 3_600_000,
  ];
  await insertPosts(
    server.db,
    instants.map((at, i) => ({
      platform: PLATFORMS[i % PLATFORMS.length]!,
      externalId: `totals-${i}`,
      authorId: author!,
      text: 'counted',
      language: 'en',
      postedAt: new Date(at),
      likes: 0,
      comments: 0,
      shares: 0,
      sentiment: 0,
      sentimentLabel: 'neutral' as const,
    })),
  );
  const running = await runningService(server, 'totals');
  service = running.service;
  closeService = running.close;
}, 240_000);
afterAll(async () => {
  await closeService?.();
  await server?.close();
});

it('counts the posts per platform and UTC day, and per platform in all, from the store', async () => {
  const { rows } = await server.pool.query<{ platform: string; at: number }>(
    `SELECT platform, (extract(epoch FROM posted_at) * 1000)::float8 AS at FROM posts`,
  );
  const days = 60;
  const first = (Math.floor(Date.now() / DAY_MS) - (days - 1)) * DAY_MS;
  const dayList = Array.from({ length: days }, (_, i) =>
    new Date(first + i * DAY_MS).toISOString().slice(0, 10),
  );
  const recent = new Map<string, number[]>();
  const allTime = new Map<string, number>();
  for (const { platform, at } of rows) {
    allTime.set(platform, (allTime.get(platform) ?? 0) + 1);
    if (at < first) continue;
    const series = recent.get(platform) ?? dayList.map(() => 0);
    const day = dayList.indexOf(new Date(at).toISOString().slice(0, 10));
    if (day >= 0) series[day]! += 1;
    recent.set(platform, series);
  }

  const statements: string[] = [];
  const totals = await corpusTotals(server.db, days, watchedService(service, statements));
  expect(statements).toHaveLength(1);
  expect(totals.days).toEqual(dayList);
  expect(
    Object.fromEntries(totals.platforms.map(({ platform, posts, total }) => [platform, { posts, total }])),
  ).toEqual(
    Object.fromEntries(
      [...recent].map(([platform, posts]) => [platform, { posts, total: posts.reduce((a, b) => a + b, 0) }]),
    ),
  );
  // The most first.
  const totalsInOrder = totals.platforms.map((p) => p.total);
  expect(totalsInOrder).toEqual([...totalsInOrder].sort((a, b) => b - a));
  expect(totals.all_time).toEqual(
    [...allTime]
      .map(([platform, posts]) => ({ platform, posts }))
      .sort((a, b) => b.posts - a.posts || a.platform.localeCompare(b.platform)),
  );
  // The corpus has posts in the window, or the test would prove little.
  expect(totals.platforms.reduce((sum, p) => sum + p.total, 0)).toBeGreaterThan(10);
});

it('answers 503 figures_unavailable without a store (ANALYTICS_STORE=off), never from the rollup', async () => {
  await expect(corpusTotals(server.db, 14, undefined)).rejects.toMatchObject({
    statusCode: 503,
    code: 'figures_unavailable',
  });
});
