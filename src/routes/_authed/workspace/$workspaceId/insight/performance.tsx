import { createFileRoute } from '@tanstack/react-router';
import { PerformancePage } from '../../../../../features/insight/AnalysisPages';

export const Route = createFileRoute('/_authed/workspace/$workspaceId/insight/performance')({
  component: PerformancePage,
});
