import { Link, Outlet, useParams } from '@tanstack/react-router';
import { useQuery } from '@tanstack/react-query';
import { meQuery, workspaceQuery } from '../../api/queries';
import { useApp } from '../../components/use-app';
import { useSignOut } from '../../components/use-session';

const NAV = [
  { to: '/workspace/$workspaceId/saved-queries', label: 'Saved queries' },
  { to: '/workspace/$workspaceId/discover', label: 'Discover' },
  { to: '/workspace/$workspaceId/insight', label: 'Insights' },
  { to: '/workspace/$workspaceId/settings', label: 'Settings' },
] as const;

/** The frame of every page inside a workspace: the workspace, the user, and the navigation between pages. */
export function WorkspaceLayout() {
  const { workspaceId } = useParams({ from: '/_authed/workspace/$workspaceId' });
  const { api } = useApp();
  const signOut = useSignOut();
  // Not suspended on, unlike a page's data: this frame also holds the status pages (plan-required,
  // invalid-workspace, checkout), which the guard lets through without loading a workspace that may be unreachable.
  const workspace = useQuery(workspaceQuery(api, workspaceId));
  const me = useQuery(meQuery(api));

  return (
    <div className="workspace-shell">
      <a className="skip-link" href="#workspace-main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/workspace/$workspaceId" params={{ workspaceId }} className="brand">
          Murmur
        </Link>
        <span className="workspace-name" aria-live="polite">
          {workspace.isLoading ? 'Loading workspace…' : (workspace.data?.name ?? workspaceId)}
        </span>
        <span className="spacer" />
        {me.data ? <span className="muted small">{me.data.email}</span> : null}
        <button type="button" className="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <nav className="sidebar" aria-label="Workspace">
        {NAV.map((item) => (
          <Link key={item.to} to={item.to} params={{ workspaceId }} activeProps={{ 'aria-current': 'page' }}>
            {item.label}
          </Link>
        ))}
      </nav>
      <main id="workspace-main" className="workspace-main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
