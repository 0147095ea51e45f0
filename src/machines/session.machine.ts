// The session statechart (spec §4 "Session"): signed out / signed in, one refresh at a time, per-URL 401 retry counting.
// Pure: storage, error reporting, navigation and the refresh call are injected with machine.provide().
import { assign, fromPromise, not, setup } from 'xstate';
import { isAccessTokenExpired } from '@/lib/jwt';

export interface SessionTokens {
  access_token: string;
  refresh_token: string;
}

export interface RefreshedTokens {
  access_token: string;
  /** Present when the server rotates the refresh token; it replaces the stored one. */
  refresh_token?: string;
}

export type SessionErrorKind = 'noTokens' | 'refreshExpired' | 'network' | 'maxRetries' | 'other';

/** The error values the session deals in; the refresh actor rejects with one of these. */
export class SessionError extends Error {
  override name = 'SessionError';
  constructor(
    readonly kind: SessionErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** Spec §9: at most 3 refresh-and-retry rounds per URL. */
export const MAX_REFRESH_RETRIES = 3;

export interface SessionContext {
  tokens: SessionTokens | null;
  /** 401 count per request URL; cleared by a successful response to that URL. */
  retries: Record<string, number>;
  /** What the last refresh came to: requests waiting on it read this to retry or pass their response on. */
  lastRefresh: 'none' | 'refreshed' | 'networkFailure';
}

export interface SessionInput {
  tokens: SessionTokens | null;
}

export type SessionEvent =
  | { type: 'LOGIN'; tokens: SessionTokens }
  | { type: 'LOGOUT' }
  | { type: 'REQUEST.START' }
  | { type: 'REQUEST.UNAUTHORIZED'; url: string }
  | { type: 'REQUEST.SUCCEEDED'; url: string }
  | { type: 'ME.UNAUTHORIZED'; workspaceCreation: boolean }
  | { type: 'TOKENS.CHANGED_ELSEWHERE'; tokens: SessionTokens | null };

function errorOf(event: unknown): SessionError {
  const error = (event as { error?: unknown }).error;
  if (error instanceof SessionError) return error;
  return new SessionError('other', error instanceof Error ? error.message : String(error));
}

export const sessionMachine = setup({
  types: {
    context: {} as SessionContext,
    events: {} as SessionEvent,
    input: {} as SessionInput,
  },
  actors: {
    refreshTokens: fromPromise<RefreshedTokens>(async () => {
      throw new SessionError('other', 'refreshTokens is not provided');
    }),
  },
  guards: {
    hasTokens: ({ context }) => context.tokens !== null,
    isAccessTokenExpired: ({ context }) => isAccessTokenExpired(context.tokens?.access_token),
    retriesExhausted: ({ context, event }) =>
      event.type === 'REQUEST.UNAUTHORIZED' && (context.retries[event.url] ?? 0) >= MAX_REFRESH_RETRIES,
    hasNoRefreshToken: ({ context }) => !context.tokens?.refresh_token,
    isNetworkFailure: ({ event }) => errorOf(event).kind === 'network',
    isRefreshExpired: ({ event }) => errorOf(event).kind === 'refreshExpired',
    workspaceCreationInProgress: ({ event }) => event.type === 'ME.UNAUTHORIZED' && event.workspaceCreation,
    tokensCleared: ({ event }) => event.type === 'TOKENS.CHANGED_ELSEWHERE' && event.tokens === null,
  },
  actions: {
    assignLoginTokens: assign({
      tokens: ({ event }) => (event.type === 'LOGIN' ? event.tokens : null),
      retries: {},
      lastRefresh: 'none' as const,
    }),
    assignTokensFromElsewhere: assign({
      tokens: ({ event, context }) =>
        event.type === 'TOKENS.CHANGED_ELSEWHERE' ? event.tokens : context.tokens,
    }),
    assignRefreshedTokens: assign({
      tokens: ({ context, event }) => {
        const refreshed = (event as unknown as { output: RefreshedTokens }).output;
        const refreshToken = refreshed.refresh_token ?? context.tokens?.refresh_token ?? '';
        return { access_token: refreshed.access_token, refresh_token: refreshToken };
      },
      lastRefresh: 'refreshed' as const,
    }),
    markNetworkFailure: assign({ lastRefresh: 'networkFailure' as const }),
    countRetry: assign({
      retries: ({ context, event }) =>
        event.type === 'REQUEST.UNAUTHORIZED'
          ? { ...context.retries, [event.url]: (context.retries[event.url] ?? 0) + 1 }
          : context.retries,
    }),
    clearRetry: assign({
      retries: ({ context, event }) => {
        if (event.type !== 'REQUEST.SUCCEEDED' || !(event.url in context.retries)) return context.retries;
        const { [event.url]: _cleared, ...rest } = context.retries;
        return rest;
      },
    }),
    forgetSession: assign({ tokens: null, retries: {}, lastRefresh: 'none' as const }),
    // Side effects, provided by the app:
    persistTokens: () => {},
    removeStoredTokens: () => {},
    clearReportingUser: () => {},
    redirectToLogin: () => {},
    reportMaxRetries: () => {},
    reportRefreshFailure: (_, _params: { error: SessionError }) => {},
    removeWorkspaceCreationFlag: () => {},
  },
}).createMachine({
  id: 'session',
  description: 'Spec §4 "Session". Tokens live in localStorage under auth_tokens; this machine mirrors them.',
  context: ({ input }) => ({ tokens: input.tokens, retries: {}, lastRefresh: 'none' }),
  initial: 'boot',
  on: {
    'ME.UNAUTHORIZED': {
      guard: 'workspaceCreationInProgress',
      actions: ['removeWorkspaceCreationFlag', 'redirectToLogin'],
      description: 'The me call answered 401 while the workspace-creation flag is set.',
    },
  },
  states: {
    boot: {
      always: [{ guard: 'hasTokens', target: 'signedIn' }, { target: 'signedOut' }],
    },
    signedOut: {
      description: 'No tokens. Requests go out without a token; a 401 is passed through.',
      entry: 'forgetSession',
      on: {
        LOGIN: { target: 'signedIn', actions: ['assignLoginTokens', 'persistTokens'] },
        'TOKENS.CHANGED_ELSEWHERE': {
          guard: not('tokensCleared'),
          target: 'signedIn',
          actions: 'assignTokensFromElsewhere',
          description: 'Another tab signed in.',
        },
      },
    },
    signedIn: {
      initial: 'active',
      on: {
        LOGOUT: { target: 'signedOut', actions: ['removeStoredTokens', 'clearReportingUser'] },
        LOGIN: { target: '.active', actions: ['assignLoginTokens', 'persistTokens'], reenter: true },
        'REQUEST.SUCCEEDED': { actions: 'clearRetry' },
        'TOKENS.CHANGED_ELSEWHERE': [
          { guard: 'tokensCleared', target: 'signedOut', actions: ['clearReportingUser', 'redirectToLogin'] },
          { actions: 'assignTokensFromElsewhere' },
        ],
      },
      states: {
        active: {
          on: {
            'REQUEST.START': {
              guard: 'isAccessTokenExpired',
              target: 'accessTokenExpired',
              description: 'An expired access token is refreshed before the next non-auth request.',
            },
            'REQUEST.UNAUTHORIZED': [
              {
                guard: 'retriesExhausted',
                target: '#session.signedOut',
                actions: ['reportMaxRetries', 'removeStoredTokens', 'clearReportingUser', 'redirectToLogin'],
                description: 'More than 3 refresh rounds for this URL.',
              },
              {
                guard: 'hasNoRefreshToken',
                target: '#session.signedOut',
                actions: 'removeStoredTokens',
                description: 'No refresh token: tokens removed, the 401 response passed through.',
              },
              { target: 'refreshing', actions: 'countRetry' },
            ],
          },
        },
        accessTokenExpired: {
          description:
            'Spec §4: the access token counts as expired (missing, not decodable, no exp, or expiring within 30 seconds); it is refreshed before the request goes out.',
          always: { target: 'refreshing' },
        },
        refreshing: {
          description: 'Only one refresh runs at a time; every request that needs a token waits here.',
          on: {
            'REQUEST.UNAUTHORIZED': { actions: 'countRetry' },
          },
          invoke: {
            id: 'refreshTokens',
            src: 'refreshTokens',
            onDone: { target: 'active', actions: ['assignRefreshedTokens', 'persistTokens'] },
            onError: [
              {
                guard: 'isNetworkFailure',
                target: 'active',
                actions: [
                  'markNetworkFailure',
                  { type: 'reportRefreshFailure', params: ({ event }) => ({ error: errorOf(event) }) },
                ],
                description: "'Failed to fetch': reported, the original response passed on.",
              },
              {
                guard: 'isRefreshExpired',
                target: 'refreshTokenExpired',
                actions: [
                  { type: 'reportRefreshFailure', params: ({ event }) => ({ error: errorOf(event) }) },
                  'removeStoredTokens',
                  'clearReportingUser',
                  'redirectToLogin',
                ],
                description: "The refresh call answered 401: 'Refresh token expired'.",
              },
              {
                target: '#session.signedOut',
                actions: [
                  { type: 'reportRefreshFailure', params: ({ event }) => ({ error: errorOf(event) }) },
                  'removeStoredTokens',
                  'clearReportingUser',
                  'redirectToLogin',
                ],
                description: "'No tokens found' or any other failure.",
              },
            ],
          },
        },
        refreshTokenExpired: {
          description:
            "Spec §4: the refresh call answered 401, the error 'Refresh token expired'; signed out.",
          always: { target: '#session.signedOut' },
        },
      },
    },
  },
});
