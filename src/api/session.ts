// The session actor and its gate for the HTTP client: the statechart decides, this file performs its side effects.
import { createActor, fromPromise, waitFor, type InspectionEvent } from 'xstate';
import {
  MAX_REFRESH_RETRIES,
  SessionError,
  sessionMachine,
  type RefreshedTokens,
} from '@/machines/session.machine';
import { messages } from '@/lib/messages';
import { readTokens, removeTokens, writeTokens } from '@/lib/token-storage';
import { AUTH_TOKENS_KEY, WORKSPACE_CREATION_KEY } from '@/lib/storage-keys';
import type { Reporter } from '@/lib/reporting';
import type { SessionGate } from './http';
import { HttpError } from './errors';

/** How long a request waits for a refresh in flight before giving up; the refresh itself times out at 60 s. */
const REFRESH_WAIT_MS = 65_000;

/** Runs `run` while holding the browser-wide refresh lock. */
export type RefreshLock = <T>(run: () => Promise<T>) => Promise<T>;

/**
 * One tab refreshes at a time (Web Locks, shared by the tabs of this origin). Without it, two tabs whose access
 * tokens expire together would both send the same refresh token; the server would take the second for a replay and
 * revoke the session everywhere. Where the API is missing, the refresh runs at once.
 */
const webLock: RefreshLock = (run) =>
  typeof navigator !== 'undefined' && navigator.locks
    ? navigator.locks.request('murmur-token-refresh', run)
    : run();

export interface SessionDeps {
  storage: Storage;
  reporter: Reporter;
  /** Performs POST auth/refresh with the refresh token; rejects with HttpError or a network TypeError. */
  refresh: (refreshToken: string) => Promise<RefreshedTokens>;
  navigateToLogin: () => void;
  /** Defaults to the Web Locks API. */
  lock?: RefreshLock;
  inspect?: (event: InspectionEvent) => void;
}

/** Refreshes with the stored refresh token, one tab at a time. */
async function refreshWithStoredToken(deps: SessionDeps): Promise<RefreshedTokens> {
  const before = readTokens(deps.storage);
  const seen = before.ok ? before.tokens : null;
  return (deps.lock ?? webLock)(async () => {
    const read = readTokens(deps.storage);
    const tokens = read.ok ? read.tokens : null;
    if (!tokens) throw new SessionError('noTokens', messages.noTokensFound);
    // Another tab refreshed while this one waited for the lock: its tokens are the current ones.
    if (seen && tokens.refresh_token !== seen.refresh_token) return tokens;
    const refreshed = await refreshWith(deps, tokens.refresh_token);
    // Stored before the lock is released, so the next tab reads the rotated token (the statechart's persistTokens
    // then writes the same value).
    writeTokens(
      {
        access_token: refreshed.access_token,
        refresh_token: refreshed.refresh_token ?? tokens.refresh_token,
      },
      deps.storage,
    );
    return refreshed;
  });
}

/** Maps the refresh call's failures onto the spec's error texts (§8). */
async function refreshWith(deps: SessionDeps, refreshToken: string): Promise<RefreshedTokens> {
  try {
    return await deps.refresh(refreshToken);
  } catch (error) {
    if (error instanceof HttpError) {
      if (error.status === 401) throw new SessionError('refreshExpired', messages.refreshTokenExpired);
      throw new SessionError('other', error.message);
    }
    if (error instanceof TypeError || (error instanceof DOMException && error.name === 'TimeoutError')) {
      throw new SessionError('network', messages.failedToFetch);
    }
    throw new SessionError('other', error instanceof Error ? error.message : String(error));
  }
}

export function createSession(deps: SessionDeps) {
  const { storage, reporter } = deps;
  const initial = readTokens(storage);
  if (!initial.ok) {
    // A corrupted entry counts as signed out: removed and reported, never a crash or a redirect loop.
    removeTokens(storage);
    reporter.report(initial.error);
  }

  const actor = createActor(
    sessionMachine.provide({
      actors: { refreshTokens: fromPromise(() => refreshWithStoredToken(deps)) },
      actions: {
        persistTokens: ({ context }) => {
          if (context.tokens) writeTokens(context.tokens, storage);
        },
        removeStoredTokens: () => removeTokens(storage),
        clearReportingUser: () => reporter.setUser(null),
        redirectToLogin: () => deps.navigateToLogin(),
        reportMaxRetries: () => reporter.report(new SessionError('maxRetries', messages.maxRefreshRetries)),
        reportRefreshFailure: (_, params) => reporter.report(params.error),
        removeWorkspaceCreationFlag: () => storage.removeItem(WORKSPACE_CREATION_KEY),
      },
    }),
    { input: { tokens: initial.ok ? initial.tokens : null }, inspect: deps.inspect },
  );
  actor.start();

  const settled = () =>
    waitFor(actor, (snapshot) => !snapshot.matches({ signedIn: 'refreshing' }), { timeout: REFRESH_WAIT_MS });

  const gate: SessionGate = {
    async prepare() {
      actor.send({ type: 'REQUEST.START' });
      const snapshot = await settled();
      return snapshot.context.tokens?.access_token ?? null;
    },
    async unauthorized(url) {
      if (!actor.getSnapshot().matches('signedIn')) return 'passThrough';
      actor.send({ type: 'REQUEST.UNAUTHORIZED', url });
      const snapshot = await settled();
      return snapshot.matches('signedIn') && snapshot.context.lastRefresh === 'refreshed'
        ? 'retry'
        : 'passThrough';
    },
    succeeded(url) {
      // A request that outlives its app (torn down while the call was in flight) has nobody left to tell.
      if (actor.getSnapshot().status !== 'active') return;
      actor.send({ type: 'REQUEST.SUCCEEDED', url });
    },
  };

  /** Keeps tabs in step: a sign-in or sign-out in another tab reaches this one. */
  const onStorage = (event: StorageEvent) => {
    if (event.key !== AUTH_TOKENS_KEY && event.key !== null) return;
    const read = readTokens(storage);
    actor.send({ type: 'TOKENS.CHANGED_ELSEWHERE', tokens: read.ok ? read.tokens : null });
  };

  return {
    actor,
    gate,
    maxRetries: MAX_REFRESH_RETRIES,
    isLoggedIn: () => actor.getSnapshot().matches('signedIn'),
    login: (tokens: { access_token: string; refresh_token: string }) => actor.send({ type: 'LOGIN', tokens }),
    logout: () => actor.send({ type: 'LOGOUT' }),
    /** The me call came back 401 after the refresh rounds: the spec's workspace-creation rule. */
    meUnauthorized: () =>
      actor.send({
        type: 'ME.UNAUTHORIZED',
        workspaceCreation: storage.getItem(WORKSPACE_CREATION_KEY) !== null,
      }),
    listenToOtherTabs: (target: Window) => {
      target.addEventListener('storage', onStorage);
      return () => target.removeEventListener('storage', onStorage);
    },
  };
}

export type Session = ReturnType<typeof createSession>;
