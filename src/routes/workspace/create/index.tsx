import { createFileRoute, redirect } from '@tanstack/react-router';

export const Route = createFileRoute('/workspace/create/')({
  beforeLoad: () => {
    throw redirect({ to: '/workspace/create/name' });
  },
});
