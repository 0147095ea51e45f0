import { Link, Outlet, useParams } from '@tanstack/react-router';
import { useQuery } from '@tanstack/react-query';
import { meQuery, workspaceQuery } from '@/api/queries';
import { AppHeader } from '@/components/AppHeader';
import { useApp } from '@/components/use-app';
import { isPlanExpired } from './workspace-status';
import { TrialNotice } from '@/components/TrialNotice';
import { WORKSPACE_NAV, WorkspaceFrame } from './WorkspaceFrame';

/** The frame of every page inside a workspace: the header (switcher, user, sign-out) and the navigation between pages. */
export function WorkspaceLayout() {
  const { workspaceId } = useParams({ from: '/_authed/workspace/$workspaceId' });
  const { api } = useApp();
  // Not suspended on, unlike a page's data: this frame also holds the status pages (plan-required,
  // invalid-workspace, checkout), which the guard lets through without loading a workspace that may be unreachable.
  const workspace = useQuery(workspaceQuery(api, workspaceId));
  const me = useQuery(meQuery(api));
  // The workspace's pages are offered only to a member of a workspace whose plan is running: nothing of a workspace
  // the user is not in (an unknown id included), and no links that an expired plan would turn back.
  const member = me.data?.workspaces.some((w) => w.id === workspaceId) ?? false;
  const open = member && workspace.data !== undefined && !isPlanExpired(workspace.data);

  return (
    <WorkspaceFrame
      header={<AppHeader place={{ workspaceId }} />}
      nav={
        open ? (
          <nav className="sidebar" aria-label="Workspace">
            {WORKSPACE_NAV.map((item) => (
              <Link
                key={item.to}
                to={item.to}
                params={{ workspaceId }}
                activeProps={{ 'aria-current': 'page' }}
              >
                {item.label}
              </Link>
            ))}
          </nav>
        ) : null
      }
    >
      {open ? <TrialNotice workspace={workspace.data} /> : null}
      <Outlet />
    </WorkspaceFrame>
  );
}
