// "Why this spike" from the store (storeDrivers, ranked by rankDrivers) held to the reference evaluator
// (test/support/reference/drivers.ts): on a generated corpus with linked domains and a planted spike (one hour of
// posts by one author with one word and one hashtag), written through the change path and fed to a running store,
// for generated scopes (a query or none, filters, refinements, corrections) over windows of an hour to a week, among
// them hours within a week after New York's and Berlin's clocks change in spring and autumn (in those zones, so that
// the same wall-clock hours of the days before are not the window moved back 24 hours: a UTC step fails them); and
// the planted spike's values come out first among its drivers.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeDrivers } from '@server/analytics/figures/drivers';
import type { AnalyticsStore } from '@server/analytics/store';
import { baselineOf, DRIVER_MIN_POSTS, rankDrivers } from '@server/social/insights/drivers';
import { STORE_WORD_RULE } from '@server/social/insights/words';
import {
  generatedCorpus,
  withDomains,
  writeCorpus,
  type GeneratedPost,
} from '@test/support/reference/corpus';
import { baselineWindows, driverFigures } from '@test/support/reference/drivers';
import { scoped } from '@test/support/reference/figures';
import type { RefPost } from '@test/support/reference/query';
import { caseArb, correctionsOf, scopesOf, type Case } from '@test/support/reference/scopes';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { expectClose, runningService } from '../analytics/dashboards.fixtures';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const SPIKE = Date.parse('2026-10-20T14:00:00Z');
/** 40 posts in one hour by dave (index 5), each saying "outage" with #down. */
const planted: GeneratedPost[] = Array.from({ length: 40 }, (_, i) => ({
  author: 5,
  at: SPIKE + i * 60_000,
  text: i % 2 ? 'outage again #down' : 'the outage #down',
  language: 'en',
  kind: 'original',
  media: 'text',
  likes: i % 7,
  comments: 0,
  shares: 0,
  views: null,
  sentiment: -0.5,
}));

/** Posts in the weeks around New York's (8 March 2026) and Berlin's (29 March) spring changes: the corpus has none. */
const SPRING: Array<[string, string]> = [
  ['2026-03-01T00:00:00Z', '2026-03-15T00:00:00Z'],
  ['2026-03-22T00:00:00Z', '2026-04-05T00:00:00Z'],
];
const spring: GeneratedPost[] = generatedCorpus(5603, 700).map((post, i) => {
  const [from, to] = SPRING[i % 2]!.map(Date.parse) as [number, number];
  return { ...post, at: from + ((post.at * 7 + i * 7_919_000) % (to - from)) };
});

let server: TestServer;
let running: Awaited<ReturnType<typeof runningService>>;
let store: AnalyticsStore;
let posts: RefPost[];

beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  posts = await writeCorpus(server, [
    ...withDomains(generatedCorpus(5600, 1500), 5601),
    ...planted,
    ...spring,
  ]);
  running = await runningService(server, 'drivers-property');
  store = running.service.store!;
}, 120_000);
afterAll(async () => {
  await running?.close();
  await server?.close();
});

const RULE = { ...STORE_WORD_RULE, minPosts: DRIVER_MIN_POSTS };

/** Every driver of the case from the store and from the reference, and the first `limit` as the route keeps them. */
async function both(c: Case, limit: number) {
  const { scope, context, match } = await scopesOf(server, c, correctionsOf(posts));
  const windows = baselineOf(context.scope.from, context.scope.to, context.timeZone);
  const count = windows.baseline.length;
  const all = await storeDrivers(store, { context, match }, windows, { ...RULE, keep: 10_000 });
  const got = rankDrivers(all.rows, all.nw, all.nb, count, 10_000);
  const cut = await storeDrivers(store, { context, match }, windows, { ...RULE, keep: 3 * limit });
  const first = rankDrivers(cut.rows, cut.nw, cut.nb, count, limit);
  const expected = driverFigures(posts, scope, DRIVER_MIN_POSTS, 10_000);
  // The baseline's posts were the window moved back 24 hours at a time.
  const utcStep = Array.from({ length: count }, (_, i) =>
    scoped(posts, scope, scope.from - (i + 1) * DAY, scope.to - (i + 1) * DAY),
  ).flat().length;
  return { counts: all, got, first, expected, windows, scope, utcStep };
}

describe("the store's drivers equal the reference's", () => {
  it('on generated scopes over windows of an hour to a week', async () => {
    let listed = 0;
    const kinds = new Set<string>();
    // Windows of hours within the corpus's dense windows (test/support/reference/corpus.ts), of days within its long one.
    const within = (from: string, to: string, lengths: number[]) =>
      fc
        .tuple(fc.integer({ min: Date.parse(from), max: Date.parse(to) }), fc.constantFrom(...lengths))
        .map(([start, length]) => [start, start + length] as const);
    const windowArb = fc.oneof(
      fc.constant([SPIKE, SPIKE + HOUR] as const),
      within('2026-11-01T03:00:00Z', '2026-11-01T07:00:00Z', [HOUR, 2 * HOUR]),
      within('2026-03-08T04:00:00Z', '2026-03-08T08:00:00Z', [HOUR, 2 * HOUR]),
      within('2026-09-26T12:00:00Z', '2026-09-26T14:00:00Z', [HOUR, 2 * HOUR]),
      within('2026-10-05T00:00:00Z', '2026-11-08T00:00:00Z', [DAY, 3 * DAY, 7 * DAY]),
    );
    // In the zone whose clocks changed: hours within the week after (the baseline's days straddle the change), and a
    // day (on the clock) that straddles it. Hours of 8 March in New York and of 29 March in Berlin skipped, of 1
    // November and 25 October repeated.
    const inZone = (zone: string, range: fc.Arbitrary<readonly [number, number]>) =>
      fc.tuple(caseArb(posts, [zone]), range).map(([c, r]) => ({ ...c, range: r }));
    const dstArb = fc.oneof(
      ...(
        [
          ['America/New_York', '2026-03-08T07:00:00Z', '2026-03-14T23:00:00Z'],
          ['America/New_York', '2026-11-01T06:00:00Z', '2026-11-07T23:00:00Z'],
          ['Europe/Berlin', '2026-03-29T01:00:00Z', '2026-04-04T23:00:00Z'],
          ['Europe/Berlin', '2026-10-25T01:00:00Z', '2026-10-31T23:00:00Z'],
        ] as const
      ).map(([zone, from, to]) => inZone(zone, within(from, to, [HOUR, 5 * HOUR, 12 * HOUR, DAY - HOUR]))),
      inZone(
        'America/New_York',
        fc.constant([Date.parse('2026-11-01T04:00:00Z'), Date.parse('2026-11-02T05:00:00Z')] as const),
      ),
      inZone(
        'Europe/Berlin',
        fc.constant([Date.parse('2026-03-28T23:00:00Z'), Date.parse('2026-03-29T22:00:00Z')] as const),
      ),
    );
    let shifted = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.tuple(caseArb(posts), windowArb).map(([c, range]) => ({ ...c, range })),
          dstArb,
        ),
        fc.integer({ min: 1, max: 12 }),
        async (c, limit) => {
          const found = await both(c, limit);
          const { counts, got, first, expected } = found;
          // The route's windows are the reference's.
          const reference = baselineWindows(found.scope);
          expect(found.windows.kind).toBe(reference.kind);
          expect(found.windows.baseline.map((w) => [w.from.getTime(), w.to.getTime()])).toEqual(
            reference.windows,
          );
          if (reference.kind === 'same_hours' && found.utcStep !== expected.nb) shifted += 1;
          expect({ nw: counts.nw, nb: counts.nb }).toEqual({ nw: expected.nw, nb: expected.nb });
          expect(got.map((d) => [d.kind, d.value, d.posts, d.baseline_posts])).toEqual(
            expected.drivers.map((d) => [d.kind, d.value, d.a, d.b]),
          );
          got.forEach((d, i) => expectClose(d.g2, expected.drivers[i]!.g2, `G² of ${d.kind} ${d.value}`));
          // The route's cut (each dimension's first 3 × limit by the store's G²) keeps the first `limit` overall.
          expect(first).toEqual(got.slice(0, limit));
          if (got.length >= 3) listed += 1;
          for (const d of got) kinds.add(d.kind);
        },
      ),
      { seed: 5602, numRuns: 150, endOnFailure: true },
    );
    // Not vacuous: a baseline moved back 24 hours at a time would have counted other posts in many cases.
    expect(shifted).toBeGreaterThan(20);
    // Not vacuous: many scopes have drivers, of every dimension.
    expect(listed).toBeGreaterThan(30);
    expect([...kinds].sort()).toEqual(
      ['author', 'domain', 'hashtag', 'language', 'mention', 'platform', 'sentiment', 'term'].sort(),
    );
  }, 180_000);

  it("puts the planted spike's word, author and hashtag first", async () => {
    const c: Case = {
      zone: 'UTC',
      range: [SPIKE, SPIKE + HOUR],
      query: null,
      platforms: [],
      languages: [],
      refine: [],
      corrected: false,
    };
    const { got, windows } = await both(c, 10);
    expect(windows.kind).toBe('same_hours');
    expect(windows.baseline.map((w) => [w.from.getTime(), w.to.getTime()])).toEqual(
      Array.from({ length: 7 }, (_, i) => [SPIKE - (i + 1) * DAY, SPIKE + HOUR - (i + 1) * DAY]),
    );
    const dave = String(posts.find((p) => p.handle === 'dave')!.authorId);
    const first = got.slice(0, 4).map((d) => `${d.kind}:${d.value}`);
    expect(first).toEqual(expect.arrayContaining(['term:outage', 'hashtag:down', `author:${dave}`]));
    const outage = got.find((d) => d.kind === 'term' && d.value === 'outage')!;
    expect(outage).toMatchObject({ posts: 40, baseline_posts: 0, expected: 0, lift: null });
    expect(outage.excess_share).toBeGreaterThan(0.9);
  });
});
