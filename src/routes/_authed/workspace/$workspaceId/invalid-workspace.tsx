import { createFileRoute } from '@tanstack/react-router';
import { WorkspaceStatusPage } from '@/features/workspace/WorkspaceStatusPage';

// Spec §4 step 1: no checks here. The page shows the workspace's true state, whichever of the two addresses it is at.
export const Route = createFileRoute('/_authed/workspace/$workspaceId/invalid-workspace')({
  component: WorkspaceStatusPage,
});
