import { createFileRoute } from '@tanstack/react-router';
import { planQuery } from '@/api/billing';
import { meQuery, workspaceQuery } from '@/api/queries';
import { Pending } from '@/components/Pending';
import { RouteError } from '@/components/RouteError';
import { PlanPage } from '@/features/billing/PlanPage';

export const Route = createFileRoute('/_authed/workspace/$workspaceId/settings/plan')({
  loader: ({ context: { queryClient, api }, params: { workspaceId } }) =>
    Promise.all([
      queryClient.ensureQueryData(workspaceQuery(api, workspaceId)),
      queryClient.ensureQueryData(meQuery(api)),
      queryClient.ensureQueryData(planQuery(api, workspaceId)),
    ]),
  pendingComponent: () => <Pending label="Loading the plan…" />,
  errorComponent: RouteError,
  component: PlanPage,
});
