import { createFileRoute } from '@tanstack/react-router';
import { InvalidWorkspacePage } from '../../../features/workspace/InvalidWorkspacePage';

export const Route = createFileRoute('/workspace/$workspaceId/invalid-workspace')({
  component: InvalidWorkspacePage,
});
