import { createFileRoute } from '@tanstack/react-router';
import { FilteredProfilesPage } from '@/features/insight/FilteredProfilesPage';
import { profileListSearchSchema } from '@/features/insight/list-search';
import { loadDashboard } from '@/features/insight/dashboard-query';

export const Route = createFileRoute('/_authed/workspace/$workspaceId/insight/filtered-profiles')({
  validateSearch: profileListSearchSchema,
  // The dashboard's request starts here, once per address (the scope's params are the load's key); the page reads the
  // same query, and asks again itself when its answer is stale.
  loaderDeps: ({ search }) => search,
  shouldReload: false,
  loader: ({ context, params: { workspaceId }, deps, cause }) =>
    loadDashboard(context, workspaceId, 'filtered-profiles', deps, cause),
  component: FilteredProfilesPage,
});
