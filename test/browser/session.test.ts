// Session rules of spec §4 end to end: one refresh at a time, at most 3 refresh rounds per URL, refresh failures,
// and refresh-token rotation. The e2e build exposes the app as window.__murmur to drive the real API client.
import { describe, expect, it } from 'vitest';
import { AUTH_TOKENS_KEY, readStorage, signIn, type E2eWindow } from '@test/support/browser';
import { SEED, setupE2e, waitForHeading, waitForPath } from '@test/support/browser-harness';

const e2e = setupE2e();
const REFRESH = 'POST /api/auth/refresh';
const ME = 'GET /api/users/me';

async function storedTokens(): Promise<{ access_token: string; refresh_token: string } | null> {
  const raw = await readStorage(e2e.page, AUTH_TOKENS_KEY);
  return raw === null ? null : (JSON.parse(raw) as { access_token: string; refresh_token: string });
}

/** Waits until the app has removed its stored tokens. */
async function waitForTokensRemoved(): Promise<void> {
  await e2e.page.waitForFunction((key) => window.localStorage.getItem(key) === null, AUTH_TOKENS_KEY);
}

describe('session', () => {
  it('eight concurrent requests with an expired access token share exactly one refresh', async () => {
    const { page, backend } = e2e;
    const first = backend.issueTokens(SEED.alice);
    await signIn(e2e.current.context, {
      access_token: backend.expiredAccessToken(SEED.alice),
      refresh_token: first.refresh_token,
    });
    await page.goto(`/workspace/${SEED.w1}/saved-queries`);
    await waitForHeading(page, 'Saved queries');
    // Opening the page with an expired access token refreshed it once already.
    expect(backend.calls(REFRESH)).toBe(1);

    // Make the token expired again, with the refresh token that is valid now (the first one was rotated away).
    const current = await storedTokens();
    expect(current).not.toBeNull();
    const expired = backend.expiredAccessToken(SEED.alice);
    await page.evaluate((tokens) => (window as unknown as E2eWindow).__murmur.session.login(tokens), {
      access_token: expired,
      refresh_token: current?.refresh_token ?? '',
    });
    backend.resetCalls();

    const ids = await page.evaluate(async () => {
      const { api } = (window as unknown as E2eWindow).__murmur;
      const results = await Promise.all(Array.from({ length: 8 }, () => api.getMe()));
      return results.map((me) => me.id);
    });

    expect(ids).toEqual(Array.from({ length: 8 }, () => SEED.alice));
    expect(backend.calls(REFRESH)).toBe(1);
    expect(backend.calls(ME)).toBe(8);
    const after = await storedTokens();
    expect(after?.access_token).not.toBe(expired);
  });

  it('a URL that keeps answering 401 ends on /login after exactly 3 refreshes, tokens removed', async () => {
    const { page, backend } = e2e;
    backend.forceStatus(ME, 401);
    await signIn(e2e.current.context, backend.issueTokens(SEED.alice));
    await page.goto(`/workspace/${SEED.w1}/saved-queries`);
    await waitForPath(page, '/login');
    await waitForHeading(page, 'Sign in to Murmur');
    await waitForTokensRemoved();
    expect(backend.calls(REFRESH)).toBe(3);
    // The first attempt and one retry after each of the 3 refreshes.
    expect(backend.calls(ME)).toBe(4);
  });

  it('a refresh answering 401 (expired access token) sends the browser to /login and removes the tokens', async () => {
    const { page, backend } = e2e;
    await signIn(e2e.current.context, {
      access_token: backend.expiredAccessToken(SEED.alice),
      refresh_token: 'refresh-token-the-server-never-issued',
    });
    await page.goto(`/workspace/${SEED.w1}/saved-queries`);
    await waitForPath(page, '/login');
    await waitForHeading(page, 'Sign in to Murmur');
    await waitForTokensRemoved();
    expect(backend.calls(REFRESH)).toBe(1);
  });

  it('a refresh answering 401 after a 401 response sends the browser to /login and removes the tokens', async () => {
    const { page, backend } = e2e;
    await signIn(e2e.current.context, backend.issueTokens(SEED.alice));
    backend.revokeAccessTokens();
    backend.forceStatus(REFRESH, 401);
    await page.goto(`/workspace/${SEED.w1}/saved-queries`);
    await waitForPath(page, '/login');
    await waitForHeading(page, 'Sign in to Murmur');
    await waitForTokensRemoved();
    expect(backend.calls(REFRESH)).toBe(1);
  });

  it('stores the rotated refresh token after a refresh', async () => {
    const { page, backend } = e2e;
    const first = backend.issueTokens(SEED.alice);
    await signIn(e2e.current.context, {
      access_token: backend.expiredAccessToken(SEED.alice),
      refresh_token: first.refresh_token,
    });
    await page.goto(`/workspace/${SEED.w1}/saved-queries`);
    await waitForHeading(page, 'Saved queries');
    expect(backend.calls(REFRESH)).toBe(1);

    const [rotated] = backend.refreshTokensOf(SEED.alice);
    expect(rotated).toBeDefined();
    expect(rotated).not.toBe(first.refresh_token);
    expect(backend.isRefreshTokenValid(first.refresh_token)).toBe(false);
    const stored = await storedTokens();
    expect(stored?.refresh_token).toBe(rotated);
    expect(stored?.access_token).not.toBe(first.access_token);
  });
});
