import { createFileRoute } from '@tanstack/react-router';
import { workspaceGuard } from '../../../-guards';
import { WorkspaceLayout } from '@/features/workspace/WorkspaceLayout';

export const Route = createFileRoute('/_authed/workspace/$workspaceId')({
  // Login is checked by the /_authed layout above; the spec's ordered workspace checks run here.
  beforeLoad: ({ context, params, location, preload, matches, routeId }): Promise<void> =>
    workspaceGuard(context, {
      workspaceId: params.workspaceId,
      pathname: location.pathname,
      preload,
      matches,
      routeId,
    }),
  component: WorkspaceLayout,
});
