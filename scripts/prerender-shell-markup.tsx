// A dashboard's shell as the app draws that dashboard while its answer is on the way, less what only the user's data
// says: the workspace frame (header, navigation), the dashboards' tabs, the dashboard's heading and its skeleton. Loaded
// by the build (scripts/vite-prerender-login.ts) through Vite's module runner, like the sign-in screen's markup.
// The server does not know who asks, so nothing of the user is in it: the switcher says "Your workspaces", there is no
// e-mail, and the links have no targets (the shell is inert: a picture of the page until the app takes over).
import { renderToStaticMarkup } from 'react-dom/server';
import { ANY_WORKSPACE, BellFace, SwitcherSummary, Topbar } from '@/components/Topbar';
import { PageFrame } from '@/components/PageFrame';
import { DashboardSkeleton } from '@/features/insight/DashboardSkeleton';
import { DASHBOARD_PAGES } from '@/features/insight/dashboard-pages';
import { INSIGHT_LINKS } from '@/features/insight/insight-links';
import { WORKSPACE_NAV, WorkspaceFrame } from '@/features/workspace/WorkspaceFrame';
import type { SHELL_DASHBOARDS } from '@/lib/prerender';

const INSIGHT = '/workspace/$workspaceId/insight';

/** The shell of `dashboard`. */
export function shellMarkup(dashboard: (typeof SHELL_DASHBOARDS)[number]): string {
  const page = DASHBOARD_PAGES[dashboard];
  const current = `${INSIGHT}/${dashboard}`;
  return renderToStaticMarkup(
    <WorkspaceFrame
      header={
        <Topbar
          brand={<a className="brand">Murmur</a>}
          switcher={
            <details className="switcher">
              <SwitcherSummary label={ANY_WORKSPACE} />
            </details>
          }
          bell={
            <div className="bell">
              <BellFace unread={0} expanded={false} />
            </div>
          }
          email={undefined}
        />
      }
      nav={
        <nav className="sidebar" aria-label="Workspace">
          {WORKSPACE_NAV.map((item) => (
            <a key={item.to} {...(item.to === INSIGHT ? { 'aria-current': 'page' } : {})}>
              {item.label}
            </a>
          ))}
        </nav>
      }
    >
      <nav className="section-nav" aria-label="Insight dashboards">
        {INSIGHT_LINKS.map((link) => (
          <a key={link.to} {...(link.to === current ? { 'aria-current': 'page' } : {})}>
            {link.label}
          </a>
        ))}
      </nav>
      <PageFrame title={page.title} description={page.description}>
        <DashboardSkeleton cards={page.skeleton} />
      </PageFrame>
    </WorkspaceFrame>,
  );
}
