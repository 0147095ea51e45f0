import { createFileRoute, redirect } from '@tanstack/react-router';

// Spec §2: / always redirects to /login.
export const Route = createFileRoute('/')({
  staticData: { redirectOnly: true },
  beforeLoad: () => {
    throw redirect({ to: '/login', search: {} });
  },
});
