import { createFileRoute } from '@tanstack/react-router';
import { OverviewPage } from '@/features/insight/OverviewPage';
import { loadDashboard } from '@/features/insight/dashboard-query';

export const Route = createFileRoute('/_authed/workspace/$workspaceId/insight/overview')({
  // The dashboard's request starts here, with the scope's params as the load's key; the page reads the same query.
  loaderDeps: ({ search }) => search,
  loader: ({ context, params: { workspaceId }, deps, cause }) =>
    loadDashboard(context, workspaceId, 'overview', deps, cause),
  component: OverviewPage,
});
