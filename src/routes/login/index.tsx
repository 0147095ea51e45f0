import { createFileRoute } from '@tanstack/react-router';
import { loginGuard, tokenSearchSchema } from '../-guards';
import { LoginPage } from '@/features/auth/LoginPage';

export const Route = createFileRoute('/login/')({
  validateSearch: tokenSearchSchema,
  beforeLoad: ({ context, search, preload }) => loginGuard(context, search.token, preload),
  component: LoginPage,
});
