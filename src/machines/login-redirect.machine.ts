// The /login/ decision (spec §2 and §4 "Login and redirect decision"), run by the route's beforeLoad.
import { assign, fromPromise, setup } from 'xstate';
import type { AcceptedInvite } from './invite.machine';

/** What the decision needs to know about the signed-in user. */
export interface UserWorkspaces {
  userId: string;
  workspaceIds: string[];
  /** The last-used workspace stored for this user, if any. */
  lastWorkspaceId: string | null;
}

export type LoginDecision =
  | { kind: 'showLogin' }
  | { kind: 'showLoginWithError'; error: 'invalidInviteToken' }
  | { kind: 'workspace'; workspaceId: string; reason: 'invite'; alreadyMember: boolean }
  | { kind: 'workspace'; workspaceId: string; reason: 'lastUsed' | 'first' }
  | { kind: 'createWorkspace' };

export interface LoginRedirectInput {
  isLoggedIn: boolean;
  inviteToken: string | null;
}

interface LoginRedirectContext extends LoginRedirectInput {
  user: UserWorkspaces | null;
  decision: LoginDecision;
}

export const loginRedirectMachine = setup({
  types: {
    input: {} as LoginRedirectInput,
    context: {} as LoginRedirectContext,
    output: {} as LoginDecision,
  },
  actors: {
    loadUser: fromPromise<UserWorkspaces>(async () => {
      throw new Error('loadUser is not provided');
    }),
    validateInvite: fromPromise<AcceptedInvite, { token: string }>(async () => {
      throw new Error('validateInvite is not provided');
    }),
  },
  guards: {
    isLoggedIn: ({ context }) => context.isLoggedIn,
    hasInviteToken: ({ context }) => Boolean(context.inviteToken),
    lastUsedStillMember: ({ context }) =>
      context.user?.lastWorkspaceId != null &&
      context.user.workspaceIds.includes(context.user.lastWorkspaceId),
    hasAnyWorkspace: ({ context }) => (context.user?.workspaceIds.length ?? 0) > 0,
  },
  actions: {
    assignUser: assign({ user: ({ event }) => (event as unknown as { output: UserWorkspaces }).output }),
    decideShowLogin: assign({ decision: { kind: 'showLogin' } as LoginDecision }),
    decideInvalidInvite: assign({
      decision: { kind: 'showLoginWithError', error: 'invalidInviteToken' } as LoginDecision,
    }),
    decideInvitedWorkspace: assign({
      decision: ({ event }) => {
        const { workspaceId, alreadyMember } = (event as unknown as { output: AcceptedInvite }).output;
        return { kind: 'workspace' as const, workspaceId, reason: 'invite' as const, alreadyMember };
      },
    }),
    decideLastUsedWorkspace: assign({
      decision: ({ context }) => ({
        kind: 'workspace' as const,
        workspaceId: context.user?.lastWorkspaceId ?? '',
        reason: 'lastUsed' as const,
      }),
    }),
    decideFirstWorkspace: assign({
      decision: ({ context }) => ({
        kind: 'workspace' as const,
        workspaceId: context.user?.workspaceIds[0] ?? '',
        reason: 'first' as const,
      }),
    }),
    decideCreateWorkspace: assign({ decision: { kind: 'createWorkspace' } as LoginDecision }),
  },
}).createMachine({
  id: 'loginRedirect',
  description:
    'Where /login/ sends a visitor: the login screen, an invited workspace, the last-used or first one, or creation.',
  context: ({ input }) => ({ ...input, user: null, decision: { kind: 'showLogin' } }),
  initial: 'start',
  output: ({ context }) => context.decision,
  states: {
    start: {
      always: [{ guard: 'isLoggedIn', target: 'loadingUser' }, { target: 'showLogin' }],
    },
    loadingUser: {
      invoke: {
        id: 'loadUser',
        src: 'loadUser',
        onDone: [
          { guard: 'hasInviteToken', target: 'validatingInvite', actions: 'assignUser' },
          { target: 'choosingWorkspace', actions: 'assignUser' },
        ],
        onError: { target: 'showLogin', description: 'The lookup failed: the login screen is shown.' },
      },
    },
    validatingInvite: {
      invoke: {
        id: 'validateInvite',
        src: 'validateInvite',
        input: ({ context }) => ({ token: context.inviteToken ?? '' }),
        onDone: { target: 'invitedWorkspace' },
        onError: { target: 'inviteRejected' },
      },
    },
    choosingWorkspace: {
      always: [
        { guard: 'lastUsedStillMember', target: 'lastUsedWorkspace' },
        { guard: 'hasAnyWorkspace', target: 'firstWorkspace' },
        { target: 'workspaceCreation' },
      ],
    },
    showLogin: { type: 'final', entry: 'decideShowLogin' },
    inviteRejected: {
      type: 'final',
      entry: 'decideInvalidInvite',
      description: "'Invalid invite token' is shown and the user stays on login.",
    },
    invitedWorkspace: { type: 'final', entry: 'decideInvitedWorkspace' },
    lastUsedWorkspace: { type: 'final', entry: 'decideLastUsedWorkspace' },
    firstWorkspace: { type: 'final', entry: 'decideFirstWorkspace' },
    workspaceCreation: { type: 'final', entry: 'decideCreateWorkspace' },
  },
});
