import { createFileRoute } from '@tanstack/react-router';
import { PostsPage } from '../../../../../features/insight/pages';

export const Route = createFileRoute('/_authed/workspace/$workspaceId/insight/posts')({
  component: PostsPage,
});
