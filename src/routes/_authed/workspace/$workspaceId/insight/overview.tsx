import { createFileRoute } from '@tanstack/react-router';
import { OverviewPage } from '@/features/insight/OverviewPage';

export const Route = createFileRoute('/_authed/workspace/$workspaceId/insight/overview')({
  component: OverviewPage,
});
