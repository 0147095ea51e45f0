import { createFileRoute } from '@tanstack/react-router';
import { requireLogin, workspaceGuard } from '../../-guards';
import { WorkspaceLayout } from '../../../features/workspace/WorkspaceLayout';

export const Route = createFileRoute('/workspace/$workspaceId')({
  beforeLoad: async ({ context, params, location, preload }) => {
    requireLogin(context);
    await workspaceGuard(context, params.workspaceId, location.pathname, preload);
  },
  component: WorkspaceLayout,
});
