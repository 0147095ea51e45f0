import { createFileRoute, redirect } from '@tanstack/react-router';

export const Route = createFileRoute('/workspace/$workspaceId/settings/')({
  beforeLoad: ({ params }) => {
    throw redirect({ to: '/workspace/$workspaceId/settings/general', params });
  },
});
