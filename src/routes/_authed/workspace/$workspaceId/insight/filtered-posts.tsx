import { createFileRoute } from '@tanstack/react-router';
import { FilteredPostsPage } from '../../../../../features/insight/pages';

export const Route = createFileRoute('/_authed/workspace/$workspaceId/insight/filtered-posts')({
  component: FilteredPostsPage,
});
