import { createFileRoute } from '@tanstack/react-router';
import { workspaceQuery } from '@/api/queries';
import { Pending } from '@/components/Pending';
import { RouteError } from '@/components/RouteError';
import { DiscoverPage } from '@/features/discover/DiscoverPage';
import { discoverSearchSchema } from '@/features/discover/discover-search';

export const Route = createFileRoute('/_authed/workspace/$workspaceId/discover')({
  validateSearch: discoverSearchSchema,
  // The workspace's privilege decides whether "Save as query" is offered; searches run from the page.
  loader: ({ context: { queryClient, api }, params: { workspaceId } }) =>
    queryClient.ensureQueryData(workspaceQuery(api, workspaceId)),
  pendingComponent: () => <Pending label="Loading discover…" />,
  errorComponent: RouteError,
  component: DiscoverPage,
});
