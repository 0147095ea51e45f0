// Calls of the alert rules and notifications endpoints (internal API), then their queryOptions.
import { queryOptions } from '@tanstack/react-query';
import * as z from 'zod/mini';
import {
  alertDeliveryLogResponseSchema,
  alertRuleListResponseSchema,
  alertRuleResponseSchema,
  notificationListResponseSchema,
  unreadCountResponseSchema,
  type CreateAlertRuleBody,
} from '@contract/alerts';
import type { Api } from './api';

const rulesPath = (workspaceId: string) => `workspaces/${encodeURIComponent(workspaceId)}/alert-rules`;
const rulePath = (workspaceId: string, ruleId: string) =>
  `${rulesPath(workspaceId)}/${encodeURIComponent(ruleId)}`;

export const createAlertRule = (api: Api, workspaceId: string, body: CreateAlertRuleBody) =>
  api.send(rulesPath(workspaceId), alertRuleResponseSchema, { method: 'POST', body });

export const updateAlertRule = (
  api: Api,
  workspaceId: string,
  ruleId: string,
  body: Partial<Omit<CreateAlertRuleBody, 'saved_query_id'>>,
) => api.send(rulePath(workspaceId, ruleId), alertRuleResponseSchema, { method: 'PATCH', body });

export const deleteAlertRule = (api: Api, workspaceId: string, ruleId: string) =>
  api.send(rulePath(workspaceId, ruleId), z.undefined(), { method: 'DELETE' });

export const muteAlertRule = (api: Api, workspaceId: string, ruleId: string, muted: boolean) =>
  api.send(`${rulePath(workspaceId, ruleId)}/mute`, alertRuleResponseSchema, {
    method: muted ? 'POST' : 'DELETE',
  });

/** "Send a test": the rule's webhook and e-mail recipients get a message marked as a test; answers its attempts. */
export const sendAlertTest = (api: Api, workspaceId: string, ruleId: string) =>
  api.send(`${rulePath(workspaceId, ruleId)}/test`, alertDeliveryLogResponseSchema, { method: 'POST' });

export const markNotificationsRead = (api: Api, body: { ids: number[] } | { all: true }) =>
  api.send('notifications/read', unreadCountResponseSchema, { method: 'POST', body });

export const unsubscribe = (api: Api, token: string) =>
  api.send(
    'alerts/unsubscribe',
    z.object({ rule_summary: z.string(), saved_query_name: z.string(), workspace_name: z.string() }),
    { method: 'POST', body: { token } },
  );

// Query options. The rules under ['workspaces', id] (dropped with the workspace); the notifications are the user's.

export const alertRulesQuery = (api: Api, workspaceId: string) =>
  queryOptions({
    queryKey: ['workspaces', workspaceId, 'alert-rules'] as const,
    queryFn: ({ signal }) =>
      api.send(rulesPath(workspaceId), alertRuleListResponseSchema, { method: 'GET', signal }),
    staleTime: 30_000,
  });

/** A rule's recent delivery attempts (owners and managers). */
export const alertDeliveriesQuery = (api: Api, workspaceId: string, ruleId: string) =>
  queryOptions({
    queryKey: ['workspaces', workspaceId, 'alert-rules', ruleId, 'deliveries'] as const,
    queryFn: ({ signal }) =>
      api.send(`${rulePath(workspaceId, ruleId)}/deliveries`, alertDeliveryLogResponseSchema, {
        method: 'GET',
        signal,
      }),
  });

/** The bell's count: read again every minute and when the window regains focus. */
export const unreadCountQuery = (api: Api) =>
  queryOptions({
    queryKey: ['notifications', 'unread'] as const,
    queryFn: ({ signal }) =>
      api.send('notifications/unread-count', unreadCountResponseSchema, { method: 'GET', signal }),
    refetchInterval: 60_000,
    staleTime: 15_000,
  });

export const notificationsQuery = (api: Api) =>
  queryOptions({
    queryKey: ['notifications', 'list'] as const,
    queryFn: ({ signal }) =>
      api.send('notifications', notificationListResponseSchema, { method: 'GET', signal }),
    staleTime: 15_000,
  });
