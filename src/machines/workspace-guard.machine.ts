// The ordered workspace route guard (spec §4, steps 1–5), run by /workspace/{workspaceId}'s beforeLoad.
import { and, assign, fromPromise, setup } from 'xstate';

import type { Privilege } from '@contract/workspaces';

export interface GuardWorkspace {
  id: string;
  /** Unix seconds; null when the plan does not expire. */
  plan_expired_at: number | null;
  privilege: Privilege;
}

/** Child pages that skip every check (step 1). */
export const UNGUARDED_WORKSPACE_PAGES = ['plan-required', 'invalid-workspace', 'checkout'] as const;

export type WorkspaceGuardOutcome =
  | { kind: 'allow' }
  | { kind: 'login' }
  | { kind: 'planRequired' }
  | { kind: 'invalidWorkspace' }
  | { kind: 'error'; error: unknown };

export interface WorkspaceGuardInput {
  workspaceId: string;
  /** The child page segment being entered (e.g. 'saved-queries'), or null for the workspace index. */
  page: string | null;
  internalWorkspaceId: string;
  cachedWorkspace: GuardWorkspace | null;
  /** True when the router is only preloading (hover): no side effects then. */
  preload: boolean;
  /** True when the address only redirects to a child page (e.g. /insight → /insight/overview): that page is viewed. */
  redirecting: boolean;
}

interface WorkspaceGuardContext extends WorkspaceGuardInput {
  workspace: GuardWorkspace | null;
  outcome: WorkspaceGuardOutcome;
}

export class WorkspaceAccessError extends Error {
  override name = 'WorkspaceAccessError';
}

export const workspaceGuardMachine = setup({
  types: {
    input: {} as WorkspaceGuardInput,
    context: {} as WorkspaceGuardContext,
    output: {} as WorkspaceGuardOutcome,
  },
  actors: {
    fetchSession: fromPromise<unknown>(async () => {
      throw new Error('fetchSession is not provided');
    }),
    loadWorkspace: fromPromise<GuardWorkspace, { workspaceId: string }>(async () => {
      throw new Error('loadWorkspace is not provided');
    }),
  },
  guards: {
    skipsChecks: ({ context }) =>
      (context.internalWorkspaceId !== '' && context.workspaceId === context.internalWorkspaceId) ||
      (UNGUARDED_WORKSPACE_PAGES as readonly string[]).includes(context.page ?? ''),
    isWorkspaceCached: ({ context }) => context.cachedWorkspace?.id === context.workspaceId,
    isNoAccess: ({ event }) => (event as { error?: unknown }).error instanceof WorkspaceAccessError,
    isPlanExpired: ({ context }) =>
      context.workspace?.plan_expired_at != null && context.workspace.plan_expired_at * 1000 < Date.now(),
    isOwner: ({ context }) => context.workspace?.privilege === 'owner',
    isPreload: ({ context }) => context.preload,
    isRedirectOnly: ({ context }) => context.redirecting,
  },
  actions: {
    useCachedWorkspace: assign({ workspace: ({ context }) => context.cachedWorkspace }),
    assignWorkspace: assign({
      workspace: ({ event }) => (event as unknown as { output: GuardWorkspace }).output,
    }),
    decideAllow: assign({ outcome: { kind: 'allow' } as WorkspaceGuardOutcome }),
    decideLogin: assign({ outcome: { kind: 'login' } as WorkspaceGuardOutcome }),
    decidePlanRequired: assign({ outcome: { kind: 'planRequired' } as WorkspaceGuardOutcome }),
    decideInvalidWorkspace: assign({ outcome: { kind: 'invalidWorkspace' } as WorkspaceGuardOutcome }),
    decideError: assign({
      outcome: ({ event }) => ({ kind: 'error' as const, error: (event as { error?: unknown }).error }),
    }),
    // Side effects, provided by the app:
    trackPageView: () => {},
    rememberLastWorkspace: () => {},
  },
}).createMachine({
  id: 'workspaceGuard',
  description: 'Spec §4 "Workspace route guard", checks in order.',
  context: ({ input }) => ({ ...input, workspace: null, outcome: { kind: 'allow' } }),
  initial: 'start',
  output: ({ context }) => context.outcome,
  states: {
    start: {
      always: [
        {
          guard: 'skipsChecks',
          target: 'allowedWithoutChecks',
          description:
            '1. The internal id and the pages plan-required, invalid-workspace and checkout skip all checks.',
        },
        { target: 'fetchingSession' },
      ],
    },
    fetchingSession: {
      description: '2. The user session is fetched.',
      invoke: {
        id: 'fetchSession',
        src: 'fetchSession',
        onDone: { target: 'checkingCache' },
        onError: { target: 'toLogin' },
      },
    },
    checkingCache: {
      description: '3. The workspace is loaded if it is not cached or the id differs.',
      always: [
        { guard: 'isWorkspaceCached', target: 'checkingPlan', actions: 'useCachedWorkspace' },
        { target: 'loadingWorkspace' },
      ],
    },
    loadingWorkspace: {
      invoke: {
        id: 'loadWorkspace',
        src: 'loadWorkspace',
        input: ({ context }) => ({ workspaceId: context.workspaceId }),
        onDone: { target: 'checkingPlan', actions: 'assignWorkspace' },
        onError: [
          { guard: 'isNoAccess', target: 'invalidWorkspace', description: 'Not a member: 403/404.' },
          { target: 'failed' },
        ],
      },
    },
    checkingPlan: {
      description:
        '4. An expired plan sends an owner to plan-required and any other role to invalid-workspace.',
      always: [
        { guard: and(['isPlanExpired', 'isOwner']), target: 'planRequired' },
        { guard: 'isPlanExpired', target: 'invalidWorkspace' },
        { guard: 'isPreload', target: 'allowed', description: 'A hover preload: no side effects.' },
        {
          guard: 'isRedirectOnly',
          target: 'allowed',
          description: 'The address redirects to a child page; the page view is sent for that page.',
        },
        {
          target: 'allowed',
          actions: ['trackPageView', 'rememberLastWorkspace'],
          description: '5. A PageView event with the path and workspaceId.',
        },
      ],
    },
    allowedWithoutChecks: { type: 'final', entry: 'decideAllow' },
    allowed: { type: 'final', entry: 'decideAllow' },
    toLogin: { type: 'final', entry: 'decideLogin' },
    planRequired: { type: 'final', entry: 'decidePlanRequired' },
    invalidWorkspace: { type: 'final', entry: 'decideInvalidWorkspace' },
    failed: { type: 'final', entry: 'decideError' },
  },
});
