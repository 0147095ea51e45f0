import { createFileRoute } from '@tanstack/react-router';
import { SignInCallbackPage } from '@/features/auth/SignInCallbackPage';

// Where the sign-in provider sends the browser back (authorization code, state); loaded lazily.
export const Route = createFileRoute('/login/callback')({
  component: SignInCallbackPage,
});
