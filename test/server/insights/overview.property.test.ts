// The overview's, the people dashboard's and the performance dashboard's figures from the store held to the reference
// evaluator (test/support/reference/figures.ts), field by field: on a generated corpus written through the change path
// and fed to a running store, for generated scopes (four zones, ranges of hours across New York's and Chatham's DST
// changes, days, weeks and odd bounds; a query of every operator or none; platforms and languages; every refinement,
// with and without exclude; the workspace's sentiment corrections or none). Sums of sentiment and engagement rates may
// differ in their last bits (added in another order).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Refine } from '@contract/insights';
import { instantOfWallClock } from '@contract/zoned-time';
import { storeMatch } from '@server/analytics/insights/match';
import { storeOverview } from '@server/analytics/insights/overview';
import { storePeople } from '@server/analytics/insights/people';
import { storePerformance } from '@server/analytics/insights/performance';
import type { AnalyticsStore } from '@server/analytics/store';
import { NO_CORRECTIONS, type Corrections } from '@server/social/corrections';
import { resolveInsightScope } from '@server/social/insights/request';
import { bucketFor } from '@server/social/insights/time';
import { bucketKey } from '@test/support/insights-brute-force';
import { generatedCorpus, queryArb, writeCorpus } from '@test/support/reference/corpus';
import {
  overviewFigures,
  peopleFigures,
  performanceGroups,
  type PerformanceGroup,
  type RefScope,
} from '@test/support/reference/figures';
import { parsed, type RefPost } from '@test/support/reference/query';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { expectClose, runningService } from '../analytics/dashboards.fixtures';

let server: TestServer;
let running: Awaited<ReturnType<typeof runningService>>;
let store: AnalyticsStore;
let posts: RefPost[];

beforeAll(async () => {
  server = await createTestServer();
  posts = await writeCorpus(server, generatedCorpus(5252, 500));
  running = await runningService(server, 'overview-property');
  store = running.service.store!;
}, 120_000);
afterAll(async () => {
  await running?.close();
  await server?.close();
});

type Label = RefPost['label'];

/** Every 5th post corrected, to each label in turn (some to the label they have). */
const correctionsOf = (all: RefPost[]): Map<number, Label> =>
  new Map(
    all
      .filter((_, i) => i % 5 === 0)
      .map((p, i) => [p.id, (['positive', 'neutral', 'negative'] as const)[i % 3]!] as const),
  );

function asCorrections(byLabel: ReadonlyMap<number, Label>): Corrections {
  if (byLabel.size === 0) return NO_CORRECTIONS;
  const ids: Corrections['ids'] = { positive: [], neutral: [], negative: [] };
  for (const [id, label] of byLabel) ids[label].push(id);
  return {
    byId: new Map(
      [...byLabel].map(([id, label]) => [
        id,
        { label, correctedBy: null, correctedAt: '2026-11-20T00:00:00.000Z' },
      ]),
    ),
    ids,
    digest: 'generated',
  };
}

const ZONES = ['UTC', 'America/New_York', 'Asia/Kolkata', 'Pacific/Chatham'];
const RANGES: Array<[string, string]> = [
  ['2026-10-31T16:00:00Z', '2026-11-01T16:00:00Z'],
  ['2026-03-07T17:00:00Z', '2026-03-09T04:00:00Z'],
  ['2026-09-26T00:00:00Z', '2026-09-27T12:00:00Z'],
  ['2026-10-10T00:00:00Z', '2026-11-09T00:00:00Z'],
  ['2026-10-28T13:37:00.000Z', '2026-11-04T08:12:30.000Z'],
  ['2026-07-15T00:00:00Z', '2026-11-12T00:00:00Z'],
];
const rangeArb = fc.oneof(
  fc.constantFrom(...RANGES.map(([from, to]) => [Date.parse(from), Date.parse(to)] as const)),
  fc
    .tuple(
      fc.integer({ min: Date.parse('2026-09-01T00:00:00Z'), max: Date.parse('2026-11-14T00:00:00Z') }),
      fc.integer({ min: 3_600_000, max: 150 * 86_400_000 }),
    )
    .map(([from, length]) => [from, from + length] as const),
);

const REFINE_FIELDS = [
  ...['author', 'date', 'followers', 'hashtag', 'hour_of_week', 'kind', 'language', 'media', 'mention'],
  ...['platform', 'sentiment', 'term'],
];

/** A refinement of each field, its values drawn from the corpus (date values: bucket starts in the zone). */
const refineArb = (zone: string, authorIds: number[]): fc.Arbitrary<Refine> => {
  const some = <T>(values: T[]) => fc.subarray(values, { minLength: 1, maxLength: 2 });
  const field: fc.Arbitrary<Refine> = fc.oneof(
    some(['x', 'instagram', 'tiktok', 'youtube', 'facebook', 'reddit'] as const).map((values) => ({
      field: 'platform' as const,
      values,
    })),
    some(['#coffee', 'LatteArt', '커피', 'tea']).map((values) => ({ field: 'hashtag' as const, values })),
    some(['@alice', 'BOB_K', 'hana']).map((values) => ({ field: 'mention' as const, values })),
    some(['Coffee', 'oat', 'été', 't', 'decaf']).map((values) => ({ field: 'term' as const, values })),
    some<number | string>([...authorIds.slice(0, 3), '@Carla', 'eve']).map((values) => ({
      field: 'author' as const,
      values,
    })),
    some(['positive', 'neutral', 'negative'] as const).map((values) => ({
      field: 'sentiment' as const,
      values,
    })),
    some(['en', 'ko', 'ja']).map((values) => ({ field: 'language' as const, values })),
    some(['text', 'image', 'video', 'link'] as const).map((values) => ({ field: 'media' as const, values })),
    some(['original', 'reply', 'repost', 'quote'] as const).map((values) => ({
      field: 'kind' as const,
      values,
    })),
    some([{ min: 1, max: 600 }, { min: 3000 }, { max: 100 }]).map((values) => ({
      field: 'followers' as const,
      values,
    })),
    fc
      .array(fc.record({ day: fc.integer({ min: 1, max: 7 }), hour: fc.integer({ min: 0, max: 23 }) }), {
        minLength: 1,
        maxLength: 3,
      })
      .map((values) => ({ field: 'hour_of_week' as const, values })),
    fc
      .tuple(fc.constantFrom('hour', 'day', 'week') as fc.Arbitrary<'hour' | 'day' | 'week'>, some(posts))
      .map(([bucket, of]) => ({
        field: 'date' as const,
        bucket,
        values: [
          ...new Set(of.map((p) => instantOfWallClock(bucketKey(p.at, zone, bucket), zone).toISOString())),
        ],
      })),
  );
  return fc.tuple(field, fc.boolean()).map(([refine, exclude]) => ({ ...refine, exclude }));
};

const caseArb = (authorIds: number[]) =>
  fc.constantFrom(...ZONES).chain((zone) =>
    fc.record({
      zone: fc.constant(zone),
      range: rangeArb,
      query: fc.option(queryArb, { freq: 2, nil: null }),
      platforms: fc.oneof(fc.constant<string[]>([]), fc.subarray(['x', 'instagram', 'tiktok', 'youtube'])),
      languages: fc.oneof(fc.constant<string[]>([]), fc.subarray(['en', 'es', 'ko', 'ja'])),
      refine: fc.array(refineArb(zone, authorIds), { maxLength: 2 }),
      corrected: fc.boolean(),
    }),
  );

type Case = ReturnType<typeof caseArb> extends fc.Arbitrary<infer C> ? C : never;

/** A generated case as the reference's scope and as the request's, resolved as a dashboard resolves it. */
async function scopesOf(c: Case, corrections: ReadonlyMap<number, Label>) {
  const [from, to] = c.range;
  const scope: RefScope = {
    zone: c.zone,
    from,
    to,
    query: c.query === null ? null : parsed(c.query),
    platforms: c.platforms,
    languages: c.languages,
    refine: c.refine,
    corrections: c.corrected ? corrections : new Map(),
  };
  const context = await resolveInsightScope(
    server.db,
    { timeZone: c.zone },
    {
      workspace_id: 'w',
      query: c.query ?? '',
      filters: {
        from: new Date(from).toISOString(),
        to: new Date(to).toISOString(),
        platforms: c.platforms as never,
        languages: c.languages,
      },
      refine: c.refine,
    },
    undefined,
    asCorrections(scope.corrections),
  );
  return { scope, context, match: await storeMatch(server.pool, context.scope.query) };
}

describe("the store's overview, people and performance equal the reference's, field by field", () => {
  it("the overview's figures on generated scopes", async () => {
    const authorIds = [...new Set(posts.map((p) => p.authorId))].sort((a, b) => a - b);
    const corrections = correctionsOf(posts);
    let nonEmpty = 0;
    const refined = new Set<string>();
    await fc.assert(
      fc.asyncProperty(caseArb(authorIds), async (c) => {
        const { scope, context, match } = await scopesOf(c, corrections);
        const bucket = bucketFor(context.scope.from, context.scope.to);
        const top = 5;
        const got = await storeOverview(store, { context, match }, bucket, top);
        const expected = overviewFigures(posts, scope, bucket, top);
        if (expected.periods.some((p) => p.cur)) {
          nonEmpty += 1;
          for (const r of c.refine) refined.add(r.field);
        }
        const withoutSums = (buckets: typeof expected.buckets) =>
          buckets.map(({ sentiment_sum: _, ...b }) => b);
        expect({
          periods: got.periods,
          buckets: withoutSums(got.buckets),
          platforms: got.platforms,
          top_people: got.top_people.map((p) => ({ ...p, author_id: Number(p.author_id) })),
          top_posts: got.top_posts.map((p) => p.id),
        }).toEqual({ ...expected, buckets: withoutSums(expected.buckets) });
        got.buckets.forEach((b, i) =>
          expectClose(b.sentiment_sum, expected.buckets[i]!.sentiment_sum, `sentiment of ${b.local}`),
        );
      }),
      { seed: 5253, numRuns: 130, endOnFailure: true },
    );
    // Not vacuous: most scopes hold posts, and every refinement was compared on a scope that kept some.
    expect(nonEmpty).toBeGreaterThan(40);
    expect([...refined].sort()).toEqual(REFINE_FIELDS);
  }, 120_000);

  it("the people dashboard's figures on generated scopes", async () => {
    const authorIds = [...new Set(posts.map((p) => p.authorId))].sort((a, b) => a - b);
    const corrections = correctionsOf(posts);
    let nonEmpty = 0;
    await fc.assert(
      fc.asyncProperty(caseArb(authorIds), fc.integer({ min: 1, max: 8 }), async (c, limit) => {
        const { scope, context, match } = await scopesOf(c, corrections);
        const expected = peopleFigures(posts, scope, limit);
        if (expected.authors > 1) nonEmpty += 1;
        const got = await storePeople(store, { context, match }, limit);
        expect(got).toEqual(expected);
      }),
      { seed: 5254, numRuns: 50, endOnFailure: true },
    );
    expect(nonEmpty).toBeGreaterThan(20);
  }, 90_000);

  it("the performance dashboard's groups on generated scopes", async () => {
    const authorIds = [...new Set(posts.map((p) => p.authorId))].sort((a, b) => a - b);
    const corrections = correctionsOf(posts);
    const keyOf = (g: PerformanceGroup) =>
      JSON.stringify([g.gp, g.gm, g.gk, g.gd, g.platform, g.media, g.kind, g.dow, g.hr]);
    const exact = (groups: PerformanceGroup[]) =>
      groups
        .filter((g) => g.posts > 0)
        .map(({ rate: _r, sentiment: _s, ...g }) => ({
          key: keyOf({ ...g, rate: null, sentiment: null }),
          ...g,
        }))
        .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    let grouped = 0;
    await fc.assert(
      fc.asyncProperty(caseArb(authorIds), async (c) => {
        const { scope, context, match } = await scopesOf(c, corrections);
        const expected = performanceGroups(posts, scope);
        grouped += expected.length;
        const got = await storePerformance(store, { context, match });
        // Only the groups with posts: an empty scope's grouping set () is a row of zeros or none, alike to the page.
        expect(exact(got)).toEqual(exact(expected));
        const floats = new Map(expected.map((g) => [keyOf(g), g]));
        for (const g of got.filter((row) => row.posts > 0)) {
          const want = floats.get(keyOf(g))!;
          expectClose(g.rate, want.rate, `rate of ${keyOf(g)}`);
          expectClose(g.sentiment, want.sentiment, `sentiment of ${keyOf(g)}`);
        }
      }),
      { seed: 5255, numRuns: 50, endOnFailure: true },
    );
    expect(grouped).toBeGreaterThan(500);
  }, 90_000);

  // Pacific/Chatham's clocks went from 02:45 to 03:45 on 27 September 2026 (at 14:00 UTC): the wall-clock hour 03:00
  // exists from 03:45 to 04:00, and its posts count in it (bucketStarts keeps an hour the clocks skip only part of).
  const chatham = (): RefScope => ({
    zone: 'Pacific/Chatham',
    from: Date.parse('2026-09-26T00:00:00Z'),
    to: Date.parse('2026-09-27T12:00:00Z'),
    query: null,
    platforms: [],
    languages: [],
    refine: [],
    corrections: new Map(),
  });
  it("has posts in Chatham's partial hour (03:45–04:00 on 27 September 2026)", () => {
    const expected = overviewFigures(posts, chatham(), 'hour', 5);
    expect(expected.buckets.find((b) => b.local === '2026-09-27T03:00:00')?.mentions).toBeGreaterThan(0);
  });
  it("counts the posts of Chatham's partial hour in the timeline", async () => {
    const scope = chatham();
    const context = await resolveInsightScope(
      server.db,
      { timeZone: scope.zone },
      {
        workspace_id: 'w',
        query: '',
        filters: { from: new Date(scope.from).toISOString(), to: new Date(scope.to).toISOString() },
        refine: [],
      },
      undefined,
      NO_CORRECTIONS,
    );
    const got = await storeOverview(
      store,
      { context, match: await storeMatch(server.pool, null) },
      'hour',
      5,
    );
    const expected = overviewFigures(posts, scope, 'hour', 5);
    expect(got.buckets.map((b) => [b.local, b.mentions])).toEqual(
      expected.buckets.map((b) => [b.local, b.mentions]),
    );
    // Every post in exactly one bucket: the buckets add up to the period's mentions.
    const total = got.periods.find((p) => p.cur)?.mentions ?? 0;
    expect(got.buckets.reduce((n, b) => n + b.mentions, 0)).toBe(Number(total));
  });
});
