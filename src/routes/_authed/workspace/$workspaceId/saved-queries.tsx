import { createFileRoute } from '@tanstack/react-router';
import * as z from 'zod/mini';
import { meQuery, workspaceQuery } from '@/api/queries';
import { savedQueriesQuery } from '@/api/saved-queries';
import { membersQuery } from '@/api/workspaces';
import { Pending } from '@/components/Pending';
import { RouteError } from '@/components/RouteError';
import { SavedQueriesPage } from '@/features/saved-queries/SavedQueriesPage';

/** ?edit=new opens the form for a new saved query, ?edit=<id> for that one; anything else is dropped. */
const savedQueriesSearchSchema = z.object({
  edit: z.catch(z.optional(z.string().check(z.minLength(1), z.maxLength(64))), undefined),
});

export const Route = createFileRoute('/_authed/workspace/$workspaceId/saved-queries')({
  validateSearch: savedQueriesSearchSchema,
  loader: async ({ context: { queryClient, api }, params: { workspaceId } }) => {
    await Promise.all([
      queryClient.ensureQueryData(workspaceQuery(api, workspaceId)),
      queryClient.ensureQueryData(meQuery(api)),
      queryClient.ensureQueryData(savedQueriesQuery(api, workspaceId)),
      // The authors' names: created_by is a user id.
      queryClient.ensureQueryData(membersQuery(api, workspaceId)),
    ]);
  },
  pendingComponent: () => <Pending label="Loading saved queries…" />,
  errorComponent: RouteError,
  component: SavedQueriesPage,
});
