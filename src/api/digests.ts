// Calls of the scheduled digests (internal API), then their queryOptions.
import { queryOptions } from '@tanstack/react-query';
import * as z from 'zod/mini';
import {
  confirmDigestResponseSchema,
  DIGEST_FREQUENCIES,
  digestListSchema,
  digestSchema,
  type CreateDigestBody,
} from '@contract/digests';
import type { Api } from './api';

const digestsPath = (workspaceId: string) => `workspaces/${encodeURIComponent(workspaceId)}/digests`;

export const createDigest = (api: Api, workspaceId: string, body: CreateDigestBody) =>
  api.send(digestsPath(workspaceId), digestSchema, { method: 'POST', body });

export const deleteDigest = (api: Api, workspaceId: string, digestId: string) =>
  api.send(`${digestsPath(workspaceId)}/${encodeURIComponent(digestId)}`, z.undefined(), {
    method: 'DELETE',
  });

export const digestsQuery = (api: Api, workspaceId: string) =>
  queryOptions({
    queryKey: ['workspaces', workspaceId, 'digests'] as const,
    queryFn: ({ signal }) => api.send(digestsPath(workspaceId), digestListSchema, { method: 'GET', signal }),
  });

/** An outside address's confirmation link: its token (from the fragment) confirms the address for the workspace. */
export const confirmDigest = (api: Api, token: string) =>
  api.send('digests/confirm', confirmDigestResponseSchema, { method: 'POST', body: { token } });

/** A digest e-mail's unsubscribe link: its token (from the fragment) takes that recipient off the digest. */
export const unsubscribeDigest = (api: Api, token: string) =>
  api.send(
    'digests/unsubscribe',
    z.object({
      saved_query_name: z.string(),
      workspace_name: z.string(),
      frequency: z.enum(DIGEST_FREQUENCIES),
    }),
    { method: 'POST', body: { token } },
  );
