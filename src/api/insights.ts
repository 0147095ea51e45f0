// Calls of the insights dashboards (POST /social/insights/*), and of the post and profile pages in their scope
// (POST /social/posts/detail, /social/profiles/detail), and their query options. Every dashboard takes the same
// body (contract/insights.ts); the lists add sort, limit and a keyset cursor. Keys sit under ['workspaces', id]
// so dropping a workspace drops every dashboard cached for it.
import { queryOptions } from '@tanstack/react-query';
import type * as z from 'zod/mini';
import type { Api } from './api';
import { retryDelay, retryFigures } from './errors';
import type { InsightsBody, PostSort, ProfileSort } from '@contract/insights';
import { dashboardPath, INSIGHT_DASHBOARDS, type Dashboard } from '@contract/insights-dashboards';
import { compareResponseSchema, type CompareBody } from '@contract/insights-compare';
import { driversResponseSchema } from '@contract/insights-drivers';
import { themesResponseSchema } from '@contract/insights-themes';
import { categoryBreakdownResponseSchema } from '@contract/insights-categories';
import {
  postDetailResponseSchema,
  profileDetailResponseSchema,
  type PostDetailBody,
} from '@contract/social-detail';

/** What a list adds to the body: its sort, page size and the cursor of the page (none for the first). */
type Extra = { sort?: PostSort | ProfileSort; cursor?: string; limit?: number };

/** How long a dashboard's answer stays fresh: the corpus changes by imports, not by the second. */
const STALE_MS = 60_000;

export const insightQuery = <D extends Dashboard>(
  api: Api,
  dashboard: D,
  body: InsightsBody,
  extra: Extra = {},
) =>
  queryOptions({
    queryKey: ['workspaces', body.workspace_id, 'insights', dashboard, body, extra] as const,
    queryFn: ({ signal }) =>
      api.sendSocial(dashboardPath(dashboard), INSIGHT_DASHBOARDS[dashboard].response, {
        method: 'POST',
        body: { ...body, ...extra },
        signal,
      }) as Promise<z.infer<(typeof INSIGHT_DASHBOARDS)[D]['response']>>,
    staleTime: STALE_MS,
    retry: retryFigures,
    retryDelay,
  });

/** The Compare dashboard (POST /social/insights/compare): 2 to 5 saved queries side by side. */
export const compareQuery = (api: Api, body: CompareBody) =>
  queryOptions({
    queryKey: ['workspaces', body.workspace_id, 'insights', 'compare', body] as const,
    queryFn: ({ signal }) =>
      api.sendSocial('insights/compare', compareResponseSchema, { method: 'POST', body, signal }),
    staleTime: STALE_MS,
    retry: retryFigures,
    retryDelay,
  });

/** Why this spike (POST /social/insights/drivers): the body's filters name the window. */
export const driversQuery = (api: Api, body: InsightsBody & { limit?: number }) =>
  queryOptions({
    queryKey: ['workspaces', body.workspace_id, 'insights', 'drivers', body] as const,
    queryFn: ({ signal }) =>
      api.sendSocial('insights/drivers', driversResponseSchema, { method: 'POST', body, signal }),
    staleTime: STALE_MS,
    retry: retryFigures,
    retryDelay,
  });

/** Themes of a range (POST /social/insights/themes): the view's body and the number of themes. */
export const themesQuery = (api: Api, body: InsightsBody & { limit?: number }) =>
  queryOptions({
    queryKey: ['workspaces', body.workspace_id, 'insights', 'themes', body] as const,
    queryFn: ({ signal }) =>
      api.sendSocial('insights/themes', themesResponseSchema, { method: 'POST', body, signal }),
    staleTime: STALE_MS,
    retry: retryFigures,
    retryDelay,
  });

/** A scope broken down by one of the workspace's categories (POST /social/insights/categories): posts per tag. */
export const categoryBreakdownQuery = (
  api: Api,
  body: InsightsBody & { category_id: string; limit?: number },
) =>
  queryOptions({
    queryKey: ['workspaces', body.workspace_id, 'insights', 'categories', body] as const,
    queryFn: ({ signal }) =>
      api.sendSocial('insights/categories', categoryBreakdownResponseSchema, {
        method: 'POST',
        body,
        signal,
      }),
    staleTime: STALE_MS,
    retry: retryFigures,
    retryDelay,
  });

/** A post's page: the post and which of the view's query terms it matches (POST /social/posts/detail). */
export const postDetailQuery = (api: Api, body: PostDetailBody) =>
  queryOptions({
    queryKey: ['workspaces', body.workspace_id, 'posts', body.post_id, body] as const,
    queryFn: ({ signal }) =>
      api.sendSocial('posts/detail', postDetailResponseSchema, { method: 'POST', body, signal }),
    staleTime: STALE_MS,
    retry: retryFigures,
    retryDelay,
  });

/** A profile's page: who it is and its posts per day in the view's scope (POST /social/profiles/detail). */
export const profileDetailQuery = (api: Api, body: InsightsBody, profileId: number) =>
  queryOptions({
    queryKey: ['workspaces', body.workspace_id, 'profiles', profileId, body] as const,
    queryFn: ({ signal }) =>
      api.sendSocial('profiles/detail', profileDetailResponseSchema, {
        method: 'POST',
        body: { ...body, profile_id: profileId },
        signal,
      }),
    staleTime: STALE_MS,
    retry: retryFigures,
    retryDelay,
  });
