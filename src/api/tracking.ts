// Calls of a saved query's tracking (internal API): the sources the installation set up, a saved query's tracking with
// its coverage per source, and turning it on or off with its sources; then their queryOptions.
import { queryOptions } from '@tanstack/react-query';
import type { Api } from './api';
import {
  trackingGapsResponseSchema,
  trackingResponseSchema,
  trackingSourcesResponseSchema,
  type PutTrackingBody,
} from '@contract/tracking';

const trackingPath = (workspaceId: string, queryId: string) =>
  `workspaces/${encodeURIComponent(workspaceId)}/saved-queries/${encodeURIComponent(queryId)}/tracking`;

export const putTracking = (api: Api, workspaceId: string, queryId: string, body: PutTrackingBody) =>
  api.send(trackingPath(workspaceId, queryId), trackingResponseSchema, { method: 'PUT', body });

/** Under the list's key: a change to the saved queries reads it again. Coverage moves as posts arrive: a minute. */
export const trackingQuery = (api: Api, workspaceId: string, queryId: string) =>
  queryOptions({
    queryKey: ['workspaces', workspaceId, 'saved-queries', queryId, 'tracking'] as const,
    queryFn: ({ signal }) =>
      api.send(trackingPath(workspaceId, queryId), trackingResponseSchema, { method: 'GET', signal }),
    staleTime: 15_000,
    refetchInterval: 60_000,
  });

/** The query's collection gaps over a view's span (Unix seconds), as its overview marks them; a minute, as coverage. */
export const trackingGapsQuery = (api: Api, workspaceId: string, queryId: string, from: number, to: number) =>
  queryOptions({
    queryKey: ['workspaces', workspaceId, 'saved-queries', queryId, 'tracking', 'gaps', from, to] as const,
    queryFn: ({ signal }) =>
      api.send(
        `${trackingPath(workspaceId, queryId)}/gaps?from=${from}&to=${to}`,
        trackingGapsResponseSchema,
        {
          method: 'GET',
          signal,
        },
      ),
    staleTime: 15_000,
    refetchInterval: 60_000,
  });

export const trackingSourcesQuery = (api: Api, workspaceId: string) =>
  queryOptions({
    queryKey: ['workspaces', workspaceId, 'tracking-sources'] as const,
    queryFn: ({ signal }) =>
      api.send(
        `workspaces/${encodeURIComponent(workspaceId)}/tracking-sources`,
        trackingSourcesResponseSchema,
        {
          method: 'GET',
          signal,
        },
      ),
    staleTime: 5 * 60_000,
  });
