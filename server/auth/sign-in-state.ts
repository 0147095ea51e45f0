// Whether the sign-in an access token was handed out for is still live, and whose it is: sign-out and a refresh
// token's reuse end it, and its access tokens with it, in every server process; a token naming another user's live
// sign-in is refused (server/auth/authenticate.ts compares the owner with the token's subject).
//
// Each process keeps what it read per sign-in. A live answer is trusted for at most SIGN_IN_STATE_MAX_AGE_SECONDS,
// then read again (one indexed statement per sign-in and period, not per request, so users/me and every other call
// stay off the database for this). An ended one is final. Ending a sign-in notifies every process through PostgreSQL
// (NOTIFY on SIGN_IN_ENDED_CHANNEL, sent when the revoking transaction commits); each listens on a connection of its
// own and forgets the sign-in at once. The period bounds the window only when that signal is lost (the listening
// connection was down): while it reconnects, and after, every live answer kept is read again.
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import pg from 'pg';
import type { Db } from '@server/db/database';
import { listenOnOwnConnection } from '@server/db/listen';
import { refreshTokens } from '@server/db/schema';

export const SIGN_IN_ENDED_CHANNEL = 'murmur_sign_in_ended';

/** Sign-ins remembered at most (about 100 bytes each); the oldest remembered is dropped first. */
const REMEMBERED = 100_000;
const RECONNECT_MS = { first: 500, max: 30_000 };

export interface SignInStates {
  /**
   * The user whose live sign-in it is; false: ended (or never was); undefined: not known now (ask check()). Answered
   * without a promise.
   */
  known(signInId: string): string | false | undefined;
  /**
   * The user whose live sign-in it is, or false, read from the database (concurrent reads of one sign-in share one
   * statement).
   */
  check(signInId: string): Promise<string | false>;
  /** This process ended the sign-in (its transaction has committed): refused here at once. */
  ended(signInId: string): void;
  close(): Promise<void>;
}

export interface SignInStateOptions {
  /** How long a live answer is trusted before it is read again; 0 reads on every request. */
  maxAgeMs: number;
  /** Where the listening connection's failures are said; without it, nowhere. */
  warn?: (message: string) => void;
}

export function createSignInStates(db: Db, options: SignInStateOptions): SignInStates {
  // Live while any token of the family is unrevoked and the family has not reached its end.
  const liveUntil = db
    .select({ userId: refreshTokens.userId, expiresAt: refreshTokens.expiresAt })
    .from(refreshTokens)
    .where(
      and(
        eq(refreshTokens.familyId, sql.placeholder('signInId')),
        isNull(refreshTokens.revokedAt),
        gt(refreshTokens.expiresAt, sql`now()`),
      ),
    )
    .limit(1)
    .prepare('sign_in_state');

  /** Per sign-in: ended (false) or live until a time (trusted until then), and whose. */
  type State = false | { userId: string; untilMs: number };
  const states = new Map<string, State>();
  const reading = new Map<string, Promise<string | false>>();
  const remember = (signInId: string, state: State) => {
    states.delete(signInId);
    if (states.size >= REMEMBERED) states.delete(states.keys().next().value!);
    states.set(signInId, state);
  };
  const ended = (signInId: string) => remember(signInId, false);

  const listener = listen(
    db,
    ended,
    () => {
      // Signals may have been missed while it was down: what was read as live is read again.
      for (const [signInId, state] of states) if (state) states.delete(signInId);
    },
    options.warn,
  );

  return {
    known(signInId) {
      const state = states.get(signInId);
      if (state === undefined) return undefined;
      if (state === false) return false;
      return state.untilMs > Date.now() ? state.userId : undefined;
    },
    check(signInId) {
      const pending = reading.get(signInId);
      if (pending) return pending;
      const read = liveUntil
        .execute({ signInId })
        .then(([row]) => {
          // An end seen while the statement ran (a sign-out here, or its signal) is final: the read may predate it.
          if (states.get(signInId) === false) return false;
          if (!row) {
            ended(signInId);
            return false;
          }
          const untilMs = Math.min(Date.now() + options.maxAgeMs, row.expiresAt.getTime());
          remember(signInId, { userId: row.userId, untilMs });
          return row.userId;
        })
        .finally(() => reading.delete(signInId));
      reading.set(signInId, read);
      return read;
    },
    ended,
    close: listener.close,
  };
}

/** Listens for ended sign-ins on a connection of its own (server/db/listen.ts). */
function listen(
  db: Db,
  onEnded: (signInId: string) => void,
  onConnected: () => void,
  warn: (message: string) => void = () => {},
) {
  // The pool's own settings (its URL): drizzle keeps the pool it was made with as $client.
  const pool = (db as { $client?: unknown }).$client;
  if (!(pool instanceof pg.Pool)) {
    warn('sign-in signals: no connection pool to listen with; ended sign-ins are seen by their next read');
    return { close: async () => {} };
  }
  return listenOnOwnConnection(pool, {
    channel: SIGN_IN_ENDED_CHANNEL,
    applicationName: 'murmur sign-ins',
    reconnectMs: RECONNECT_MS,
    onNotification: (payload) => payload && onEnded(payload),
    onConnected,
    onLost: (error, phase) =>
      warn(
        phase === 'listening'
          ? `sign-in signals: connection lost (${error.message}); reconnecting`
          : `sign-in signals: cannot listen (${error.message}); retrying`,
      ),
  });
}
