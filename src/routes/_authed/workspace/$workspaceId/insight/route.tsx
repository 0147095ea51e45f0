import { createFileRoute } from '@tanstack/react-router';
import { InsightLayout } from '../../../../../features/insight/InsightLayout';

export const Route = createFileRoute('/_authed/workspace/$workspaceId/insight')({
  component: InsightLayout,
});
