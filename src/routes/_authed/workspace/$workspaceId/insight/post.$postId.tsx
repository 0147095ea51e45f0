import { createFileRoute } from '@tanstack/react-router';
import { PostDetailPage } from '@/features/insight/PostDetailPage';
import { postPageSearchSchema } from '@/features/insight/detail-search';

/** A post's page in the dashboards' scope (their layout's search params), opened from discover or a dashboard. */
export const Route = createFileRoute('/_authed/workspace/$workspaceId/insight/post/$postId')({
  validateSearch: postPageSearchSchema,
  component: PostDetailPage,
});
