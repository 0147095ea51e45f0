// Themes of a range from the store (themeRows: storeThemeWords, storeWordPairs, then the graph and its communities,
// then storeThemeFigures with its top posts) held to the reference evaluator (test/support/reference/themes.ts)
// on a generated corpus with two planted groups of words that occur together (an outage's, a pizza's), written
// through the change path and fed to a running store: the words, the pairs' posts, the graph's edges and every
// theme's words, posts, buckets, sentiment, posts before and top posts, for generated scopes (a query or none,
// filters, refinements, corrections); each planted group comes out as one theme; the same data give the same themes.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalyticsStore } from '@server/analytics/store';
import { MIN_JACCARD, MIN_PAIR_POSTS } from '@server/social/insights/theme-graph';
import { MIN_THEME_WORDS, THEME_WORDS, themeRows } from '@server/social/insights/themes';
import { bucketFor } from '@server/social/insights/time';
import {
  generatedCorpus,
  withDomains,
  writeCorpus,
  type GeneratedPost,
} from '@test/support/reference/corpus';
import { themeFigures } from '@test/support/reference/themes';
import type { RefPost } from '@test/support/reference/query';
import { caseArb, correctionsOf, scopesOf, type Case } from '@test/support/reference/scopes';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { expectClose, runningService } from '../analytics/dashboards.fixtures';

const DAY = 86_400_000;
const PLANTED_AT = Date.parse('2026-10-20T06:00:00Z');
const OUTAGE = ['outage', 'servers', 'login'];
const PIZZA = ['pizza', 'cheese', 'crust'];
/** 40 posts of each group over a day, each with two or three of its words (in varied order and case). */
const planted: GeneratedPost[] = [OUTAGE, PIZZA].flatMap((group, g) =>
  Array.from({ length: 40 }, (_, i) => ({
    author: (i + g) % 7,
    at: PLANTED_AT + i * 30 * 60_000 + g * 60_000,
    text: (i % 3 === 0
      ? group
      : i % 3 === 1
        ? [group[1]!, group[0]!]
        : [group[2]!, group[1]!.toUpperCase()]
    ).join(' '),
    language: (['en', null, 'es'] as const)[i % 3]!,
    kind: 'original',
    media: 'text',
    likes: i % 5,
    comments: i % 2,
    shares: 0,
    views: null,
    sentiment: g ? 0.6 : -0.6,
  })),
);

let server: TestServer;
let running: Awaited<ReturnType<typeof runningService>>;
let store: AnalyticsStore;
let posts: RefPost[];

beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  posts = await writeCorpus(server, [...withDomains(generatedCorpus(5650, 1500), 5651), ...planted]);
  running = await runningService(server, 'themes-property');
  store = running.service.store!;
}, 120_000);
afterAll(async () => {
  await running?.close();
  await server?.close();
});

const RULE = {
  size: THEME_WORDS,
  minPosts: MIN_PAIR_POSTS,
  minJaccard: MIN_JACCARD,
  minWords: MIN_THEME_WORDS,
  top: 3,
};

async function both(c: Case, limit: number) {
  const { scope, context, match } = await scopesOf(server, c, correctionsOf(posts));
  const got = await themeRows(store, { context, match }, limit);
  const bucket = bucketFor(context.scope.from, context.scope.to);
  const expected = themeFigures(posts, scope, bucket, RULE, limit);
  return { got, expected };
}

/** The store's themes as the reference lists them (its buckets with posts, in order). */
const asReference = (got: Awaited<ReturnType<typeof themeRows>>) =>
  got.themes.map((t) => ({
    terms: t.terms,
    posts: t.posts,
    previous_posts: t.previous_posts,
    over_time: [...t.buckets.values()]
      .map((b) => ({ local: b.local, posts: b.posts }))
      .sort((a, b) => (a.local < b.local ? -1 : 1)),
    sentiment: [...t.buckets.values()].reduce(
      (s, b) => ({
        positive: s.positive + b.positive,
        neutral: s.neutral + b.neutral,
        negative: s.negative + b.negative,
        not_rated: s.not_rated + b.not_rated,
      }),
      { positive: 0, neutral: 0, negative: 0, not_rated: 0 },
    ),
    average: (() => {
      const bs = [...t.buckets.values()];
      const rated = bs.reduce((n, b) => n + b.positive + b.neutral + b.negative, 0);
      return rated ? bs.reduce((n, b) => n + b.sentiment_sum, 0) / rated : null;
    })(),
    top: t.top,
  }));

describe("the store's themes equal the reference's", () => {
  it('on generated scopes', async () => {
    let themed = 0;
    await fc.assert(
      fc.asyncProperty(caseArb(posts), fc.integer({ min: 1, max: 20 }), async (c, limit) => {
        const { got, expected } = await both(c, limit);
        expect(got.posts).toBe(expected.posts);
        expect(got.words).toEqual(expected.words);
        expect(got.pairs).toEqual(expected.pairs);
        expect(got.edges).toEqual(expected.edges);
        const mine = asReference(got);
        expect(mine.map(({ average: _, ...t }) => t)).toEqual(
          expected.themes.map((t) => ({
            terms: t.terms,
            posts: t.posts,
            previous_posts: t.previous_posts,
            over_time: t.over_time.filter((b) => b.posts > 0),
            sentiment: {
              positive: t.sentiment.positive,
              neutral: t.sentiment.neutral,
              negative: t.sentiment.negative,
              not_rated: t.sentiment.not_rated,
            },
            top: t.top,
          })),
        );
        mine.forEach((t, i) => expectClose(t.average, expected.themes[i]!.sentiment.average, 'average'));
        if (got.themes.length >= 2) themed += 1;
      }),
      { seed: 5652, numRuns: 40, endOnFailure: true },
    );
    // Not vacuous: many scopes have themes.
    expect(themed).toBeGreaterThan(10);
  }, 240_000);

  it('puts each planted group in one theme of its own, the same on every refresh', async () => {
    const c: Case = {
      zone: 'UTC',
      range: [PLANTED_AT - 3 * DAY, PLANTED_AT + 4 * DAY],
      query: null,
      platforms: [],
      languages: [],
      refine: [],
      corrected: false,
    };
    const { got } = await both(c, 20);
    const sets = got.themes.map((t) => t.terms.map((term) => term.value).sort());
    expect(sets).toContainEqual([...OUTAGE].sort());
    expect(sets).toContainEqual([...PIZZA].sort());
    const outage = got.themes.find((t) => t.terms.some((term) => term.value === 'outage'))!;
    // Every planted outage post holds one of its words (its posts may include generated posts with none of them:
    // the generated corpus's words are others).
    expect(outage.posts).toBe(40);
    const again = await both(c, 20);
    expect(again.got).toEqual(got);
  });
});
