import { createFileRoute } from '@tanstack/react-router';
import { PerformancePage } from '../../../../features/insight/pages';

export const Route = createFileRoute('/workspace/$workspaceId/insight/performance')({
  component: PerformancePage,
});
