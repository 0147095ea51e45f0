// Calls of a workspace's lists (internal API: list, create, replace items, delete), then their queryOptions.
import { queryOptions } from '@tanstack/react-query';
import * as z from 'zod/mini';
import { listResponseSchema, listsResponseSchema } from '@contract/lists';
import type { Api } from './api';

const listsPath = (workspaceId: string) => `workspaces/${encodeURIComponent(workspaceId)}/lists`;

export interface ListBody {
  name: string;
  kind: 'authors' | 'sites' | 'words';
  items: string[];
}

export const createList = (api: Api, workspaceId: string, body: ListBody) =>
  api.send(listsPath(workspaceId), listResponseSchema, { method: 'POST', body });

export const replaceListItems = (api: Api, workspaceId: string, name: string, items: string[]) =>
  api.send(`${listsPath(workspaceId)}/${encodeURIComponent(name)}`, listResponseSchema, {
    method: 'PUT',
    body: { items },
  });

export const deleteList = (api: Api, workspaceId: string, name: string) =>
  api.send(`${listsPath(workspaceId)}/${encodeURIComponent(name)}`, z.undefined(), { method: 'DELETE' });

export const listsQuery = (api: Api, workspaceId: string) =>
  queryOptions({
    queryKey: ['workspaces', workspaceId, 'lists'] as const,
    queryFn: ({ signal }) => api.send(listsPath(workspaceId), listsResponseSchema, { method: 'GET', signal }),
  });
