import { createFileRoute } from '@tanstack/react-router';
import { inviteGuard, tokenSearchSchema } from './-guards';

// The guard always redirects: to the invited workspace, or to /login with a notice.
export const Route = createFileRoute('/invite')({
  staticData: { redirectOnly: true },
  validateSearch: tokenSearchSchema,
  beforeLoad: ({ context, search, preload }) => inviteGuard(context, search.token, preload),
});
