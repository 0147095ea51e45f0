import { createFileRoute } from '@tanstack/react-router';
import { loginGuard, tokenSearch } from '../-guards';
import { LoginPage } from '../../features/auth/LoginPage';

export const Route = createFileRoute('/login/')({
  validateSearch: tokenSearch,
  // beforeLoad sees the raw search merged with the validated one, so the token is validated again here.
  beforeLoad: ({ context, search, preload }) => loginGuard(context, tokenSearch(search).token, preload),
  component: LoginPage,
});
