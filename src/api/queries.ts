// TanStack Query options per resource: loaders call ensureQueryData/fetchQuery, components read the same options.
import { queryOptions } from '@tanstack/react-query';
import type { Api } from './api';

export const meQuery = (api: Api) =>
  queryOptions({ queryKey: ['users', 'me'] as const, queryFn: () => api.getMe(), staleTime: 30_000 });

export const workspaceQuery = (api: Api, workspaceId: string) =>
  queryOptions({
    queryKey: ['workspaces', workspaceId] as const,
    queryFn: () => api.getWorkspace(workspaceId),
    staleTime: 60_000,
  });
