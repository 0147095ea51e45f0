import { createFileRoute } from '@tanstack/react-router';
import * as z from 'zod/mini';
import { alertRulesQuery } from '@/api/alerts';
import { meQuery, workspaceQuery } from '@/api/queries';
import { savedQueriesQuery } from '@/api/saved-queries';
import { membersQuery } from '@/api/workspaces';
import { Pending } from '@/components/Pending';
import { RouteError } from '@/components/RouteError';
import { AlertsPage } from '@/features/alerts/AlertsPage';

const id = z.catch(z.optional(z.string().check(z.minLength(1), z.maxLength(64))), undefined);
/** ?query=<saved query id> shows its rules; ?edit=new or ?edit=<rule id> opens the form; anything else is dropped. */
const alertsSearchSchema = z.object({ query: id, edit: id });

export const Route = createFileRoute('/_authed/workspace/$workspaceId/alerts')({
  validateSearch: alertsSearchSchema,
  loader: async ({ context: { queryClient, api }, params: { workspaceId } }) => {
    await Promise.all([
      queryClient.ensureQueryData(workspaceQuery(api, workspaceId)),
      queryClient.ensureQueryData(meQuery(api)),
      queryClient.ensureQueryData(alertRulesQuery(api, workspaceId)),
      queryClient.ensureQueryData(savedQueriesQuery(api, workspaceId)),
      // The recipients' names.
      queryClient.ensureQueryData(membersQuery(api, workspaceId)),
    ]);
  },
  pendingComponent: () => <Pending label="Loading alert rules…" />,
  errorComponent: RouteError,
  component: AlertsPage,
});
