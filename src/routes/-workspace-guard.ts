// The ordered workspace checks (spec §4) with the app's side effects, loaded with the first workspace page; -guards.ts
// redirects on their outcome.
import { fromPromise } from 'xstate';
import { HttpError } from '@/api/errors';
import { meQuery, workspaceQuery } from '@/api/queries';
import { decide } from '@/lib/decide';
import { rememberLastWorkspace } from '@/lib/last-workspace';
import {
  WorkspaceAccessError,
  workspaceGuardMachine,
  type GuardWorkspace,
  type WorkspaceGuardOutcome,
} from '@/machines/workspace-guard.machine';
import type { RouterContext } from '@/router-context';
import { fetchUser } from './-user';

export interface WorkspaceDecisionInput {
  workspaceId: string;
  /** The address entered, sent with the page view. */
  pathname: string;
  preload: boolean;
  /** The page being entered (workspacePage). */
  page: string | null;
  /** The address only redirects to a child page (isRedirectOnly). */
  redirecting: boolean;
}

/** Runs the workspace guard statechart to its final state: its outcome, with its side effects performed. */
export async function decideWorkspace(
  context: RouterContext,
  { workspaceId, pathname, preload, page, redirecting }: WorkspaceDecisionInput,
): Promise<WorkspaceGuardOutcome> {
  const { api, queryClient } = context;
  const cached = queryClient.getQueryData(workspaceQuery(api, workspaceId).queryKey);
  return decide(
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
      page,
      internalWorkspaceId: context.config.VITE_INTERNAL_WORKSPACE_ID,
      cachedWorkspace: cached ?? null,
      preload,
      redirecting,
    },
    context.inspect,
  );
}
