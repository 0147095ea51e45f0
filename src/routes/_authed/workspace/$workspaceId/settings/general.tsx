import { createFileRoute } from '@tanstack/react-router';
import { meQuery, workspaceQuery } from '@/api/queries';
import { Pending } from '@/components/Pending';
import { RouteError } from '@/components/RouteError';
import { GeneralSettingsPage } from '@/features/settings/GeneralSettingsPage';

export const Route = createFileRoute('/_authed/workspace/$workspaceId/settings/general')({
  loader: ({ context: { queryClient, api }, params }) =>
    Promise.all([
      queryClient.ensureQueryData(workspaceQuery(api, params.workspaceId)),
      queryClient.ensureQueryData(meQuery(api)),
    ]),
  pendingComponent: () => <Pending label="Loading the workspace…" />,
  errorComponent: RouteError,
  component: GeneralSettingsPage,
});
