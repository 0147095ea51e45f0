import { createFileRoute } from '@tanstack/react-router';
import { workspaceQuery } from '@/api/queries';
import { savedQueriesQuery } from '@/api/saved-queries';
import { Pending } from '@/components/Pending';
import { RouteError } from '@/components/RouteError';
import { InsightLayout } from '@/features/insight/InsightLayout';
import { validateInsightSearch } from '@/features/insight/insight-search';

/**
 * The dashboards' layout: the view's scope lives in the search params (features/insight/insight-search.ts); the
 * workspace (its time zone) and the saved queries (the scope bar's picker) are loaded before any dashboard shows.
 */
export const Route = createFileRoute('/_authed/workspace/$workspaceId/insight')({
  validateSearch: validateInsightSearch,
  loader: ({ context: { queryClient, api }, params: { workspaceId } }) =>
    Promise.all([
      queryClient.ensureQueryData(workspaceQuery(api, workspaceId)),
      queryClient.ensureQueryData(savedQueriesQuery(api, workspaceId)),
    ]),
  pendingComponent: () => <Pending label="Loading the dashboards…" />,
  errorComponent: RouteError,
  component: InsightLayout,
});
