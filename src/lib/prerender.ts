// login.html carries the sign-in screen drawn at build time (scripts/vite-prerender-login.ts) in PRERENDER_ID, laid
// over the app's root so that the app drawing underneath shifts nothing; whichever screen the app draws first takes it
// away. A press of its Google button before the app has arrived is kept by login.html's boot script and carried out by
// the login page when it draws, so no press is lost.
export const PRERENDER_ID = 'prerendered';
/** The window property the boot script sets to the vendor whose prerendered button was pressed. */
export const QUEUED_SIGN_IN = '__murmurQueuedSignIn';

export function removePrerender(): void {
  document.getElementById(PRERENDER_ID)?.remove();
}

/** The vendor whose prerendered button was pressed before the app arrived, once. */
export function takeQueuedSignIn(): 'google' | null {
  const queued = (window as unknown as Record<string, unknown>)[QUEUED_SIGN_IN];
  delete (window as unknown as Record<string, unknown>)[QUEUED_SIGN_IN];
  return queued === 'google' ? 'google' : null;
}
