import { createFileRoute } from '@tanstack/react-router';
import { FilteredPostsPage } from '@/features/insight/ListPages';
import { postListSearchSchema } from '@/features/insight/list-search';

export const Route = createFileRoute('/_authed/workspace/$workspaceId/insight/filtered-posts')({
  validateSearch: postListSearchSchema,
  component: FilteredPostsPage,
});
