// Components subscribe to the session actor (XState) rather than reading it once: a sign-out here, in another tab or
// by a failed refresh re-renders whatever depends on it.
import { useNavigate } from '@tanstack/react-router';
import { useSelector } from '@xstate/react';
import { useApp } from './use-app';

/** True while the session statechart is in `signedIn` (refreshing included). */
export function useSignedIn(): boolean {
  const { session } = useApp();
  return useSelector(session.actor, (snapshot) => snapshot.matches('signedIn'));
}

/** Signs out: the server ends the sign-in (best effort), the session forgets its tokens, the cache is dropped. */
export function useSignOut(): () => void {
  const { api, session, queryClient } = useApp();
  const navigate = useNavigate();
  return () => {
    // Never waits for the server nor fails on it: the refresh token is ended there when it can be.
    const refreshToken = session.actor.getSnapshot().context.tokens?.refresh_token;
    if (refreshToken) void api.logout(refreshToken).catch(() => undefined);
    // The session's LOGOUT removes the tokens and clears the error-reporting user (spec §4).
    session.logout();
    queryClient.clear();
    void navigate({ to: '/login', search: {} });
  };
}
