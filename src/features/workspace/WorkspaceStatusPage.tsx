import { Link, useParams } from '@tanstack/react-router';
import { useQuery } from '@tanstack/react-query';
import { workspaceQuery } from '@/api/queries';
import { apiProblem } from '@/api/errors';
import { FormError } from '@/components/Field';
import { PageFrame } from '@/components/PageFrame';
import { Pending } from '@/components/Pending';
import { useApp } from '@/components/use-app';
import type { Privilege } from '@contract/workspaces';
import { workspaceState } from './workspace-status';

const A_ROLE: Record<Privilege, string> = { owner: 'an owner', manager: 'a manager', viewer: 'a viewer' };

/** /login decides: the last-used workspace, the first one, or creation (spec §2). */
function BackToWorkspaces({ primary = false }: { primary?: boolean }) {
  return (
    <Link to="/login" search={{}} className={primary ? 'button primary' : 'button'}>
      Go to your workspaces
    </Link>
  );
}

/**
 * plan-required and invalid-workspace (spec §4: the guard sends an expired plan's owner to the first and anyone else
 * to the second; both skip the checks, so either can also be opened directly). Either shows the workspace as it is:
 * an expired plan (renewal for an owner, its owner to ask for anyone else), a workspace the user is not in, or, for a
 * workspace in good order, that it is open, with the way in. Each offers a way back to the user's workspaces.
 */
export function WorkspaceStatusPage() {
  const { workspaceId } = useParams({ from: '/_authed/workspace/$workspaceId' });
  const { api } = useApp();
  const query = useQuery(workspaceQuery(api, workspaceId));
  const state = workspaceState(query);

  switch (state.kind) {
    case 'loading':
      return <Pending label="Loading the workspace…" />;
    case 'noAccess':
      return (
        <PageFrame
          title="This workspace is not available"
          description="You are not a member of this workspace, or it does not exist. Ask its owner for access."
        >
          <BackToWorkspaces primary />
        </PageFrame>
      );
    case 'failed':
      return (
        <PageFrame title="This workspace could not be loaded">
          <FormError message={apiProblem(state.error).message} />
          <div className="form-actions">
            <button type="button" className="button primary" onClick={() => void query.refetch()}>
              Try again
            </button>
            <BackToWorkspaces />
          </div>
        </PageFrame>
      );
    case 'expired':
      return state.workspace.privilege === 'owner' ? (
        <PageFrame title="Your plan has expired" description="Renew the plan to open this workspace again.">
          <div className="form-actions">
            <Link to="/workspace/$workspaceId/checkout" params={{ workspaceId }} className="button primary">
              Renew plan
            </Link>
            <BackToWorkspaces />
          </div>
        </PageFrame>
      ) : (
        <PageFrame
          title="This workspace is not available"
          description={`The plan of “${state.workspace.name}” has expired. Ask its owner to renew it.`}
        >
          <BackToWorkspaces primary />
        </PageFrame>
      );
    case 'open':
      return (
        <PageFrame
          title="This workspace is available"
          description={`You are ${A_ROLE[state.workspace.privilege]} of “${state.workspace.name}”, and its plan is active.`}
        >
          <div className="form-actions">
            <Link to="/workspace/$workspaceId" params={{ workspaceId }} className="button primary">
              Open {state.workspace.name}
            </Link>
            <BackToWorkspaces />
          </div>
        </PageFrame>
      );
  }
}
