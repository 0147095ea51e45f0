// The page a signed-out person opened, kept for the moment they have signed in (not a spec state: the spec's /login
// decision is for someone already signed in, and stays as it is). It waits in sessionStorage, this tab only, through
// the sign-in provider's redirect; it never travels in an address sent to the provider. Read back and checked by
// src/features/auth/return-to.ts, loaded with the sign-in code.

/** sessionStorage key of the kept page: `{ "path": "/workspace/…", "at": <ms since epoch> }`. */
export const RETURN_TO_KEY = 'murmur:return-to';

/** Keeps `path` (pathname, search and hash of this app) as the page to open after the next sign-in in this tab. */
export function keepReturnTo(path: string, storage: Storage = sessionStorage): void {
  try {
    storage.setItem(RETURN_TO_KEY, JSON.stringify({ path, at: Date.now() }));
  } catch {
    // Storage blocked or full: after signing in, /login decides as usual.
  }
}
