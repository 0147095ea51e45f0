// The frame of every page inside a workspace, as markup (WorkspaceLayout.tsx gives it its data). Without stylesheet
// imports: the build also draws it into the dashboards' shells (scripts/prerender-shell-markup.tsx).
import type { ReactNode } from 'react';

/** The navigation between a workspace's pages. */
export const WORKSPACE_NAV = [
  { to: '/workspace/$workspaceId/saved-queries', label: 'Saved queries' },
  { to: '/workspace/$workspaceId/alerts', label: 'Alerts' },
  { to: '/workspace/$workspaceId/discover', label: 'Discover' },
  { to: '/workspace/$workspaceId/insight', label: 'Insights' },
  { to: '/workspace/$workspaceId/settings', label: 'Settings' },
] as const;

/** The header, the navigation (an empty column without it) and the page. */
export function WorkspaceFrame({
  header,
  nav,
  children,
}: {
  header: ReactNode;
  nav: ReactNode;
  children: ReactNode;
}) {
  return (
    <div className="workspace-shell">
      <a className="skip-link" href="#workspace-main">
        Skip to content
      </a>
      {header}
      {nav ?? <div className="sidebar" />}
      <main id="workspace-main" className="workspace-main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
