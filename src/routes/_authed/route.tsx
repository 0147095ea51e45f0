import { createFileRoute } from '@tanstack/react-router';
import { requireLogin } from '../-guards';
import { SignedInOutlet } from '@/components/SignedInOutlet';

// Spec §6: invite and workspace routes require login. This pathless layout is the one gate for every route below it
// (/scraping, /workspace/create/…, /workspace/{id}/…). /invite is not below it: its own statechart sends a signed-out
// visitor to /login with the notice 'Login required' and the token. The page a signed-out visitor opened is kept for
// after they sign in (requireLogin).
export const Route = createFileRoute('/_authed')({
  beforeLoad: ({ context, location, preload }) => requireLogin(context, location.href, preload),
  component: SignedInOutlet,
});
