// Route guards: each runs a decision statechart with the app's side effects provided, then redirects on its output.
import { redirect } from '@tanstack/react-router';
import { fromPromise } from 'xstate';
import { decide } from '../lib/decide';
import { messages } from '../lib/messages';
import { showToast } from '../lib/toast';
import { readLastWorkspace, rememberLastWorkspace } from '../lib/last-workspace';
import { HttpError } from '../api/errors';
import { meQuery, workspaceQuery } from '../api/queries';
import { loginRedirectMachine, type UserWorkspaces } from '../machines/login-redirect.machine';
import { inviteMachine } from '../machines/invite.machine';
import {
  WorkspaceAccessError,
  workspaceGuardMachine,
  type GuardWorkspace,
} from '../machines/workspace-guard.machine';
import type { RouterContext } from '../router-context';

/** Fetches the current user (cached briefly) and hands the error-reporting service its user context. */
async function fetchUser(context: RouterContext) {
  const me = await context.queryClient.fetchQuery(meQuery(context.api));
  context.reporter.setUser({ id: me.id, email: me.email });
  return me;
}

function validateInviteActor(context: RouterContext) {
  return fromPromise<{ workspaceId: string }, { token: string }>(async ({ input }) => {
    const result = await context.api.validateInvite(input.token);
    return { workspaceId: result.id };
  });
}

export async function loginGuard(context: RouterContext, inviteToken: string | undefined, preload: boolean) {
  const decision = await decide(
    loginRedirectMachine.provide({
      actors: {
        loadUser: fromPromise<UserWorkspaces>(async () => {
          const me = await fetchUser(context);
          return {
            userId: me.id,
            workspaceIds: me.workspaces.map((w) => w.id),
            lastWorkspaceId: readLastWorkspace(me.id),
          };
        }),
        validateInvite: validateInviteActor(context),
      },
    }),
    { isLoggedIn: context.session.isLoggedIn(), inviteToken: inviteToken ?? null },
    context.inspect,
  );
  switch (decision.kind) {
    case 'showLogin':
      return;
    case 'showLoginWithError':
      if (!preload) showToast('error', messages.invalidInviteToken);
      return;
    case 'workspace':
      throw redirect({ to: '/workspace/$workspaceId', params: { workspaceId: decision.workspaceId } });
    case 'createWorkspace':
      throw redirect({ to: '/workspace/create/name' });
  }
}

export async function inviteGuard(context: RouterContext, token: string | undefined, preload: boolean) {
  const outcome = await decide(
    inviteMachine.provide({ actors: { validateInvite: validateInviteActor(context) } }),
    { token: token ?? null, isLoggedIn: context.session.isLoggedIn() },
    context.inspect,
  );
  if (outcome.kind === 'workspace') {
    throw redirect({ to: '/workspace/$workspaceId', params: { workspaceId: outcome.workspaceId } });
  }
  if (outcome.notice === 'loginRequired') {
    if (!preload) showToast('info', messages.loginRequired);
    throw redirect({ to: '/login', search: { token: outcome.token } });
  }
  if (!preload) showToast('error', messages.invalidInviteToken);
  throw redirect({ to: '/login', search: {} });
}

/** Spec §6: invite and workspace routes require login. */
export function requireLogin(context: RouterContext) {
  if (!context.session.isLoggedIn()) throw redirect({ to: '/login', search: {} });
}

/** The child segment after /workspace/{id}/, e.g. 'saved-queries' or 'insight'; null on the workspace index. */
export function workspacePage(pathname: string, workspaceId: string): string | null {
  const prefix = `/workspace/${encodeURIComponent(workspaceId)}/`;
  if (!pathname.startsWith(prefix)) return null;
  return pathname.slice(prefix.length).split('/')[0] || null;
}

/** Addresses inside a workspace whose index route only redirects to a child page. */
const REDIRECT_ONLY_SECTIONS = new Set(['insight', 'settings']);

export function isRedirectOnlyAddress(pathname: string, workspaceId: string): boolean {
  const prefix = `/workspace/${encodeURIComponent(workspaceId)}`;
  const segments = pathname.slice(prefix.length).split('/').filter(Boolean);
  return segments.length === 0 || (segments.length === 1 && REDIRECT_ONLY_SECTIONS.has(segments[0]!));
}

export async function workspaceGuard(
  context: RouterContext,
  workspaceId: string,
  pathname: string,
  preload: boolean,
) {
  const { api, queryClient } = context;
  const cached = queryClient.getQueryData(workspaceQuery(api, workspaceId).queryKey);
  const outcome = await decide(
    workspaceGuardMachine.provide({
      actors: {
        fetchSession: fromPromise<unknown>(() => fetchUser(context)),
        loadWorkspace: fromPromise<GuardWorkspace, { workspaceId: string }>(async ({ input }) => {
          try {
            return await queryClient.fetchQuery(workspaceQuery(api, input.workspaceId));
          } catch (error) {
            if (error instanceof HttpError && (error.status === 403 || error.status === 404)) {
              throw new WorkspaceAccessError(`No access to workspace ${input.workspaceId}`);
            }
            throw error;
          }
        }),
      },
      actions: {
        trackPageView: () => context.analytics.pageView(pathname, workspaceId),
        rememberLastWorkspace: () => {
          const me = queryClient.getQueryData(meQuery(api).queryKey);
          if (me) rememberLastWorkspace(me.id, workspaceId);
        },
      },
    }),
    {
      workspaceId,
      page: workspacePage(pathname, workspaceId),
      internalWorkspaceId: context.config.VITE_INTERNAL_WORKSPACE_ID,
      cachedWorkspace: cached ?? null,
      preload,
      redirecting: isRedirectOnlyAddress(pathname, workspaceId),
    },
    context.inspect,
  );
  switch (outcome.kind) {
    case 'allow':
      return;
    case 'login':
      throw redirect({ to: '/login', search: {} });
    case 'planRequired':
      throw redirect({ to: '/workspace/$workspaceId/plan-required', params: { workspaceId } });
    case 'invalidWorkspace':
      throw redirect({ to: '/workspace/$workspaceId/invalid-workspace', params: { workspaceId } });
    case 'error':
      throw outcome.error;
  }
}

/** Search params carrying an invite token: anything but a non-empty string is dropped, never a crash. */
export function tokenSearch(search: { token?: unknown }): { token?: string } {
  const token = search.token;
  return typeof token === 'string' && token.length > 0 && token.length <= 512 ? { token } : {};
}
