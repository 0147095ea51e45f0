// Calls of the saved-queries endpoints (internal API) and of their 7-day volume (social API), then their
// queryOptions, then what a refused save means for the form (the query's errors at their columns).
import { queryOptions } from '@tanstack/react-query';
import * as z from 'zod/mini';
import type { Api } from './api';
import { HttpError, retryDelay, retryFigures } from './errors';
import {
  savedQueryListResponseSchema,
  savedQueryResponseSchema,
  savedQueryVolumeResponseSchema,
} from '@contract/saved-queries';
import { invalidQueryErrorSchema, type QueryError } from '@contract/social-query';
import type { SavedQueryFilters } from '@contract/saved-queries';

/** What the form sends: create takes all of it, update the same fields (filters replace the stored ones). */
export interface SavedQueryInput {
  name: string;
  query: string;
  filters: SavedQueryFilters;
}

const savedQueriesPath = (workspaceId: string) =>
  `workspaces/${encodeURIComponent(workspaceId)}/saved-queries`;
const savedQueryPath = (workspaceId: string, queryId: string) =>
  `${savedQueriesPath(workspaceId)}/${encodeURIComponent(queryId)}`;

const listSavedQueries = (api: Api, workspaceId: string, signal?: AbortSignal) =>
  api.send(savedQueriesPath(workspaceId), savedQueryListResponseSchema, { method: 'GET', signal });

export const createSavedQuery = (api: Api, workspaceId: string, body: SavedQueryInput) =>
  api.send(savedQueriesPath(workspaceId), savedQueryResponseSchema, { method: 'POST', body });

export const updateSavedQuery = (
  api: Api,
  workspaceId: string,
  queryId: string,
  body: Partial<SavedQueryInput>,
) => api.send(savedQueryPath(workspaceId, queryId), savedQueryResponseSchema, { method: 'PATCH', body });

export const deleteSavedQuery = (api: Api, workspaceId: string, queryId: string) =>
  api.send(savedQueryPath(workspaceId, queryId), z.undefined(), { method: 'DELETE' });

const savedQueryVolume = (api: Api, workspaceId: string, signal?: AbortSignal) =>
  api.sendSocial('saved-queries/volume', savedQueryVolumeResponseSchema, {
    method: 'POST',
    body: { workspace_id: workspaceId },
    signal,
  });

// Query options. Under ['workspaces', id] so dropping a workspace drops everything cached about it.

export const savedQueriesQuery = (api: Api, workspaceId: string) =>
  queryOptions({
    queryKey: ['workspaces', workspaceId, 'saved-queries'] as const,
    queryFn: ({ signal }) => listSavedQueries(api, workspaceId, signal),
    staleTime: 30_000,
  });

/** Read again whenever the list changes (its key is under the list's), and at most once a minute otherwise. */
export const savedQueryVolumeQuery = (api: Api, workspaceId: string) =>
  queryOptions({
    queryKey: ['workspaces', workspaceId, 'saved-queries', 'volume'] as const,
    queryFn: ({ signal }) => savedQueryVolume(api, workspaceId, signal),
    staleTime: 60_000,
    retry: retryFigures,
    retryDelay,
  });

/** The parser's errors of a 400 invalid_query (each at its 1-based column), or null for any other failure. */
export function invalidQueryErrors(error: unknown): QueryError[] | null {
  if (!(error instanceof HttpError) || error.status !== 400) return null;
  try {
    const parsed = z.safeParse(invalidQueryErrorSchema, JSON.parse(error.bodyExcerpt));
    return parsed.success ? parsed.data.errors : null;
  } catch {
    return null;
  }
}
