import { createFileRoute, redirect } from '@tanstack/react-router';

export const Route = createFileRoute('/_authed/workspace/$workspaceId/insight/')({
  staticData: { redirectOnly: true },
  beforeLoad: ({ params }) => {
    throw redirect({ to: '/workspace/$workspaceId/insight/overview', params });
  },
});
