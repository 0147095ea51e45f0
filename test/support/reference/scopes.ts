// Generated dashboard scopes for the property tests over a generated corpus: four zones, ranges of hours across New
// York's and Chatham's DST changes, days, weeks and odd bounds; a query of every operator or none; platforms and
// languages; a refinement of each field, with and without exclude; the workspace's sentiment corrections or none. Each
// resolved as the reference's scope (figures.ts) and as a dashboard resolves a request (resolveInsightScope, then
// the store's compiled query).
import fc from 'fast-check';
import type { Refine } from '@contract/insights';
import { instantOfWallClock } from '@contract/zoned-time';
import { storeMatch } from '@server/analytics/figures/match';
import { NO_CORRECTIONS, type Corrections } from '@server/social/corrections';
import { resolveInsightScope } from '@server/social/insights/request';
import { bucketKey } from '../insights-brute-force';
import type { TestServer } from '../server-harness';
import { queryArb, REF_TAGS } from './corpus';
import type { RefScope } from './figures';
import { parsed, type RefPost } from './query';

type Label = RefPost['label'];

/** Every 5th post corrected, to each label in turn (some to the label they have). */
export const correctionsOf = (all: RefPost[]): Map<number, Label> =>
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
        { label, inheritedFrom: null, correctedBy: null, correctedAt: '2026-11-20T00:00:00.000Z' },
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

/** A refinement of each field, its values drawn from the corpus (date values: bucket starts in the zone). */
const refineArb = (zone: string, posts: RefPost[]): fc.Arbitrary<Refine> => {
  const authorIds = [...new Set(posts.map((p) => p.authorId))].sort((a, b) => a - b);
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
    some(['positive', 'neutral', 'negative', 'not_rated'] as const).map((values) => ({
      field: 'sentiment' as const,
      values,
    })),
    some(['en', 'ko', 'ja']).map((values) => ({ field: 'language' as const, values })),
    some(Object.values(REF_TAGS)).map((values) => ({ field: 'tag' as const, values })),
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

/**
 * A generated scope over `posts`: a zone (of `zones`), a range, a query or none, filters, refinements, corrections or
 * none.
 */
export const caseArb = (posts: RefPost[], zones: readonly string[] = ZONES) =>
  fc.constantFrom(...zones).chain((zone) =>
    fc.record({
      zone: fc.constant(zone),
      range: rangeArb,
      query: fc.option(queryArb, { freq: 2, nil: null }),
      platforms: fc.oneof(fc.constant<string[]>([]), fc.subarray(['x', 'instagram', 'tiktok', 'youtube'])),
      languages: fc.oneof(fc.constant<string[]>([]), fc.subarray(['en', 'es', 'ko', 'ja'])),
      refine: fc.array(refineArb(zone, posts), { maxLength: 2 }),
      corrected: fc.boolean(),
    }),
  );

export type Case = ReturnType<typeof caseArb> extends fc.Arbitrary<infer C> ? C : never;

/** A generated case as the reference's scope and as the store's, resolved as a dashboard resolves its request. */
export async function scopesOf(server: TestServer, c: Case, corrections: ReadonlyMap<number, Label>) {
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
  return { scope, context, match: storeMatch() };
}
