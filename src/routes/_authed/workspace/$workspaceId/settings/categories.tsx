import { createFileRoute } from '@tanstack/react-router';
import { meQuery, workspaceQuery } from '@/api/queries';
import { Pending } from '@/components/Pending';
import { RouteError } from '@/components/RouteError';
import { CategoriesPage } from '@/features/settings/CategoriesPage';

export const Route = createFileRoute('/_authed/workspace/$workspaceId/settings/categories')({
  loader: ({ context: { queryClient, api }, params: { workspaceId } }) =>
    Promise.all([
      queryClient.ensureQueryData(workspaceQuery(api, workspaceId)),
      queryClient.ensureQueryData(meQuery(api)),
    ]),
  pendingComponent: () => <Pending label="Loading categories…" />,
  errorComponent: RouteError,
  component: CategoriesPage,
});
