import { Link, Outlet, useNavigate, useParams } from '@tanstack/react-router';
import { useQuery } from '@tanstack/react-query';
import { meQuery, workspaceQuery } from '../../api/queries';
import { useApp } from '../../components/use-app';

const NAV = [
  { to: '/workspace/$workspaceId/saved-queries', label: 'Saved queries' },
  { to: '/workspace/$workspaceId/discover', label: 'Discover' },
  { to: '/workspace/$workspaceId/insight', label: 'Insights' },
  { to: '/workspace/$workspaceId/settings', label: 'Settings' },
] as const;

/** The frame of every page inside a workspace: the workspace, the user, and the navigation between pages. */
export function WorkspaceLayout() {
  const { workspaceId = '' } = useParams({ strict: false });
  const { api, session, queryClient } = useApp();
  const navigate = useNavigate();
  const workspace = useQuery({ ...workspaceQuery(api, workspaceId), enabled: session.isLoggedIn() });
  const me = useQuery({ ...meQuery(api), enabled: session.isLoggedIn() });

  const signOut = () => {
    // Best effort: the server ends this sign-in's refresh tokens; signing out here never waits for it or fails on it.
    const refreshToken = session.actor.getSnapshot().context.tokens?.refresh_token;
    if (refreshToken) void api.logout(refreshToken).catch(() => undefined);
    // The session's LOGOUT removes the tokens and clears the error-reporting user (spec §4).
    session.logout();
    queryClient.clear();
    void navigate({ to: '/login', search: {} });
  };

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
