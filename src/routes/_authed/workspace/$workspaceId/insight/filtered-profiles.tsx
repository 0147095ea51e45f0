import { createFileRoute } from '@tanstack/react-router';
import { FilteredProfilesPage } from '../../../../../features/insight/pages';

export const Route = createFileRoute('/_authed/workspace/$workspaceId/insight/filtered-profiles')({
  component: FilteredProfilesPage,
});
