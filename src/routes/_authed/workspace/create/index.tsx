import { createFileRoute, redirect } from '@tanstack/react-router';

export const Route = createFileRoute('/_authed/workspace/create/')({
  staticData: { redirectOnly: true },
  beforeLoad: () => {
    throw redirect({ to: '/workspace/create/name' });
  },
});
