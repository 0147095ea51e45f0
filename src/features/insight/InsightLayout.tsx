import { Outlet } from '@tanstack/react-router';
import './insight.css';
import { SectionNav } from '../../components/SectionNav';
import { InsightViewProvider, useInsightView } from './insight-view';

const LINKS = [
  { to: '/workspace/$workspaceId/insight/overview', label: 'Overview' },
  { to: '/workspace/$workspaceId/insight/posts', label: 'Posts' },
  { to: '/workspace/$workspaceId/insight/people', label: 'People' },
  { to: '/workspace/$workspaceId/insight/performance', label: 'Performance' },
  { to: '/workspace/$workspaceId/insight/conversation', label: 'Conversation' },
  { to: '/workspace/$workspaceId/insight/filtered-posts', label: 'Filtered posts' },
  { to: '/workspace/$workspaceId/insight/filtered-profiles', label: 'Filtered profiles' },
];

/** The dashboards' tabs carry the view's scope from one dashboard to the next (not a list's sort or page). */
export function InsightLayout() {
  return (
    <InsightViewProvider>
      <InsightTabs />
      <Outlet />
    </InsightViewProvider>
  );
}

function InsightTabs() {
  const { workspaceId, search } = useInsightView();
  return <SectionNav label="Insight dashboards" workspaceId={workspaceId} links={LINKS} search={search} />;
}
