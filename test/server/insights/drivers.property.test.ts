// "Why this spike" from the store (storeDrivers, ranked by rankDrivers) held to the reference evaluator
// (test/support/reference/drivers.ts): on a generated corpus with linked domains and a planted spike (one hour of
// posts by one author with one word and one hashtag), written through the change path and fed to a running store,
// for generated scopes (a query or none, filters, refinements, corrections) over windows of an hour to a week; and
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
import { driverFigures } from '@test/support/reference/drivers';
import type { RefPost } from '@test/support/reference/query';
import { caseArb, correctionsOf, scopesOf, type Case } from '@test/support/reference/scopes';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { expectClose, runningService } from '../analytics/dashboards.fixtures';

const HOUR = 3_600_000;
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

let server: TestServer;
let running: Awaited<ReturnType<typeof runningService>>;
let store: AnalyticsStore;
let posts: RefPost[];

beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  posts = await writeCorpus(server, [...withDomains(generatedCorpus(5600, 1500), 5601), ...planted]);
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
  const windows = baselineOf(context.scope.from, context.scope.to);
  const all = await storeDrivers(store, { context, match }, windows, { ...RULE, keep: 10_000 });
  const got = rankDrivers(all.rows, all.nw, all.nb, windows.count, 10_000);
  const cut = await storeDrivers(store, { context, match }, windows, { ...RULE, keep: 3 * limit });
  const first = rankDrivers(cut.rows, cut.nw, cut.nb, windows.count, limit);
  const expected = driverFigures(posts, scope, windows, DRIVER_MIN_POSTS, 10_000);
  return { counts: all, got, first, expected, windows };
}

const DAY = 24 * HOUR;

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
    await fc.assert(
      fc.asyncProperty(
        caseArb(posts),
        windowArb,
        fc.integer({ min: 1, max: 12 }),
        async (c, range, limit) => {
          const { counts, got, first, expected } = await both({ ...c, range }, limit);
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
      { seed: 5602, numRuns: 70, endOnFailure: true },
    );
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
    expect(windows).toMatchObject({ step: 24 * HOUR, count: 7 });
    const dave = String(posts.find((p) => p.handle === 'dave')!.authorId);
    const first = got.slice(0, 4).map((d) => `${d.kind}:${d.value}`);
    expect(first).toEqual(expect.arrayContaining(['term:outage', 'hashtag:down', `author:${dave}`]));
    const outage = got.find((d) => d.kind === 'term' && d.value === 'outage')!;
    expect(outage).toMatchObject({ posts: 40, baseline_posts: 0, expected: 0, lift: null });
    expect(outage.excess_share).toBeGreaterThan(0.9);
  });
});
