import { createFileRoute, redirect } from '@tanstack/react-router';

// Spec §2: to saved-queries, or to /scraping when the id is the internal workspace.
export const Route = createFileRoute('/_authed/workspace/$workspaceId/')({
  staticData: { redirectOnly: true },
  beforeLoad: ({ context, params }) => {
    const internal = context.config.VITE_INTERNAL_WORKSPACE_ID;
    if (internal !== '' && params.workspaceId === internal) throw redirect({ to: '/scraping' });
    throw redirect({ to: '/workspace/$workspaceId/saved-queries', params });
  },
});
