// Discover's search as the address holds it (?q=…&range=7d&platforms=x,reddit&languages=en&sort=engagement), so a
// copied link reproduces the search. Every value is a string (src/lib/search-params.ts); anything invalid falls back to
// its default (.catch), and defaults are left out of the address.
import * as z from 'zod/mini';
import { DISCOVER_SORTS, type DiscoverSort } from '@contract/sorts';
import { PLATFORM_VALUES } from '@contract/social-scope';
import { workspaceLanguages } from '@contract/workspaces';
import type { SearchScope } from '@/api/social';

export const RANGE_DAYS = { '24h': 1, '7d': 7, '30d': 30, '90d': 90 } as const;
export type RangePreset = keyof typeof RANGE_DAYS;
const RANGES = Object.keys(RANGE_DAYS) as RangePreset[];
export const RANGE_LABELS: Record<RangePreset, string> = {
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  '90d': 'Last 90 days',
};
const DEFAULT_RANGE: RangePreset = '30d';
const DEFAULT_SORT: DiscoverSort = 'recency';
export const LANGUAGE_VALUES = workspaceLanguages;

/** A comma-separated list kept to known values, without duplicates, in the order of `allowed`. */
const listOf = (allowed: readonly string[]) =>
  z.catch(
    z.optional(
      z.pipe(
        z.string(),
        z.transform((text) => {
          const given = new Set(text.split(','));
          const list = allowed.filter((value) => given.has(value));
          return list.length ? list.join(',') : undefined;
        }),
      ),
    ),
    undefined,
  );

export const discoverSearchSchema = z.object({
  q: z.catch(z.optional(z.string()), undefined),
  range: z.catch(z.optional(z.enum(RANGES)), undefined),
  platforms: listOf(PLATFORM_VALUES),
  languages: listOf(LANGUAGE_VALUES),
  sort: z.catch(z.optional(z.enum(DISCOVER_SORTS)), undefined),
});
export type DiscoverSearchParams = z.infer<typeof discoverSearchSchema>;

/** The search as the page works with it. */
export interface DiscoverState {
  query: string;
  range: RangePreset;
  platforms: Array<(typeof PLATFORM_VALUES)[number]>;
  languages: string[];
  sort: DiscoverSort;
}

const split = (list: string | undefined) => (list ? list.split(',') : []);

export function fromSearch(search: DiscoverSearchParams): DiscoverState {
  return {
    query: search.q ?? '',
    range: search.range ?? DEFAULT_RANGE,
    platforms: split(search.platforms) as DiscoverState['platforms'],
    languages: split(search.languages),
    sort: search.sort ?? DEFAULT_SORT,
  };
}

/** The address's search params of a state: defaults and empty lists left out. */
export function toSearch(state: DiscoverState): DiscoverSearchParams {
  const inOrder = (allowed: readonly string[], values: readonly string[]) =>
    allowed.filter((value) => values.includes(value)).join(',') || undefined;
  return {
    q: state.query || undefined,
    range: state.range === DEFAULT_RANGE ? undefined : state.range,
    platforms: inOrder(PLATFORM_VALUES, state.platforms),
    languages: inOrder(LANGUAGE_VALUES, state.languages),
    sort: state.sort === DEFAULT_SORT ? undefined : state.sort,
  };
}

export const scopeOf = (state: DiscoverState): SearchScope => ({
  days: RANGE_DAYS[state.range],
  platforms: state.platforms,
  languages: state.languages,
});
