// Calls of the workspaces, members, invites and join-code endpoints, then their queryOptions. Request bodies and
// responses use the contract the server validates with (contract/), so both sides agree on every shape.
import { queryOptions } from '@tanstack/react-query';
import * as z from 'zod/mini';
import type { Api, SendInit } from './api';
import {
  createdInviteResponseSchema,
  inviteListResponseSchema,
  joinCodeResponseSchema,
  joinedWorkspaceResponseSchema,
  normalizeJoinCode,
  type CreateInviteBody,
} from '@contract/invites';
import {
  memberListResponseSchema,
  memberResponseSchema,
  workspaceResponseSchema,
  type CreateWorkspaceBody,
  type Privilege,
  type UpdateWorkspaceBody,
} from '@contract/workspaces';

/** 204 answers have an empty body, which the API client reads as undefined. */
const noContent = z.undefined();

/** Every call goes through `api.send`: the session's token handling, retries, reporting and schema checks. */
const send = <S extends z.ZodMiniType>(api: Api, path: string, schema: S, init: SendInit) =>
  api.send(path, schema, init);

const workspacePath = (workspaceId: string) => `workspaces/${encodeURIComponent(workspaceId)}`;

export const createWorkspace = (api: Api, body: CreateWorkspaceBody) =>
  send(api, 'workspaces', workspaceResponseSchema, { method: 'POST', body });

export const updateWorkspace = (api: Api, workspaceId: string, body: UpdateWorkspaceBody) =>
  send(api, workspacePath(workspaceId), workspaceResponseSchema, { method: 'PATCH', body });

export const joinWithCode = (api: Api, code: string) =>
  send(api, 'user/me/join', joinedWorkspaceResponseSchema, {
    method: 'POST',
    body: { code: normalizeJoinCode(code) },
  });

const listMembers = (api: Api, workspaceId: string) =>
  send(api, `${workspacePath(workspaceId)}/members`, memberListResponseSchema, { method: 'GET' });

export const updateMember = (api: Api, workspaceId: string, userId: string, privilege: Privilege) =>
  send(api, `${workspacePath(workspaceId)}/members/${encodeURIComponent(userId)}`, memberResponseSchema, {
    method: 'PATCH',
    body: { privilege },
  });

export const removeMember = (api: Api, workspaceId: string, userId: string) =>
  send(api, `${workspacePath(workspaceId)}/members/${encodeURIComponent(userId)}`, noContent, {
    method: 'DELETE',
  });

export const leaveWorkspace = (api: Api, workspaceId: string) =>
  send(api, `${workspacePath(workspaceId)}/leave`, noContent, { method: 'POST' });

const listInvites = (api: Api, workspaceId: string) =>
  send(api, `${workspacePath(workspaceId)}/invites`, inviteListResponseSchema, { method: 'GET' });

export const createInvite = (api: Api, workspaceId: string, body: CreateInviteBody) =>
  send(api, `${workspacePath(workspaceId)}/invites`, createdInviteResponseSchema, { method: 'POST', body });

export const revokeInvite = (api: Api, workspaceId: string, inviteId: string) =>
  send(api, `${workspacePath(workspaceId)}/invites/${encodeURIComponent(inviteId)}`, noContent, {
    method: 'DELETE',
  });

const getJoinCode = (api: Api, workspaceId: string) =>
  send(api, `${workspacePath(workspaceId)}/join-code`, joinCodeResponseSchema, { method: 'GET' });

export const rotateJoinCode = (api: Api, workspaceId: string) =>
  send(api, `${workspacePath(workspaceId)}/join-code/rotate`, joinCodeResponseSchema, { method: 'POST' });

// Query options. Keys sit under ['workspaces', id] so dropping a workspace drops everything cached about it.

export const membersQuery = (api: Api, workspaceId: string) =>
  queryOptions({
    queryKey: ['workspaces', workspaceId, 'members'] as const,
    queryFn: () => listMembers(api, workspaceId),
    staleTime: 30_000,
  });

export const invitesQuery = (api: Api, workspaceId: string) =>
  queryOptions({
    queryKey: ['workspaces', workspaceId, 'invites'] as const,
    queryFn: () => listInvites(api, workspaceId),
    staleTime: 30_000,
  });

export const joinCodeQuery = (api: Api, workspaceId: string) =>
  queryOptions({
    queryKey: ['workspaces', workspaceId, 'join-code'] as const,
    queryFn: () => getJoinCode(api, workspaceId),
    staleTime: 60_000,
  });
