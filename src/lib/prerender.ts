// Pages the build prerendered (scripts/vite-prerender-login.ts) carry their first drawing in PRERENDER_ID, laid over
// the app's root so that the app drawing underneath shifts nothing:
// - login.html: the sign-in screen. Whichever screen the app draws first takes it away. A press of its Google button
//   before the app has arrived is kept by login.html's boot script and carried out by the login page when it draws, so
//   no press is lost.
// - a dashboard's shell (SHELL_DASHBOARDS): the workspace frame, the dashboard's heading and its skeleton, nothing of
//   the user (the server does not know who asks). Shown only when this browser holds a session (the shell's gate
//   script), inert (a picture of the page), and taken away by the dashboard when it draws, or by whatever screen the
//   visit ends on instead (the sign-in screen, an error, a status page).
export const PRERENDER_ID = 'prerendered';
/** The window property the boot script sets to the vendor whose prerendered button was pressed. */
export const QUEUED_SIGN_IN = '__murmurQueuedSignIn';
/** The dashboards that have a prerendered shell (the keys of features/insight/dashboard-pages.ts). */
export const SHELL_DASHBOARDS = ['overview', 'people', 'performance', 'conversation'] as const;

/** A dashboard's address: /workspace/{id}/insight/{dashboard}, or /workspace/{id}/insight (the overview). */
export const SHELL_PATH = /^\/workspace\/[^/]+\/insight(?:\/([^/]+))?\/?$/;

/**
 * The dashboard whose shell the address gets, or null: /workspace/{id}/insight/{dashboard}, and /workspace/{id}/insight
 * (which opens the overview).
 */
export function shellDashboardOf(pathname: string): (typeof SHELL_DASHBOARDS)[number] | null {
  const match = SHELL_PATH.exec(pathname);
  if (!match) return null;
  const page = match[1] ?? 'overview';
  return (SHELL_DASHBOARDS as readonly string[]).includes(page)
    ? (page as (typeof SHELL_DASHBOARDS)[number])
    : null;
}

export function removePrerender(): void {
  document.getElementById(PRERENDER_ID)?.remove();
}

/** The vendor whose prerendered button was pressed before the app arrived, once. */
export function takeQueuedSignIn(): 'google' | null {
  const queued = (window as unknown as Record<string, unknown>)[QUEUED_SIGN_IN];
  delete (window as unknown as Record<string, unknown>)[QUEUED_SIGN_IN];
  return queued === 'google' ? 'google' : null;
}
