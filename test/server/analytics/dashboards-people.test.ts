// The people and performance dashboards' figures from the store against PostgreSQL's people() and performance(),
// field by field, on the corpus of dashboards.fixtures.ts: every zone and range, the filters, field queries and every
// refinement with and without exclude. Averages of sentiment and the engagement rate (float sums added in another
// order) within a relative 1e-9; everything else exact.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEDIA_VALUES, POST_KIND_VALUES } from '@contract/social-posts';
import { PLATFORM_VALUES } from '@contract/social-scope';
import { storePeople } from '@server/analytics/insights/people';
import { storePerformance, type StorePerformanceRow } from '@server/analytics/insights/performance';
import { people } from '@server/social/insights/people';
import { performance } from '@server/social/insights/performance';
import {
  contextOf,
  expectClose,
  matchOf,
  openBench,
  picksOf,
  RANGES,
  typedCases,
  refinements,
  ZONES,
  type Bench,
  type Case,
  type Picks,
} from './dashboards.fixtures';

let bench: Bench;
let picks: Picks;

beforeAll(async () => {
  bench = await openBench();
  picks = await picksOf(bench.server);
}, 240_000);
afterAll(() => bench?.close());

const LIMIT = 7;

async function comparePeople(c: Case) {
  const context = await contextOf(bench.server, c);
  const pg = await people(bench.server.db, context, LIMIT);
  const store = await storePeople(
    bench.store,
    { context, match: await matchOf(bench.server, context) },
    LIMIT,
  );
  expect(store.authors).toBe(pg.unique_authors);
  expect(store.authors ? store.posts / store.authors : null).toBe(pg.average_mentions_per_author);
  for (const key of ['by_mentions', 'by_followers', 'by_engagement'] as const) {
    expect(
      store[key].map((p) => [Number(p.author_id), p.mentions, p.engagement]),
      key,
    ).toEqual(pg[key].map((p) => [p.id, p.mentions, p.engagement]));
  }
  return pg.unique_authors;
}

async function comparePerformance(c: Case) {
  const context = await contextOf(bench.server, c);
  const pg = await performance(bench.server.db, context);
  const rows = await storePerformance(bench.store, { context, match: await matchOf(bench.server, context) });
  const metrics = (row: StorePerformanceRow | undefined) => ({
    posts: row?.posts ?? 0,
    likes: row?.likes ?? 0,
    comments: row?.comments ?? 0,
    shares: row?.shares ?? 0,
    views: row?.views ?? 0,
    engagement: row?.engagement ?? 0,
  });
  const exact = ({ posts, likes, comments, shares, views, engagement }: ReturnType<typeof metrics>) => ({
    posts,
    likes,
    comments,
    shares,
    views,
    engagement,
  });
  const total = rows.find((g) => g.gp && g.gm && g.gk && g.gd);
  expect(metrics(total)).toEqual(exact(pg.totals));
  expectClose(total?.rate ?? null, pg.totals.engagement_rate, 'rate');
  expectClose(total?.sentiment ?? null, pg.totals.average_sentiment, 'sentiment');
  for (const platform of PLATFORM_VALUES) {
    const row = rows.find((g) => !g.gp && g.platform === platform);
    const want = pg.by_platform.find((p) => p.platform === platform)!;
    expect(metrics(row), platform).toEqual(exact(want));
    expectClose(row?.rate ?? null, want.engagement_rate, platform);
  }
  for (const media of MEDIA_VALUES)
    expect(metrics(rows.find((g) => !g.gm && g.media === media))).toEqual(
      exact(pg.by_media.find((p) => p.media === media)!),
    );
  for (const kind of POST_KIND_VALUES)
    expect(metrics(rows.find((g) => !g.gk && g.kind === kind))).toEqual(
      exact(pg.by_kind.find((p) => p.kind === kind)!),
    );
  const cells = pg.best_time.map(({ day, hour }) => {
    const cell = rows.find((g) => !g.gd && g.dow === day && g.hr === hour);
    return {
      day,
      hour,
      posts: cell?.posts ?? 0,
      average_engagement: cell ? cell.engagement / cell.posts : null,
    };
  });
  expect(cells).toEqual(pg.best_time);
  return pg.totals.posts;
}

const plain: Case[] = ZONES.flatMap((zone) =>
  Object.entries(RANGES).map(([name, range]) => ({ name: `${zone}, ${name}`, zone, range })),
);
const others: Case[] = [
  {
    name: 'platforms x and tiktok',
    zone: 'America/New_York',
    range: RANGES['30 days of days']!,
    platforms: ['x', 'tiktok'],
  },
  { name: 'language en', zone: 'Asia/Kolkata', range: RANGES['120 days of weeks']!, languages: ['en'] },
  {
    name: 'platform:x OR #launch',
    zone: 'Pacific/Chatham',
    range: RANGES['120 days of weeks']!,
    query: 'platform:x OR #launch',
  },
  ...typedCases('America/New_York'),
];
const refined = (zone: string, range: [string, string]) =>
  refinements(zone, picks).flatMap((refine) =>
    [false, true].map((exclude) => ({
      name: `${refine.field} ${exclude}`,
      zone,
      range,
      refine: [{ ...refine, exclude }],
    })),
  );

describe('people from the store equal PostgreSQL', () => {
  it.each([...plain, ...others])('$name', async (c) => {
    await comparePeople(c);
  });
  it('with every refinement, with and without exclude', async () => {
    for (const c of refined('America/New_York', RANGES['30 days of days']!))
      await comparePeople(c).catch((error: Error) => {
        error.message = `${c.name}: ${error.message}`;
        throw error;
      });
  });
});

describe('performance from the store equals PostgreSQL', () => {
  it.each([...plain, ...others])('$name', async (c) => {
    await comparePerformance(c);
  });
  it('with every refinement, with and without exclude', async () => {
    for (const c of [
      ...refined('America/New_York', RANGES['30 days of days']!),
      ...refined('Pacific/Chatham', RANGES['hours over Chatham going forward']!),
    ])
      await comparePerformance(c).catch((error: Error) => {
        error.message = `${c.name}: ${error.message}`;
        throw error;
      });
  });
});
