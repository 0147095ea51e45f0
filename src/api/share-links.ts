// Calls of the share links (internal API: make, list, revoke) and of a shared view opened signed out (social API:
// its token in the body, never in an address), then their queryOptions.
import { queryOptions } from '@tanstack/react-query';
import { compareResponseSchema } from '@contract/insights-compare';
import { INSIGHT_DASHBOARDS } from '@contract/insights-dashboards';
import {
  createdShareLinkSchema,
  shareLinkListSchema,
  shareLinkSchema,
  sharedViewMetaSchema,
  type CreateShareLinkBody,
  type SharedDashboard,
} from '@contract/share-links';
import type { Api } from './api';
import { retryDelay, retryFigures } from './errors';

const linksPath = (workspaceId: string) => `workspaces/${encodeURIComponent(workspaceId)}/share-links`;

export const createShareLink = (api: Api, workspaceId: string, body: CreateShareLinkBody) =>
  api.send(linksPath(workspaceId), createdShareLinkSchema, { method: 'POST', body });

export const revokeShareLink = (api: Api, workspaceId: string, linkId: string) =>
  api.send(`${linksPath(workspaceId)}/${encodeURIComponent(linkId)}`, shareLinkSchema, { method: 'DELETE' });

export const shareLinksQuery = (api: Api, workspaceId: string) =>
  queryOptions({
    queryKey: ['workspaces', workspaceId, 'share-links'] as const,
    queryFn: ({ signal }) => api.send(linksPath(workspaceId), shareLinkListSchema, { method: 'GET', signal }),
  });

/** What a shared view shows (its dashboard, workspace, title), read once a page: it counts the opening. */
export const sharedViewQuery = (api: Api, token: string) =>
  queryOptions({
    queryKey: ['shared', token, 'view'] as const,
    queryFn: ({ signal }) =>
      api.sendSocial('shared/view', sharedViewMetaSchema, { method: 'POST', body: { token }, signal }),
    retry: false,
    staleTime: Infinity,
  });

/** The shared view's dashboard answer (or Compare's), parsed with that dashboard's schema. */
export const sharedAnswerQuery = (api: Api, token: string, dashboard: SharedDashboard) =>
  queryOptions({
    queryKey: ['shared', token, 'answer', dashboard] as const,
    queryFn: ({ signal }) =>
      api.sendSocial(
        'shared/answer',
        dashboard === 'compare' ? compareResponseSchema : INSIGHT_DASHBOARDS[dashboard].response,
        { method: 'POST', body: { token }, signal },
      ),
    // Asked again while the figures are prepared (or after a 429 / 503 busy); any other failure is final.
    retry: retryFigures,
    retryDelay,
    staleTime: Infinity,
  });
