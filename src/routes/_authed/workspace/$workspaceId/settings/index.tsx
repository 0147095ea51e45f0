import { createFileRoute, redirect } from '@tanstack/react-router';

export const Route = createFileRoute('/_authed/workspace/$workspaceId/settings/')({
  staticData: { redirectOnly: true },
  beforeLoad: ({ params }) => {
    throw redirect({ to: '/workspace/$workspaceId/settings/general', params });
  },
});
