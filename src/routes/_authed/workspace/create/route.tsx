import { createFileRoute } from '@tanstack/react-router';
import { WORKSPACE_CREATION_KEY } from '@/lib/storage-keys';
import { WorkspaceCreationLayout } from '@/features/workspace-creation/WorkspaceCreationLayout';

export const Route = createFileRoute('/_authed/workspace/create')({
  beforeLoad: ({ preload }) => {
    // Marks the wizard in progress (spec §3/§4: a 401 on the me call then sends the browser to /login).
    if (!preload) localStorage.setItem(WORKSPACE_CREATION_KEY, 'true');
  },
  component: WorkspaceCreationLayout,
});
