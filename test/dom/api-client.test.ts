// The real API client and session against a local HTTP server: the spec's client rules (§4, §6, §7, §8, §9).
import * as z from 'zod/mini';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApi } from '@/api/api';
import { createSession, type RefreshLock } from '@/api/session';
import { HttpError, ResponseShapeError } from '@/api/errors';
import { createReporter } from '@/lib/reporting';
import { messages } from '@/lib/messages';
import { AUTH_TOKENS_KEY } from '@/lib/storage-keys';
import { fakeJwt, nowSeconds, startFakeHttp, type FakeHttp } from '@test/support/fake-http';
import { currentUserFixture, workspaceFixture } from '@test/support/contract.fixtures';

const ME = currentUserFixture('u1', ['w1'], {
  email: 'ana@example.com',
  first_name: 'Ana',
  last_name: 'Lee',
});

let server: FakeHttp;
beforeAll(async () => {
  server = await startFakeHttp();
});
afterAll(() => server.close());
afterEach(() => {
  server.calls.length = 0;
  localStorage.clear();
});

function setup(tokens: { access_token: string; refresh_token: string } | null, lock?: RefreshLock) {
  if (tokens) localStorage.setItem(AUTH_TOKENS_KEY, JSON.stringify(tokens));
  const reports: Array<{ message: string; extra?: Record<string, unknown> }> = [];
  const navigations: string[] = [];
  const reporter = createReporter();
  reporter.attach({
    captureException: (error, extra) => reports.push({ message: (error as Error).message, extra }),
    setUser: () => {},
  });
  const session = createSession({
    storage: localStorage,
    reporter,
    refresh: (token) => api.refresh(token),
    navigateToLogin: () => navigations.push('/login'),
    lock,
  });
  const api = createApi({
    apiBaseUrl: `${server.url}/api/`,
    socialApiBaseUrl: `${server.url}/social/`,
    reporter,
    gate: session.gate,
  });
  return { api, session, reports, navigations };
}

const fresh = () => ({ access_token: fakeJwt(nowSeconds() + 3600), refresh_token: 'r1' });
const bearer = (path: string) => server.calls.find((c) => c.path === path)?.headers.authorization;

describe('API client', () => {
  it('sends the access token on non-auth requests and never on /auth/ paths', async () => {
    const tokens = fresh();
    const { api } = setup(tokens);
    server.handle = (r) =>
      r.path === '/api/auth/login'
        ? { status: 200, body: { access_token: 'a', refresh_token: 'b' } }
        : { status: 200, body: ME };
    await api.getMe();
    await api.login('id-token', 'google');
    expect(bearer('/api/users/me')).toBe(`Bearer ${tokens.access_token}`);
    expect(bearer('/api/auth/login')).toBeUndefined();
    expect(JSON.parse(server.calls.find((c) => c.path === '/api/auth/login')!.body)).toEqual({
      oauth_token: 'id-token',
      vendor_type: 'google',
    });
  });

  it('sends social API calls to their own base with the same token, and cancels one whose signal aborts', async () => {
    const tokens = fresh();
    const { api } = setup(tokens);
    server.handle = () => ({ status: 200, body: { valid: true }, delayMs: 200 });
    const schema = z.object({ valid: z.boolean() });
    const body = { method: 'POST', body: { query: 'nova' } } as const;
    await expect(api.sendSocial('query/validate', schema, body)).resolves.toEqual({ valid: true });
    expect(bearer('/social/query/validate')).toBe(`Bearer ${tokens.access_token}`);
    const stale = new AbortController();
    const pending = api.sendSocial('query/validate', schema, { ...body, signal: stale.signal });
    stale.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('refreshes an expired access token once for eight concurrent requests, and stores the rotated token', async () => {
    const { api } = setup({ access_token: fakeJwt(nowSeconds() + 10), refresh_token: 'r1' });
    const renewed = { access_token: fakeJwt(nowSeconds() + 3600), refresh_token: 'r2' };
    server.handle = (r) => {
      if (r.path === '/api/auth/refresh') return { status: 200, body: renewed, delayMs: 50 };
      return r.headers.authorization === `Bearer ${renewed.access_token}`
        ? { status: 200, body: ME }
        : { status: 401 };
    };
    const results = await Promise.all(Array.from({ length: 8 }, () => api.getMe()));
    expect(results).toHaveLength(8);
    expect(server.count('POST', '/api/auth/refresh')).toBe(1);
    expect(server.calls.find((c) => c.path === '/api/auth/refresh')!.headers.authorization).toBe('Bearer r1');
    expect(JSON.parse(localStorage.getItem(AUTH_TOKENS_KEY)!)).toEqual(renewed);
  });

  it('lets one tab refresh at a time: a second tab takes the tokens the first stored instead of replaying r1', async () => {
    // Two tabs over one storage and one lock (a mutex standing in for the Web Locks API).
    let queue = Promise.resolve();
    const lock: RefreshLock = (run) => {
      const result = queue.then(run);
      queue = result.then(
        () => undefined,
        () => undefined,
      );
      return result;
    };
    const expired = { access_token: fakeJwt(nowSeconds() + 10), refresh_token: 'r1' };
    const first = setup(expired, lock);
    const second = setup(null, lock);
    const renewed = { access_token: fakeJwt(nowSeconds() + 3600), refresh_token: 'r2' };
    const used = new Set<string>();
    server.handle = (r) => {
      if (r.path === '/api/auth/refresh') {
        // The server's reuse detection: a refresh token works once.
        const token = r.headers.authorization ?? '';
        if (used.has(token)) return { status: 401, body: { error: 'unauthorized' } };
        used.add(token);
        return { status: 200, body: renewed, delayMs: 50 };
      }
      return r.headers.authorization === `Bearer ${renewed.access_token}`
        ? { status: 200, body: ME }
        : { status: 401 };
    };
    await Promise.all([first.api.getMe(), second.api.getMe()]);
    expect(server.count('POST', '/api/auth/refresh')).toBe(1);
    expect(first.session.isLoggedIn() && second.session.isLoggedIn()).toBe(true);
    expect(JSON.parse(localStorage.getItem(AUTH_TOKENS_KEY)!)).toEqual(renewed);
  });

  it('retries a URL that keeps answering 401 three times, then removes the tokens and goes to /login', async () => {
    const { api, reports, navigations } = setup(fresh());
    server.handle = (r) =>
      r.path === '/api/auth/refresh'
        ? { status: 200, body: { access_token: fakeJwt(nowSeconds() + 3600) } }
        : { status: 401, body: { error: 'unauthorized' } };
    await expect(api.getMe()).rejects.toMatchObject({ status: 401 });
    expect(server.count('POST', '/api/auth/refresh')).toBe(3);
    expect(server.count('GET', '/api/users/me')).toBe(4);
    expect(localStorage.getItem(AUTH_TOKENS_KEY)).toBeNull();
    expect(navigations).toEqual(['/login']);
    expect(reports.map((r) => r.message)).toContain(messages.maxRefreshRetries);
  });

  it('clears the per-URL counter on a successful response', async () => {
    const { api, session } = setup(fresh());
    let fail = true;
    server.handle = (r) => {
      if (r.path === '/api/auth/refresh')
        return { status: 200, body: { access_token: fakeJwt(nowSeconds() + 3600) } };
      fail = !fail;
      return fail ? { status: 401 } : { status: 200, body: ME };
    };
    fail = false;
    await api.getMe();
    await api.getMe();
    expect(session.actor.getSnapshot().context.retries).toEqual({});
  });

  it('lets a call that outlives its app end quietly: no event reaches the stopped session', async () => {
    const { api, session } = setup(fresh());
    let answer: () => void = () => {};
    server.handle = () => new Promise((resolve) => (answer = () => resolve({ status: 200, body: ME })));
    const call = api.getMe();
    await vi.waitFor(() => expect(server.calls).toHaveLength(1));
    session.actor.stop();
    const warn = vi.spyOn(console, 'warn');
    try {
      answer();
      await expect(call).resolves.toMatchObject({ id: 'u1' });
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('passes a 401 through and removes the tokens when there is no refresh token', async () => {
    const { api, navigations } = setup({ access_token: fakeJwt(nowSeconds() + 3600), refresh_token: '' });
    server.handle = () => ({ status: 401 });
    await expect(api.getMe()).rejects.toMatchObject({ status: 401 });
    expect(server.count('POST', '/api/auth/refresh')).toBe(0);
    expect(localStorage.getItem(AUTH_TOKENS_KEY)).toBeNull();
    expect(navigations).toEqual([]);
  });

  it("passes the original response on when the refresh fails on the network ('Failed to fetch')", async () => {
    const tokens = fresh();
    const { api, reports, navigations } = setup(tokens);
    server.handle = (r) => (r.path === '/api/auth/refresh' ? 'drop' : { status: 401, body: 'expired' });
    await expect(api.getMe()).rejects.toMatchObject({ status: 401 });
    expect(reports.map((r) => r.message)).toContain(messages.failedToFetch);
    expect(JSON.parse(localStorage.getItem(AUTH_TOKENS_KEY)!)).toEqual(tokens);
    expect(navigations).toEqual([]);
  });

  it("removes the tokens and goes to /login when the refresh answers 401 ('Refresh token expired')", async () => {
    const { api, reports, navigations } = setup(fresh());
    server.handle = () => ({ status: 401 });
    await expect(api.getMe()).rejects.toMatchObject({ status: 401 });
    expect(reports.map((r) => r.message)).toContain(messages.refreshTokenExpired);
    expect(localStorage.getItem(AUTH_TOKENS_KEY)).toBeNull();
    expect(navigations).toEqual(['/login']);
  });

  it('retries GETs on 5xx and network errors at most 3 times, and never 4xx or POSTs', async () => {
    const { api } = setup(fresh());
    server.handle = () => ({ status: 503, body: 'busy' });
    await expect(api.getWorkspace('w1')).rejects.toMatchObject({ status: 503 });
    expect(server.count('GET', '/api/workspaces/w1')).toBe(4);

    server.handle = () => ({ status: 404, body: { error: 'not_found' } });
    await expect(api.getWorkspace('w2')).rejects.toMatchObject({ status: 404 });
    expect(server.count('GET', '/api/workspaces/w2')).toBe(1);

    server.handle = () => ({ status: 500, body: 'boom' });
    await expect(api.validateInvite('t')).rejects.toMatchObject({ status: 500 });
    expect(server.count('POST', '/api/user/me/invite')).toBe(1);

    let drops = 0;
    server.handle = () => (drops++ < 2 ? 'drop' : { status: 200, body: workspaceFixture('w3') });
    await expect(api.getWorkspace('w3')).resolves.toMatchObject({ id: 'w3' });
    expect(server.count('GET', '/api/workspaces/w3')).toBe(3);
  }, 20_000);

  it('reports HTTP errors with method, status and the first 1000 characters of the body, without the query', async () => {
    const { api, reports } = setup(fresh());
    server.handle = () => ({ status: 422, body: 'x'.repeat(1500) });
    await expect(api.joinWithCode('ABCD')).rejects.toBeInstanceOf(HttpError);
    const report = reports.find((r) => r.extra?.status === 422)!;
    expect(report.extra).toMatchObject({ method: 'POST', status: 422 });
    expect((report.extra!.body as string).length).toBe(1000);
  });

  it('rejects a response that does not match its schema with a clear error', async () => {
    const { api } = setup(fresh());
    server.handle = () => ({
      status: 200,
      body: { ...workspaceFixture('w1'), plan_expired_at: 'soon', privilege: 'admin' },
    });
    const error = await api.getWorkspace('w1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseShapeError);
    expect((error as ResponseShapeError).problems).toEqual([
      'plan_expired_at: Expected number, received string',
      "privilege: Invalid enum value. Expected 'owner' | 'manager' | 'viewer', received 'admin'",
    ]);
  });

  it('treats a corrupted auth_tokens entry as signed out: removed and reported', () => {
    localStorage.setItem(AUTH_TOKENS_KEY, '{"access_token":1}');
    const { session, reports } = setup(null);
    expect(session.isLoggedIn()).toBe(false);
    expect(localStorage.getItem(AUTH_TOKENS_KEY)).toBeNull();
    expect(reports[0]!.message).toMatch(/two string fields/);
  });
});
