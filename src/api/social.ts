// Calls of the query editor and discover (social API: query/validate, discover), then their query options; "Save as
// query" posts through src/api/saved-queries.ts. Every call passes TanStack Query's AbortSignal, so a newer keystroke
// cancels a stale check or search.
import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import type { Api } from './api';
import { retryDelay, retryFigures } from './errors';
import { discoverResponseSchema, type DiscoverSort } from '@contract/discover';
import { validateQueryResponseSchema } from '@contract/social-query';
import type { QueryFilters } from '@contract/social-scope';

/** What a search looks at besides its text: platforms, languages and the last `days` days (ending now). */
export interface SearchScope {
  days: number;
  platforms: readonly string[];
  languages: readonly string[];
}

const DAY_MS = 86_400_000;

/** The scope as the API's filters; the range ends now, so it is computed when the request is made. */
function scopeFilters(scope: SearchScope, now = Date.now()): QueryFilters {
  return {
    from: new Date(now - scope.days * DAY_MS).toISOString(),
    ...(scope.platforms.length ? { platforms: [...scope.platforms] as QueryFilters['platforms'] } : {}),
    ...(scope.languages.length ? { languages: [...scope.languages] } : {}),
  };
}

const validateQuery = (
  api: Api,
  workspaceId: string,
  query: string,
  scope: SearchScope | null,
  signal?: AbortSignal,
) =>
  api.sendSocial('query/validate', validateQueryResponseSchema, {
    method: 'POST',
    body: { workspace_id: workspaceId, query, ...(scope ? { filters: scopeFilters(scope) } : {}) },
    signal,
  });

export interface DiscoverSearch {
  query: string;
  scope: SearchScope;
  sort: DiscoverSort;
}

const discover = (
  api: Api,
  workspaceId: string,
  search: DiscoverSearch,
  page: { next: NextPage | null; limit: number },
  signal?: AbortSignal,
) =>
  api.sendSocial('discover', discoverResponseSchema, {
    method: 'POST',
    body: {
      workspace_id: workspaceId,
      query: search.query,
      // A cursor belongs to the filters of the first page, its range's start included.
      filters: { ...scopeFilters(search.scope), ...(page.next ? { from: page.next.from } : {}) },
      sort: search.sort,
      limit: page.limit,
      ...(page.next ? { cursor: page.next.cursor } : {}),
    },
    signal,
  });

/** The next page: the previous page's cursor and the start of the first page's range (sent again as it was). */
interface NextPage {
  cursor: string;
  from: string;
}

// Query options. Keys sit under ['workspaces', id] so dropping a workspace drops everything cached about it.

/** Checks a query (errors with columns, or its count within the scope; the whole corpus without one). */
export const queryCheckQuery = (api: Api, workspaceId: string, query: string, scope: SearchScope | null) =>
  queryOptions({
    queryKey: ['workspaces', workspaceId, 'query-check', query, scope] as const,
    queryFn: ({ signal }) => validateQuery(api, workspaceId, query, scope, signal),
    staleTime: 60_000,
    // The count is a figure: while the figures are prepared the check waits for them (src/api/errors.ts).
    retry: retryFigures,
    retryDelay,
  });

const DISCOVER_PAGE_SIZE = 25;

export const discoverQuery = (
  api: Api,
  workspaceId: string,
  search: DiscoverSearch,
  limit = DISCOVER_PAGE_SIZE,
) =>
  infiniteQueryOptions({
    queryKey: ['workspaces', workspaceId, 'discover', search, limit] as const,
    queryFn: ({ pageParam, signal }) =>
      discover(api, workspaceId, search, { next: pageParam, limit }, signal),
    initialPageParam: null as NextPage | null,
    getNextPageParam: (page): NextPage | undefined =>
      page.next_cursor ? { cursor: page.next_cursor, from: page.range.from } : undefined,
    staleTime: 60_000,
    retry: retryFigures,
    retryDelay,
  });
