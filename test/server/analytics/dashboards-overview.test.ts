// The overview's figures from the store against PostgreSQL's overview(), field by field, on one corpus: every zone
// and range (hours across both DST changes of New York and Chatham's quarter-hour one, a half-hour zone, days, weeks),
// the platform and language filters, field queries, and every refinement with and without exclude. Sums of sentiment
// may differ in their last bits (added in another order); every other figure is exact.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { storeOverview } from '@server/analytics/insights/overview';
import { timeKey } from '@server/analytics/insights/time';
import { overview } from '@server/social/insights/overview';
import { bucketFor } from '@server/social/insights/time';
import {
  contextOf,
  expectClose,
  listRefinements,
  matchOf,
  openBench,
  picksOf,
  RANGES,
  refinements,
  ZONES,
  type Bench,
  TYPED_QUERIES,
  type Case,
  type Picks,
} from './dashboards.fixtures';

let bench: Bench;
let picks: Picks;
/** Posts each refinement kept, over every scope: each must keep some somewhere, or it tested nothing. */
const kept = new Map<string, number>();

beforeAll(async () => {
  bench = await openBench();
  picks = await picksOf(bench.server);
}, 240_000);
afterAll(() => bench?.close());

async function compare(c: Case) {
  const context = await contextOf(bench.server, c);
  const { from, to } = context.scope;
  const bucket = bucketFor(from, to);
  const [pg, store] = [
    await overview(bench.server.db, context),
    await storeOverview(bench.store, { context, match: await matchOf(bench.server, context) }, bucket, 5),
  ];
  const period = (cur: boolean) =>
    store.periods.find((p) => p.cur === cur) ?? { mentions: 0, authors: 0, engagement: 0, reach: 0 };
  const [now, before] = [period(true), period(false)];
  expect({
    mentions: [now.mentions, before.mentions],
    authors: [now.authors, before.authors],
    engagement: [now.engagement, before.engagement],
    reach: [now.reach, before.reach],
  }).toEqual({
    mentions: [pg.totals.mentions.value, pg.totals.mentions.previous],
    authors: [pg.totals.unique_authors.value, pg.totals.unique_authors.previous],
    engagement: [pg.totals.engagement.value, pg.totals.engagement.previous],
    reach: [pg.totals.reach.value, pg.totals.reach.previous],
  });
  expect(store.buckets.map(({ sentiment_sum: _, ...b }) => b)).toEqual(
    pg.over_time.map(({ local, mentions, engagement, positive, neutral, negative }) => ({
      local,
      mentions,
      engagement,
      positive,
      neutral,
      negative,
    })),
  );
  store.buckets.forEach((b, i) =>
    expectClose(
      b.mentions ? b.sentiment_sum / b.mentions : null,
      pg.over_time[i]!.average_sentiment,
      b.local,
    ),
  );
  expect(store.platforms).toEqual(pg.platforms.map(({ platform, mentions }) => ({ platform, mentions })));
  expect(store.top_posts.map((p) => p.id)).toEqual(pg.top_posts.map((p) => p.id));
  expect(store.top_people.map((p) => [Number(p.author_id), p.mentions, p.engagement])).toEqual(
    pg.top_people.map((p) => [p.id, p.mentions, p.engagement]),
  );
  return pg;
}

describe('the overview from the store equals PostgreSQL', () => {
  const plain: Case[] = ZONES.flatMap((zone) =>
    Object.entries(RANGES).map(([name, range]) => ({ name: `${zone}, ${name}`, zone, range })),
  );
  it.each(plain)('every post: $name', async (c) => {
    const pg = await compare(c);
    if (c.range === RANGES['30 days of days']) expect(pg.totals.mentions.value).toBeGreaterThan(300);
  });

  const filtered: Case[] = [
    {
      name: 'platforms x and tiktok',
      zone: 'America/New_York',
      range: RANGES['30 days of days']!,
      platforms: ['x', 'tiktok'],
    },
    {
      name: 'language en, hours',
      zone: 'Asia/Kolkata',
      range: RANGES['a day of hours over the clocks going back']!,
      languages: ['en'],
    },
  ];
  const queries: Case[] = ['platform:x OR #launch', 'NOT lang:en', '@alice AND NOT platform:instagram'].map(
    (query) => ({ name: query, zone: 'America/New_York', range: RANGES['120 days of weeks']!, query }),
  );
  it.each([...filtered, ...queries])('$name', async (c) => {
    await compare(c);
  });

  const typed: Case[] = TYPED_QUERIES.flatMap((query) => [
    { name: `${query}, 30 days`, zone: 'America/New_York', range: RANGES['30 days of days']!, query },
    { name: `${query}, weeks`, zone: 'Asia/Kolkata', range: RANGES['120 days of weeks']!, query },
  ]);
  let typedMentions = 0;
  it.each(typed)('typed query $name', async (c) => {
    const pg = await compare(c);
    typedMentions += pg.totals.mentions.value;
  });
  it('compared typed queries on posts they match', () => expect(typedMentions).toBeGreaterThan(100));

  const scopes: Array<[string, [string, string]]> = [
    ['America/New_York', RANGES['30 days of days']!],
    ['Pacific/Chatham', RANGES['hours over Chatham going forward']!],
    ['Asia/Kolkata', RANGES['a week at odd bounds']!],
  ];
  it.each(scopes)('every refinement with and without exclude: %s', async (zone, range) => {
    for (const refine of refinements(zone, picks)) {
      for (const exclude of [false, true]) {
        const name = `${refine.field}${'bucket' in refine ? ` ${refine.bucket}` : ''}${exclude ? ' excluded' : ''}`;
        const pg = await compare({ name, zone, range, refine: [{ ...refine, exclude }] }).catch(
          (error: Error) => {
            error.message = `${name}: ${error.message}`;
            throw error;
          },
        );
        kept.set(name, (kept.get(name) ?? 0) + pg.totals.mentions.value + pg.totals.mentions.previous);
      }
    }
  });

  it("a text query refined by a hashtag, mention or domain, with and without exclude (its token slices' tags)", async () => {
    const statements = vi.spyOn(bench.store, 'query');
    const refined = new Map<string, number>();
    for (const query of ['nova', '"midnight harbor"'])
      for (const refine of await listRefinements(bench.server))
        for (const exclude of [false, true]) {
          const name = `${query}, ${refine.field}${exclude ? ' excluded' : ''}`;
          const pg = await compare({
            name,
            zone: 'Asia/Kolkata',
            range: RANGES['120 days of weeks']!,
            query,
            refine: [{ ...refine, exclude }],
          }).catch((error: Error) => {
            error.message = `${name}: ${error.message}`;
            throw error;
          });
          refined.set(name, pg.totals.mentions.value + pg.totals.mentions.previous);
        }
    // Every statement of the twelve overviews looked for the refinement in the token rows' tags.
    expect(
      statements.mock.calls.filter(([sql]) => sql.includes('hasAny(p.tags')).length,
    ).toBeGreaterThanOrEqual(12);
    statements.mockRestore();
    for (const list of ['hashtag', 'mention', 'domain'])
      expect(
        [...refined]
          .filter(([name]) => name.endsWith(`, ${list}`))
          .reduce((sum, [, posts]) => sum + posts, 0),
        list,
      ).toBeGreaterThan(0);
  });

  it('compared every refinement on posts it keeps', () => {
    expect(kept.size).toBe(30);
    for (const [name, posts] of kept) expect(posts, name).toBeGreaterThan(0);
  });
});

describe('how the store groups time', () => {
  const range = (from: string, to: string) => [new Date(from), new Date(to)] as const;
  it('groups by quarter where every quarter lies in one wall-clock hour, else by second', () => {
    expect(timeKey('Pacific/Chatham', ...range('2026-09-01T00:00:00Z', '2026-10-01T00:00:00Z')).key).toBe(
      'p.q',
    );
    expect(timeKey('Asia/Kolkata', ...range('2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z')).key).toBe('p.q');
    // Madras time, +5:21:10, until 1942 (the zone's rules are Intl's).
    expect(timeKey('Asia/Kolkata', ...range('1900-01-01T00:00:00Z', '1900-01-03T00:00:00Z')).key).toBe(
      'intDiv(p.ts, 1000)',
    );
  });
});
