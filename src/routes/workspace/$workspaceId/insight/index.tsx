import { createFileRoute, redirect } from '@tanstack/react-router';

export const Route = createFileRoute('/workspace/$workspaceId/insight/')({
  beforeLoad: ({ params }) => {
    throw redirect({ to: '/workspace/$workspaceId/insight/overview', params });
  },
});
