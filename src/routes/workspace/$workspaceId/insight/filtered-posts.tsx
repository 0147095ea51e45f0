import { createFileRoute } from '@tanstack/react-router';
import { FilteredPostsPage } from '../../../../features/insight/pages';

export const Route = createFileRoute('/workspace/$workspaceId/insight/filtered-posts')({
  component: FilteredPostsPage,
});
