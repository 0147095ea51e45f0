import { Outlet } from '@tanstack/react-router';
import { useSignedIn } from './use-session';

/**
 * The pages that require login. When the session ends while one is open (signed out in another tab, a refresh that
 * failed), the session statechart sends the browser to /login; until the router gets there, nothing of the signed-in
 * pages stays on screen or fetches again.
 */
export function SignedInOutlet() {
  return useSignedIn() ? <Outlet /> : null;
}
