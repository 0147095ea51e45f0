import { createFileRoute } from '@tanstack/react-router';
import { PerformancePage } from '@/features/insight/PerformancePage';

export const Route = createFileRoute('/_authed/workspace/$workspaceId/insight/performance')({
  component: PerformancePage,
});
