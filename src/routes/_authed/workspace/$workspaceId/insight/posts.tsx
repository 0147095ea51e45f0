import { createFileRoute } from '@tanstack/react-router';
import { PostsPage } from '@/features/insight/ListPages';
import { postListSearchSchema } from '@/features/insight/list-search';

export const Route = createFileRoute('/_authed/workspace/$workspaceId/insight/posts')({
  validateSearch: postListSearchSchema,
  component: PostsPage,
});
