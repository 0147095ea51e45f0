import { createFileRoute } from '@tanstack/react-router';
import { PostsPage } from '../../../../features/insight/pages';

export const Route = createFileRoute('/workspace/$workspaceId/insight/posts')({
  component: PostsPage,
});
