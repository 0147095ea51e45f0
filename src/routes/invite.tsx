import { createFileRoute } from '@tanstack/react-router';
import { inviteGuard, tokenSearch } from './-guards';

// The guard always redirects: to the invited workspace, or to /login with a notice.
export const Route = createFileRoute('/invite')({
  validateSearch: tokenSearch,
  // beforeLoad sees the raw search merged with the validated one, so the token is validated again here.
  beforeLoad: ({ context, search, preload }) => inviteGuard(context, tokenSearch(search).token, preload),
});
