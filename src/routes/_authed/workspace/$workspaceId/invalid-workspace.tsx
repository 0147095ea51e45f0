import { createFileRoute } from '@tanstack/react-router';
import { InvalidWorkspacePage } from '../../../../features/workspace/InvalidWorkspacePage';

export const Route = createFileRoute('/_authed/workspace/$workspaceId/invalid-workspace')({
  component: InvalidWorkspacePage,
});
