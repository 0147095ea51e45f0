import { createFileRoute } from '@tanstack/react-router';
import { FilteredProfilesPage } from '@/features/insight/ListPages';
import { profileListSearchSchema } from '@/features/insight/list-search';

export const Route = createFileRoute('/_authed/workspace/$workspaceId/insight/filtered-profiles')({
  validateSearch: profileListSearchSchema,
  component: FilteredProfilesPage,
});
