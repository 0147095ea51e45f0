import { Outlet } from '@tanstack/react-router';
import './insight.css';
import { SectionNav } from '@/components/SectionNav';
import { InsightViewProvider, useInsightView } from './insight-view';
import { INSIGHT_LINKS } from './insight-links';

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
  return (
    <SectionNav label="Insight dashboards" workspaceId={workspaceId} links={INSIGHT_LINKS} search={search} />
  );
}
