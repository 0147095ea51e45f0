// The dashboards' address: every search-param codec round-trips (fast-check), through the router's own string codec
// (src/lib/search-params.ts) as a copied link would; malformed params fall back to the default and are named, never
// thrown; custom days are days of the workspace's zone, across DST changes.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Refine } from '@contract/insights';
import { PLATFORM_VALUES } from '@contract/social-scope';
import { workspaceLanguages } from '@contract/workspaces';
import { parseSearch, stringifySearch } from '@/lib/search-params';
import { decodeRefines, encodeRefines } from '@/features/insight/refine-codec';
import {
  insightsBody,
  resolveRange,
  scopeFromSearch,
  searchFromScope,
} from '@/features/insight/insight-scope';
import { startOfDayIn } from '@contract/zoned-time';
import {
  takeDroppedParams,
  validateInsightSearch,
  type InsightScope,
  type InsightSearchParams,
} from '@/features/insight/insight-search';
import { postListSearchSchema, profileListSearchSchema } from '@/features/insight/list-search';
import * as z from 'zod/mini';

const word = fc.stringMatching(/^[\p{L}\p{N}_]{1,20}$/u);
const handle = fc.stringMatching(/^[a-z0-9_.-]{1,20}$/);
const values = <T>(arbitrary: fc.Arbitrary<T>) => fc.uniqueArray(arbitrary, { minLength: 1, maxLength: 4 });
const exclude = fc.option(fc.constant(true as const), { nil: undefined });
const withExclude = <T extends object>(refine: fc.Arbitrary<T>) =>
  fc.tuple(refine, exclude).map(([value, ex]) => (ex ? { ...value, exclude: ex } : value));

/** Refinements in the form the codec gives back (handles with '@', exclude only when true). */
const refineArbitrary: fc.Arbitrary<Refine> = fc.oneof(
  withExclude(
    fc.record({
      field: fc.constant('platform' as const),
      values: values(fc.constantFrom(...PLATFORM_VALUES)),
    }),
  ),
  withExclude(fc.record({ field: fc.constant('hashtag' as const), values: values(word) })),
  withExclude(fc.record({ field: fc.constant('mention' as const), values: values(handle) })),
  withExclude(
    fc.record({
      field: fc.constant('term' as const),
      values: values(fc.stringMatching(/^[^\s,;:]{1,12}$/u)),
    }),
  ),
  withExclude(
    fc.record({
      field: fc.constant('author' as const),
      values: values(
        fc.oneof(
          fc.integer({ min: 1, max: 2 ** 40 }),
          handle.map((h) => `@${h}`),
        ),
      ),
    }),
  ),
  withExclude(
    fc.record({
      field: fc.constant('sentiment' as const),
      values: values(fc.constantFrom('positive', 'neutral', 'negative')),
    }),
  ),
  withExclude(
    fc.record({
      field: fc.constant('domain' as const),
      values: values(fc.stringMatching(/^[a-z0-9-]{1,10}\.[a-z]{2,4}$/)),
    }),
  ),
  withExclude(
    fc.record({
      field: fc.constant('followers' as const),
      values: values(
        fc
          .tuple(fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 1, max: 1_000_000 }), fc.nat(2))
          .map(([min, span, shape]) =>
            shape === 0 ? { min } : shape === 1 ? { max: span } : { min, max: min + span },
          ),
      ),
    }),
  ),
  withExclude(
    fc.record({
      field: fc.constant('hour_of_week' as const),
      values: values(
        fc.record({ day: fc.integer({ min: 1, max: 7 }), hour: fc.integer({ min: 0, max: 23 }) }),
      ),
    }),
  ),
  withExclude(
    fc.record({
      field: fc.constant('date' as const),
      bucket: fc.constantFrom('hour', 'day', 'week'),
      values: values(
        fc
          .date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true })
          .map((d) => d.toISOString()),
      ),
    }),
  ),
) as fc.Arbitrary<Refine>;

const day = fc
  .date({ min: new Date('2024-01-01'), max: new Date('2026-12-31'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));

const scopeArbitrary: fc.Arbitrary<InsightScope> = fc
  .record({
    savedQueryId: fc.option(fc.uuid(), { nil: null }),
    q: fc.string({ maxLength: 40 }),
    preset: fc.constantFrom('24h', '7d', '30d', '90d', 'custom'),
    days: fc.tuple(day, fc.nat(300)),
    end: fc.option(
      fc.date({ min: new Date('2024-01-01'), max: new Date('2027-01-01'), noInvalidDate: true }),
      { nil: null },
    ),
    platforms: fc.subarray([...PLATFORM_VALUES]),
    languages: fc.subarray([...workspaceLanguages]),
    refine: fc.array(refineArbitrary, { maxLength: 4 }),
  })
  .map(({ savedQueryId, q, preset, days: [from, length], end, platforms, languages, refine }) => {
    const custom = preset === 'custom';
    const to = new Date(Date.parse(from) + length * 86_400_000).toISOString().slice(0, 10);
    return {
      savedQueryId,
      q: savedQueryId ? '' : q,
      range: preset,
      from: custom ? from : null,
      to: custom ? to : null,
      end: custom || !end ? null : end.toISOString(),
      platforms,
      languages,
      refine,
    } as InsightScope;
  });

/**
 * What the router does with an address: parses it, validates it with the layout route's validateSearch, and lays the
 * result over the raw params (the root route's search), as TanStack Router merges a route's search with its parent's.
 */
const routerSearch = (raw: Record<string, unknown>) => ({ ...raw, ...validateInsightSearch(raw) });

/** What a copied link does: the address as text, read back by the router and validated by the layout route. */
const throughAddress = (scope: InsightScope) =>
  scopeFromSearch(routerSearch(parseSearch(stringifySearch(searchFromScope(scope)))));

describe('refine codec', () => {
  it('round-trips every refinement list, and the contract accepts what it decodes', () => {
    fc.assert(
      fc.property(fc.array(refineArbitrary, { minLength: 1, maxLength: 6 }), (refines) => {
        const encoded = encodeRefines(refines)!;
        expect(decodeRefines(encoded)).toEqual(refines);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses what is not a refinement, whatever it is', () => {
    for (const bad of [
      '',
      'platform',
      'platform:',
      'platform:myspace',
      'colour:red',
      'date:2026-01-01',
      'hashtag:%E0%A4%A',
      'followers:abc',
      ';;',
    ]) {
      expect(decodeRefines(bad)).toBeNull();
    }
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (text) => {
        const decoded = decodeRefines(text);
        // Never throws; anything decoded re-encodes to a valid list.
        if (decoded) expect(decodeRefines(encodeRefines(decoded)!)).toEqual(decoded);
      }),
    );
  });
});

describe('dashboard search params', () => {
  it('round-trip through the address for every scope', () => {
    fc.assert(
      fc.property(scopeArbitrary, (scope) => {
        expect(throughAddress(scope)).toEqual(scope);
      }),
      { numRuns: 300 },
    );
  });

  it('fall back to the default with the param named, never throwing, for any malformed value', () => {
    const keys = ['query', 'q', 'range', 'from', 'to', 'end', 'platforms', 'languages', 'refine'];
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...keys), fc.oneof(fc.string(), fc.integer(), fc.constant(null))),
        (raw) => {
          const search = routerSearch(raw) as InsightSearchParams;
          const scope = scopeFromSearch(search);
          expect(() =>
            insightsBody(
              'w1',
              scope,
              resolveRange(scope, Date.parse('2026-11-22T12:00:00Z'), 'Europe/Berlin'),
            ),
          ).not.toThrow();
          for (const name of takeDroppedParams()) expect(keys).toContain(name);
        },
      ),
    );
    takeDroppedParams();
    const search = routerSearch({
      query: 'not-a-uuid',
      range: 'forever',
      platforms: 'x,myspace',
      refine: 'colour:red',
      end: 'yesterday',
    });
    expect(takeDroppedParams().sort()).toEqual(['end', 'platforms', 'query', 'range']);
    expect(takeDroppedParams()).toEqual([]);
    // Refinements are checked by the dashboards (their chunk has the contract): the page drops them with the notice.
    expect(search.refine).toBe('colour:red');
    expect(decodeRefines(search.refine!)).toBeNull();
    expect(scopeFromSearch(search)).toMatchObject({
      savedQueryId: null,
      range: '30d',
      platforms: [],
      refine: [],
      end: null,
    });
  });

  it('drop a custom range that is reversed or longer than 400 days', () => {
    expect(
      validateInsightSearch({ range: 'custom', from: '2026-02-01', to: '2026-01-01' }).range,
    ).toBeUndefined();
    expect(takeDroppedParams()).toEqual(['range']);
    expect(
      validateInsightSearch({ range: 'custom', from: '2025-01-01', to: '2026-03-01' }).range,
    ).toBeUndefined();
    expect(takeDroppedParams()).toEqual(['range']);
    expect(routerSearch({ range: 'custom', from: '2026-01-01', to: '2026-01-31' })).toMatchObject({
      range: 'custom',
      from: '2026-01-01',
      to: '2026-01-31',
    });
    expect(takeDroppedParams()).toEqual([]);
    // From and to without a custom range are dropped, not kept raw.
    expect(routerSearch({ range: '7d', from: '2026-01-01' })).toMatchObject({ range: '7d', from: undefined });
  });

  it('list params keep a valid sort and page and drop anything else', () => {
    expect(z.parse(postListSearchSchema, { sort: 'overperformance', cursor: 'abc', page: '3' })).toEqual({
      sort: 'overperformance',
      cursor: 'abc',
      page: '3',
    });
    expect(z.parse(postListSearchSchema, { sort: 'followers', page: '0', cursor: '' })).toEqual({});
    expect(z.parse(profileListSearchSchema, { sort: 'followers' })).toEqual({ sort: 'followers' });
    expect(z.parse(profileListSearchSchema, { sort: 'recency', page: 'x'.repeat(600) })).toEqual({});
  });
});

describe('ranges', () => {
  it('custom days are whole days of the workspace zone, DST included', () => {
    // Berlin goes to summer time on 29 March 2026: that day has 23 hours.
    const scope = scopeFromSearch(
      validateInsightSearch({ range: 'custom', from: '2026-03-29', to: '2026-03-29' }),
    );
    expect(resolveRange(scope, 0, 'Europe/Berlin')).toEqual({
      from: '2026-03-28T23:00:00.000Z',
      to: '2026-03-29T22:00:00.000Z',
    });
    expect(startOfDayIn('2026-11-22', 'Asia/Tokyo').toISOString()).toBe('2026-11-21T15:00:00.000Z');
    expect(startOfDayIn('2026-11-22', 'America/Los_Angeles').toISOString()).toBe('2026-11-22T08:00:00.000Z');
  });

  it('a preset ends now unless its end is pinned', () => {
    const now = Date.parse('2026-11-22T12:00:00Z');
    expect(resolveRange(scopeFromSearch({ range: '7d' }), now, 'UTC')).toEqual({
      from: '2026-11-15T12:00:00.000Z',
      to: '2026-11-22T12:00:00.000Z',
    });
    expect(
      resolveRange(scopeFromSearch({ range: '24h', end: '2026-11-01T00:00:00.000Z' }), now, 'UTC'),
    ).toEqual({
      from: '2026-10-31T00:00:00.000Z',
      to: '2026-11-01T00:00:00.000Z',
    });
  });
});
