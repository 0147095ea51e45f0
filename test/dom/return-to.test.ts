// The page a signed-out person opened, kept for after they sign in (src/lib/return-to.ts, src/features/auth/return-to.ts,
// requireLogin): only a fresh, same-origin path of this app comes back, once; it is taken only when the person now
// signed in may see it; and /login's own decision for someone already signed in ignores it (spec §2 unchanged).
import { createElement } from 'react';
import { createMemoryHistory } from '@tanstack/react-router';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { App, createApp, type MurmurApp } from '@/app';
import { meQuery } from '@/api/queries';
import {
  RETURN_TO_MAX_AGE_MS,
  appPath,
  continueAfterSignIn,
  maySee,
  takeReturnTo,
} from '@/features/auth/return-to';
import { keepReturnTo, RETURN_TO_KEY } from '@/lib/return-to';
import { AUTH_TOKENS_KEY } from '@/lib/storage-keys';
import {
  currentUserFixture,
  emptySavedQueryListFixture,
  workspaceFixture,
} from '@test/support/contract.fixtures';
import { fakeJwt, nowSeconds, startFakeHttp, type FakeHttp } from '@test/support/fake-http';
import { testConfig } from '@test/support/router-harness';

const ORIGIN = window.location.origin;

let running: Array<{ app: MurmurApp; server?: FakeHttp }> = [];
afterEach(async () => {
  cleanup();
  for (const { app, server } of running) {
    app.session.actor.stop();
    await server?.close();
  }
  running = [];
  localStorage.clear();
  sessionStorage.clear();
  vi.restoreAllMocks();
});

describe('appPath: only a path of this app', () => {
  it.each([
    '/workspace/w1/settings/member',
    '/workspace/w1/insight/posts?range=7d&platforms=x#top',
    '/scraping',
    '/workspace/create/language',
  ])('keeps %s', (path) => {
    expect(appPath(path, ORIGIN)).toBe(path);
  });

  it.each([
    ['another origin', 'https://evil.example/workspace/w1'],
    ['a protocol-relative address', '//evil.example/workspace/w1'],
    ['a backslash that browsers read as //', '/\\evil.example/workspace/w1'],
    ['a script address', 'javascript:alert(1)'],
    ['a relative path', 'workspace/w1'],
    ['an empty string', ''],
    ['not a string', 42],
    ['the login screen', '/login'],
    ['the sign-in callback', '/login/callback?code=abc&state=def'],
    ['an invite link', '/invite?token=abc'],
    ['a path that resolves to /login', '/workspace/../login'],
  ])('refuses %s', (_, value) => {
    expect(appPath(value, ORIGIN)).toBeNull();
  });
});

describe('keeping and taking the page', () => {
  it('gives the kept page back once', () => {
    keepReturnTo('/workspace/w1/settings/member?x=1');
    expect(takeReturnTo()).toBe('/workspace/w1/settings/member?x=1');
    expect(takeReturnTo()).toBeNull();
    expect(sessionStorage.getItem(RETURN_TO_KEY)).toBeNull();
  });

  it('forgets a page kept too long ago', () => {
    keepReturnTo('/workspace/w1/discover');
    const later = Date.now() + RETURN_TO_MAX_AGE_MS + 1;
    expect(takeReturnTo(sessionStorage, ORIGIN, later)).toBeNull();
    expect(sessionStorage.getItem(RETURN_TO_KEY)).toBeNull();
  });

  it.each([
    ['corrupted JSON', '{"path":'],
    ['no time', JSON.stringify({ path: '/scraping' })],
    ['a time in the future', JSON.stringify({ path: '/scraping', at: Date.now() + 60_000 })],
    ['another origin', JSON.stringify({ path: 'https://evil.example/', at: Date.now() })],
  ])('ignores and removes %s', (_, raw) => {
    sessionStorage.setItem(RETURN_TO_KEY, raw);
    expect(takeReturnTo()).toBeNull();
    expect(sessionStorage.getItem(RETURN_TO_KEY)).toBeNull();
  });
});

/** An app that is not rendered: its router and query cache, with users/me already answered. */
function appWithMe(workspaceIds: string[]) {
  const app = createApp(testConfig('http://127.0.0.1:1/api/'), {
    storage: localStorage,
    history: createMemoryHistory({ initialEntries: ['/checkout/return'] }),
    analytics: () => {},
  });
  running.push({ app });
  app.queryClient.setQueryData(meQuery(app.api).queryKey, currentUserFixture('u1', workspaceIds));
  const deps = { router: app.router, queryClient: app.queryClient, api: app.api, config: testConfig('') };
  return { app, deps };
}

describe('maySee: whether the person now signed in may see the kept page', () => {
  it.each([
    ['a page of a workspace they belong to', ['w1'], '/workspace/w1/settings/member', true],
    ['a workspace page with a search', ['w1'], '/workspace/w1/insight/posts?range=7d', true],
    ['a workspace they do not belong to', ['w2'], '/workspace/w1/settings/member', false],
    ['the scraping area, for staff', ['w1', 'internal'], '/scraping', true],
    ['the scraping area, for anyone else', ['w1'], '/scraping', false],
    ['the creation wizard', [], '/workspace/create/language', true],
    ['an unknown page below a workspace', ['w1'], '/workspace/w1/no-such-page', false],
    ['an unknown page', ['w1'], '/no/such/page', false],
    ['a page that needs no sign-in', ['w1'], '/checkout/return', false],
  ])('%s', async (_, workspaceIds, path, expected) => {
    const { deps } = appWithMe(workspaceIds);
    expect(await maySee(deps, path)).toBe(expected);
  });

  it('is false when users/me cannot be read', async () => {
    const { app, deps } = appWithMe([]);
    app.queryClient.removeQueries({ queryKey: meQuery(app.api).queryKey });
    vi.spyOn(app.api, 'getMe').mockRejectedValue(new Error('users/me failed'));
    expect(await maySee(deps, '/workspace/create/name')).toBe(false);
  });
});

describe('after a sign-in', () => {
  it('opens the kept page the person may see, replacing the callback in the history', async () => {
    const { app, deps } = appWithMe(['w1']);
    keepReturnTo('/workspace/w1/settings/member');
    const navigate = vi.spyOn(app.router, 'navigate').mockResolvedValue(undefined);
    // The cache is cleared by the sign-in: users/me is read again.
    vi.spyOn(app.api, 'getMe').mockResolvedValue(currentUserFixture('u1', ['w1']));
    await continueAfterSignIn(deps, null);
    expect(navigate).toHaveBeenCalledWith({ href: '/workspace/w1/settings/member', replace: true });
  });

  it('lets /login decide when the person may not see it, and forgets it', async () => {
    const { app, deps } = appWithMe([]);
    keepReturnTo('/workspace/w1/settings/member');
    const navigate = vi.spyOn(app.router, 'navigate').mockResolvedValue(undefined);
    vi.spyOn(app.api, 'getMe').mockResolvedValue(currentUserFixture('u1', ['w2']));
    await continueAfterSignIn(deps, null);
    expect(navigate).toHaveBeenCalledWith({ to: '/login', search: {}, replace: true });
    expect(sessionStorage.getItem(RETURN_TO_KEY)).toBeNull();
  });

  it('lets an invite decide, and forgets the kept page', async () => {
    const { app, deps } = appWithMe(['w1']);
    keepReturnTo('/workspace/w1/settings/member');
    const navigate = vi.spyOn(app.router, 'navigate').mockResolvedValue(undefined);
    await continueAfterSignIn(deps, 'invite-token');
    expect(navigate).toHaveBeenCalledWith({ to: '/login', search: { token: 'invite-token' }, replace: true });
    expect(sessionStorage.getItem(RETURN_TO_KEY)).toBeNull();
  });
});

describe('through the router', () => {
  /** The real app at `url`, signed in or out, against a backend where u1 belongs to w1 only. */
  async function start(url: string, signedIn: boolean) {
    const server = await startFakeHttp();
    server.handle = (request) => {
      if (request.path === '/api/users/me') return { status: 200, body: currentUserFixture('u1', ['w1']) };
      if (request.path === '/api/workspaces/w1') return { status: 200, body: workspaceFixture('w1') };
      if (/^\/api\/workspaces\/[^/]+\/saved-queries$/.test(request.path)) {
        return { status: 200, body: emptySavedQueryListFixture() };
      }
      if (/^\/api\/workspaces\/[^/]+\/members$/.test(request.path)) return { status: 200, body: [] };
      return { status: 404, body: { error: 'not_found', message: 'Not found.' } };
    };
    if (signedIn) {
      localStorage.setItem(
        AUTH_TOKENS_KEY,
        JSON.stringify({ access_token: fakeJwt(nowSeconds() + 3600), refresh_token: 'r' }),
      );
    }
    vi.spyOn(window, 'scrollTo').mockImplementation(() => {});
    const app = createApp(testConfig(`${server.url}/api/`), {
      history: createMemoryHistory({ initialEntries: [url] }),
      analytics: () => {},
    });
    running.push({ app, server });
    render(createElement(App, { app }));
    return app;
  }

  it('keeps the page a signed-out person opened, search and hash included, and shows the login screen', async () => {
    const app = await start('/workspace/w1/settings/member?x=1#list', false);
    expect(await screen.findByRole('heading', { name: 'Sign in to Murmur' })).toBeTruthy();
    expect(app.router.state.location.pathname).toBe('/login');
    expect(takeReturnTo()).toBe('/workspace/w1/settings/member?x=1#list');
  });

  it("does not change /login's decision for someone already signed in (spec §2)", async () => {
    keepReturnTo('/workspace/w1/settings/member');
    const app = await start('/login', true);
    await vi.waitFor(() => expect(app.router.state.location.pathname).toBe('/workspace/w1/saved-queries'));
    // Still kept: only a sign-in takes it.
    expect(sessionStorage.getItem(RETURN_TO_KEY)).not.toBeNull();
  });
});
