// Model-based test of the session: paths generated from the statechart run against the real session actor, whose
// refresh goes through the real API client to a local HTTP server. Each step's real state must equal the model's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventFromLogic, SnapshotFrom } from 'xstate';
import { SessionError, sessionMachine, type SessionTokens } from '@/machines/session.machine';
import { createSession } from '@/api/session';
import { createApi } from '@/api/api';
import { createReporter } from '@/lib/reporting';
import { messages } from '@/lib/messages';
import { AUTH_TOKENS_KEY, WORKSPACE_CREATION_KEY } from '@/lib/storage-keys';
import { readTokens } from '@/lib/token-storage';
import { CoverageRecorder } from '@test/support/coverage';
import { testModelOf, withEveryTransition } from '@test/support/test-model';
import { fakeJwt, nowSeconds, startFakeHttp, type FakeHttp, type FakeReply } from '@test/support/fake-http';

type SessionEvent = EventFromLogic<typeof sessionMachine>;
type SessionSnapshot = SnapshotFrom<typeof sessionMachine>;

const FRESH: SessionTokens = { access_token: fakeJwt(nowSeconds() + 3600), refresh_token: 'refresh-1' };
const EXPIRED: SessionTokens = { access_token: fakeJwt(nowSeconds() - 60), refresh_token: 'refresh-1' };
const NO_REFRESH: SessionTokens = { access_token: fakeJwt(nowSeconds() + 3600), refresh_token: '' };
const ROTATED = { access_token: fakeJwt(nowSeconds() + 7200), refresh_token: 'refresh-2' };
const URL_A = 'http://api.test/users/me';

const refreshError = (kind: 'network' | 'refreshExpired' | 'noTokens' | 'other') =>
  ({
    type: 'xstate.error.actor.refreshTokens',
    error: new SessionError(kind, kind),
  }) as unknown as SessionEvent;

/** The events the traversal may send in a state: the user's, the HTTP client's, and the refresh call's outcomes. */
function eventsFor(snapshot: SessionSnapshot): SessionEvent[] {
  const common: SessionEvent[] = [
    { type: 'LOGIN', tokens: FRESH },
    { type: 'LOGIN', tokens: EXPIRED },
    { type: 'LOGIN', tokens: NO_REFRESH },
    { type: 'LOGOUT' },
    { type: 'REQUEST.START' },
    { type: 'REQUEST.UNAUTHORIZED', url: URL_A },
    { type: 'REQUEST.SUCCEEDED', url: URL_A },
    { type: 'ME.UNAUTHORIZED', workspaceCreation: true },
    { type: 'ME.UNAUTHORIZED', workspaceCreation: false },
    { type: 'TOKENS.CHANGED_ELSEWHERE', tokens: null },
    { type: 'TOKENS.CHANGED_ELSEWHERE', tokens: FRESH },
  ];
  if (!snapshot.matches({ signedIn: 'refreshing' })) return common;
  // 401s counted while a refresh runs are unbounded in the machine; the model stops at the limit of 3.
  const counted =
    (snapshot.context.retries[URL_A] ?? 0) < 3
      ? common
      : common.filter((e) => e.type !== 'REQUEST.UNAUTHORIZED');
  return [
    ...counted,
    { type: 'xstate.done.actor.refreshTokens', output: ROTATED } as unknown as SessionEvent,
    refreshError('network'),
    refreshError('refreshExpired'),
    refreshError('noTokens'),
    refreshError('other'),
  ];
}

const model = testModelOf(sessionMachine, eventsFor);
// Two starts: a first visit (nothing stored) and a return visit (tokens stored by an earlier session).
const starts = [null, FRESH] as const;
const shortestPaths = withEveryTransition(
  sessionMachine,
  starts.flatMap((tokens) =>
    model
      .getShortestPaths({ input: { tokens }, allowDuplicatePaths: true })
      .map((path) => Object.assign(path, { initialTokens: tokens })),
  ),
  eventsFor,
);

/** The refresh outcome the fake server gives for a model event. */
function replyFor(event: SessionEvent): FakeReply {
  if (String(event.type) === 'xstate.done.actor.refreshTokens') return { status: 200, body: ROTATED };
  const kind = (event as unknown as { error: SessionError }).error.kind;
  if (kind === 'network') return 'drop';
  if (kind === 'refreshExpired') return { status: 401, body: { error: 'refresh_token_invalid' } };
  return { status: 500, body: 'refresh failed' };
}

const isRefreshOutcome = (event: SessionEvent | undefined) =>
  event !== undefined &&
  String(event.type).startsWith('xstate.') &&
  String(event.type).endsWith('refreshTokens');

const expectedReport: Record<string, string> = {
  network: messages.failedToFetch,
  refreshExpired: messages.refreshTokenExpired,
  noTokens: messages.noTokensFound,
};

describe('session statechart, paths run against the real session and API client', () => {
  let server: FakeHttp;
  const recorder = new CoverageRecorder();
  /** Refresh requests held open until the path's next step says how they end, per path (each has its own prefix). */
  const parkedByPath = new Map<string, Array<(reply: FakeReply) => void>>();
  let pathNumber = 0;

  beforeAll(async () => {
    server = await startFakeHttp();
    server.handle = (request) => {
      const [, prefix, rest] = /^\/(p\d+)(\/.*)$/.exec(request.path) ?? [];
      if (prefix && rest === '/api/auth/refresh') {
        return new Promise<FakeReply>(
          (resolve) => parkedByPath.get(prefix)?.push(resolve) ?? resolve({ status: 401 }),
        );
      }
      return { status: 404 };
    };
  });
  afterAll(() => server.close());

  it('generates shortest paths that reach every state of the machine', () => {
    const reached = new Set(shortestPaths.map((p) => JSON.stringify(p.state.value)));
    expect(reached).toContain(JSON.stringify('signedOut'));
    expect(reached).toContain(JSON.stringify({ signedIn: 'active' }));
    expect(reached).toContain(JSON.stringify({ signedIn: 'refreshing' }));
  });

  for (const path of shortestPaths) {
    const via = 'extendedBy' in path ? `, then ${path.extendedBy}` : '';
    it(`path from ${path.initialTokens ? 'stored tokens' : 'nothing stored'}: ${path.description}${via}`, async () => {
      localStorage.clear();
      if (path.initialTokens) localStorage.setItem(AUTH_TOKENS_KEY, JSON.stringify(path.initialTokens));
      const prefix = `p${(pathNumber += 1)}`;
      const parked: Array<(reply: FakeReply) => void> = [];
      parkedByPath.set(prefix, parked);
      const navigations: string[] = [];
      const reports: string[] = [];
      const reporter = createReporter();
      reporter.attach({
        captureException: (error) => reports.push(error instanceof Error ? error.message : String(error)),
        setUser: () => {},
      });
      const session = createSession({
        storage: localStorage,
        reporter,
        refresh: (token) => api.refresh(token),
        navigateToLogin: () => navigations.push('/login'),
        inspect: recorder.inspect,
      });
      const api = createApi({ apiBaseUrl: `${server.url}/${prefix}/api/`, reporter, gate: session.gate });
      const pending: Promise<unknown>[] = [];

      const steps = path.steps;
      for (let index = 0; index < steps.length; index += 1) {
        const { event, state } = steps[index]!;
        const next = steps[index + 1]?.event;
        const reportsBefore = reports.length;
        const navigationsBefore = navigations.length;
        const enteringRefresh = state.matches({ signedIn: 'refreshing' }) && !isRefreshOutcome(event);
        // 'No tokens found' happens when the stored tokens vanished before the refresh starts.
        if (enteringRefresh && next && isRefreshOutcome(next)) {
          if ((next as unknown as { error?: SessionError }).error?.kind === 'noTokens') {
            localStorage.removeItem(AUTH_TOKENS_KEY);
          }
        }

        switch (event.type) {
          case 'xstate.init':
            break;
          case 'LOGIN':
            session.login(event.tokens);
            break;
          case 'LOGOUT':
            session.logout();
            break;
          case 'REQUEST.START':
            pending.push(session.gate.prepare().catch(() => null));
            break;
          case 'REQUEST.UNAUTHORIZED':
            pending.push(session.gate.unauthorized(event.url).catch(() => null));
            break;
          case 'REQUEST.SUCCEEDED':
            session.gate.succeeded(event.url);
            break;
          case 'ME.UNAUTHORIZED':
            if (event.workspaceCreation) localStorage.setItem(WORKSPACE_CREATION_KEY, 'true');
            else localStorage.removeItem(WORKSPACE_CREATION_KEY);
            session.meUnauthorized();
            break;
          case 'TOKENS.CHANGED_ELSEWHERE':
            if (event.tokens) localStorage.setItem(AUTH_TOKENS_KEY, JSON.stringify(event.tokens));
            else localStorage.removeItem(AUTH_TOKENS_KEY);
            session.actor.send(event);
            break;
          default: {
            // The refresh call's outcome: answer the request the real client made.
            // With no tokens stored the refresh fails before any call is made.
            if ((event as unknown as { error?: SessionError }).error?.kind !== 'noTokens') {
              const reply = replyFor(event);
              await expect.poll(() => parked.length, { timeout: 5000 }).toBeGreaterThan(0);
              const latest = parked.pop()!;
              for (const stale of parked.splice(0)) stale({ status: 401 });
              latest(reply);
            }
            await Promise.all(pending.splice(0));
          }
        }

        const real = session.actor.getSnapshot();
        expect(real.value, `after ${event.type}`).toEqual(state.value);
        expect(real.context.retries).toEqual(state.context.retries);
        expect(real.context.tokens?.access_token).toEqual(state.context.tokens?.access_token);
        // The stored entry mirrors the session: present while signed in (unless a test removed it), gone when out.
        const stored = readTokens(localStorage);
        if (real.matches('signedOut')) expect(stored).toEqual({ ok: true, tokens: null });
        else if (stored.ok && stored.tokens) expect(stored.tokens).toEqual(real.context.tokens);

        // Side effects of what was taken: the browser goes to /login exactly when the spec says so.
        const previous = index > 0 ? steps[index - 1]!.state : undefined;
        const wasSignedIn = previous?.matches('signedIn') ?? false;
        const exhausted =
          event.type === 'REQUEST.UNAUTHORIZED' &&
          !!previous?.matches({ signedIn: 'active' }) &&
          (previous.context.retries[event.url] ?? 0) >= 3;
        let expectedNavigations = 0;
        if (exhausted) expectedNavigations = 1;
        if (event.type === 'TOKENS.CHANGED_ELSEWHERE' && event.tokens === null && wasSignedIn)
          expectedNavigations = 1;
        if (event.type === 'ME.UNAUTHORIZED' && event.workspaceCreation) expectedNavigations = 1;
        if (isRefreshOutcome(event) && String(event.type).startsWith('xstate.error')) {
          expectedNavigations =
            (event as unknown as { error: SessionError }).error.kind === 'network' ? 0 : 1;
        }
        expect(navigations.length - navigationsBefore, `navigations after ${event.type}`).toBe(
          expectedNavigations,
        );
        if (exhausted) expect(reports.slice(reportsBefore)).toContain(messages.maxRefreshRetries);
        if (String(event.type).startsWith('xstate.error.actor.refreshTokens')) {
          const kind = (event as unknown as { error: SessionError }).error.kind;
          const reported = reports.slice(reportsBefore);
          if (kind in expectedReport) expect(reported).toContain(expectedReport[kind]);
          else expect(reported.some((m) => /status 500/.test(m))).toBe(true);
        }
        if (event.type === 'ME.UNAUTHORIZED') expect(localStorage.getItem(WORKSPACE_CREATION_KEY)).toBeNull();
      }
      for (const release of parked.splice(0)) release({ status: 401 });
      session.actor.stop();
    });
  }

  it('executed paths cover every state and every transition of the session machine', () => {
    expect(recorder.missing(sessionMachine)).toEqual({ states: [], transitions: [] });
  });
});
