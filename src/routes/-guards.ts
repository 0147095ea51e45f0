// Route guards: each runs a decision statechart with the app's side effects provided, then redirects on its output.
import { redirect, type AnyRouteMatch } from '@tanstack/react-router';
import * as z from 'zod/mini';
import { fromPromise } from 'xstate';
import { decide } from '@/lib/decide';
import { messages } from '@/lib/messages';
import { notices } from '@/lib/notices';
import { showToast } from '@/lib/toast';
import { readLastWorkspace } from '@/lib/last-workspace';
import { keepReturnTo } from '@/lib/return-to';
import { isStaff } from '@/lib/staff';
import { meQuery } from '@/api/queries';
import type { AcceptedInvite } from '@/machines/invite.machine';
import { loginRedirectMachine, type UserWorkspaces } from '@/machines/login-redirect.machine';
import type { RouterContext } from '@/router-context';
import { fetchUser } from './-user';

/**
 * An invite was accepted (by /invite or /login?token): the person is now a member, so users/me is read again before
 * the workspace opens (the switcher lists it), and they are told, as a join code tells them; someone who already
 * belonged is told that instead.
 */
function confirmJoined(context: RouterContext, alreadyMember: boolean, preload: boolean) {
  if (preload) return;
  void context.queryClient.invalidateQueries({ queryKey: meQuery(context.api).queryKey });
  showToast('success', alreadyMember ? notices.alreadyMember : notices.joinedWorkspace);
}

function validateInviteActor(context: RouterContext) {
  return fromPromise<AcceptedInvite, { token: string }>(async ({ input }) => {
    const result = await context.api.validateInvite(input.token);
    return { workspaceId: result.id, alreadyMember: result.already_member };
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
      if (decision.reason === 'invite') confirmJoined(context, decision.alreadyMember, preload);
      throw redirect({ to: '/workspace/$workspaceId', params: { workspaceId: decision.workspaceId } });
    case 'createWorkspace':
      throw redirect({ to: '/workspace/create/name' });
  }
}

export async function inviteGuard(context: RouterContext, token: string | undefined, preload: boolean) {
  // Loaded when an invite link is opened, not with the sign-in screen.
  const { inviteMachine } = await import('@/machines/invite.machine');
  const outcome = await decide(
    inviteMachine.provide({ actors: { validateInvite: validateInviteActor(context) } }),
    { token: token ?? null, isLoggedIn: context.session.isLoggedIn() },
    context.inspect,
  );
  if (outcome.kind === 'workspace') {
    confirmJoined(context, outcome.alreadyMember, preload);
    throw redirect({ to: '/workspace/$workspaceId', params: { workspaceId: outcome.workspaceId } });
  }
  if (outcome.notice === 'loginRequired') {
    if (!preload) showToast('info', messages.loginRequired);
    throw redirect({ to: '/login', search: { token: outcome.token } });
  }
  if (!preload) showToast('error', messages.invalidInviteToken);
  throw redirect({ to: '/login', search: {} });
}

/**
 * Spec §6: invite and workspace routes require login. Not the spec's: the page a signed-out person opened (`path`:
 * pathname, search and hash) is kept for this tab, and after they sign in they land there when they may still see
 * it (src/features/auth/return-to.ts); /login itself decides exactly as the spec says.
 */
export function requireLogin(context: RouterContext, path: string, preload: boolean) {
  if (context.session.isLoggedIn()) return;
  if (!preload) keepReturnTo(path);
  throw redirect({ to: '/login', search: {} });
}

/**
 * /scraping is for staff (the spec says only that it is an internal screen). Staff is known from users/me
 * (src/lib/staff.ts). Anyone else is told so and sent to /login, whose decision (spec §2) opens their own workspace.
 * A failed users/me goes to /login too, as the workspace guard's does.
 */
export async function scrapingGuard(context: RouterContext, preload: boolean) {
  const me = await fetchUser(context).catch(() => null);
  if (me && isStaff(me, context.config.VITE_INTERNAL_WORKSPACE_ID)) return;
  if (me && !preload) showToast('error', notices.staffOnly);
  throw redirect({ to: '/login', search: {} });
}

declare module '@tanstack/react-router' {
  interface StaticDataRouteOption {
    /** The route only redirects to a child page (e.g. /insight → /insight/overview): the page view is the child's. */
    redirectOnly?: boolean;
  }
}

/** The matches a guard sees: every route of the address being entered, outermost first. */
type Matches = ReadonlyArray<Pick<AnyRouteMatch, 'routeId' | 'staticData'>>;

/**
 * The page being entered inside a workspace, read from the route tree: the first segment of the id of the route
 * matched below the workspace route ('saved-queries', 'insight', 'plan-required', …), or null for the workspace's
 * index route (and for an address no child route matches).
 */
export function workspacePage(matches: Matches, workspaceRouteId: string): string | null {
  const index = matches.findIndex((match) => match.routeId === workspaceRouteId);
  const child = index === -1 ? undefined : matches[index + 1];
  if (!child) return null;
  return child.routeId.slice(workspaceRouteId.length + 1).split('/')[0] || null;
}

/** The address only redirects to a child page: its deepest route says so (staticData.redirectOnly). */
export const isRedirectOnly = (matches: Matches): boolean =>
  matches.at(-1)?.staticData?.redirectOnly === true;

export interface WorkspaceGuardOptions {
  workspaceId: string;
  /** The address entered, sent with the page view. */
  pathname: string;
  preload: boolean;
  matches: Matches;
  /** The id of the route that runs the guard (its children are the workspace's pages). */
  routeId: string;
}

export async function workspaceGuard(
  context: RouterContext,
  { workspaceId, pathname, preload, matches, routeId }: WorkspaceGuardOptions,
) {
  // The statechart and its side effects are signed-in code: loaded with the first workspace page, not with the sign-in
  // screen (main.tsx starts loading them at once when a visit begins signed in).
  const { decideWorkspace } = await import('./-workspace-guard');
  const outcome = await decideWorkspace(context, {
    workspaceId,
    pathname,
    preload,
    page: workspacePage(matches, routeId),
    redirecting: isRedirectOnly(matches),
  });
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

/**
 * Search params carrying an invite token (validated by the router, which accepts any Standard Schema such as zod's):
 * anything but a string of 1–512 characters falls back to no token, never a crash.
 */
export const tokenSearchSchema = z.object({
  token: z.catch(z.optional(z.string().check(z.minLength(1), z.maxLength(512))), undefined),
});
