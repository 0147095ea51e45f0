import { useDeferredValue, useState } from 'react';
import { Outlet } from '@tanstack/react-router';
import { PRERENDER_ID } from '@/lib/prerender';
import { useSignedIn } from './use-session';

/**
 * The pages that require login. When the session ends while one is open (signed out in another tab, a refresh that
 * failed), the session statechart sends the browser to /login; until the router gets there, nothing of the signed-in
 * pages stays on screen or fetches again.
 */
export function SignedInOutlet() {
  const signedIn = useSignedIn();
  const drawn = useDrawnBehindShell();
  return signedIn && drawn ? <Outlet /> : null;
}

/**
 * A visit that opens on a dashboard's prerendered shell (src/lib/prerender.ts) has its frame on screen before the app
 * starts: the signed-in pages are then first drawn in a background render, which React splits into slices of a few
 * milliseconds and yields between (the router's own update, when the first navigation resolves, is synchronous: the
 * workspace frame, the dashboards' layout and the dashboard mounting in it would be one long task). The shell stays
 * over the app until the dashboard has drawn the same frame (DashboardFrame), so nothing blank is ever seen. Without a
 * shell (any other page, and every later navigation) the pages are drawn at once, as before.
 */
function useDrawnBehindShell(): boolean {
  const [behindShell] = useState(
    () => document.getElementById(PRERENDER_ID)?.hasAttribute('data-shell') ?? false,
  );
  return useDeferredValue(true, behindShell ? false : undefined);
}
