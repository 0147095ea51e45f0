// Garbage in the invite token never reaches the server: the token is a string of 1–512 characters or nothing.
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryHistory } from '@tanstack/react-router';
import { cleanup, render, waitFor } from '@testing-library/react';
import { App, createApp } from '@/app';
import { AUTH_TOKENS_KEY } from '@/lib/storage-keys';
import { fakeJwt, nowSeconds, startFakeHttp } from '@test/support/fake-http';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

async function visit(url: string) {
  const server = await startFakeHttp();
  server.handle = (r) =>
    r.path === '/api/users/me'
      ? {
          status: 200,
          body: { id: 'u1', email: 'a@example.com', first_name: null, last_name: null, workspaces: [] },
        }
      : { status: 200, body: { id: 'w-invited' } };
  localStorage.setItem(
    AUTH_TOKENS_KEY,
    JSON.stringify({ access_token: fakeJwt(nowSeconds() + 3600), refresh_token: 'r' }),
  );
  const app = createApp(
    {
      VITE_APP_ENV: 'qa',
      VITE_API_BASE_URL: `${server.url}/api/`,
      VITE_SOCIAL_API_BASE_URL: 'http://127.0.0.1:1/social/',
      VITE_PAYMENT_SERVER_URL: 'http://127.0.0.1:1/payments/',
      VITE_SENTRY_DSN: '',
      VITE_INTERNAL_WORKSPACE_ID: 'internal',
      VITE_GOOGLE_CLIENT_ID: '',
      VITE_MICROSOFT_CLIENT_ID: '',
      VITE_DEV_OIDC_ISSUER: '',
      VITE_INSPECT: 'false',
      VITE_E2E: 'false',
    },
    { history: createMemoryHistory({ initialEntries: [url] }), analytics: () => {} },
  );
  render(<App app={app} />);
  await waitFor(() => expect(app.router.state.status).toBe('idle'));
  await waitFor(() => expect(app.router.state.location.pathname).not.toBe(new URL(url, 'http://x').pathname));
  const invites = server.calls.filter((c) => c.path === '/api/user/me/invite').map((c) => JSON.parse(c.body));
  app.session.actor.stop();
  await server.close();
  return { invites, pathname: app.router.state.location.pathname };
}

describe('invite token in the address', () => {
  it('sends a numeric-looking token as the string it is', async () => {
    const { invites } = await visit('/invite?token=123456');
    expect(invites).toEqual([{ token: '123456' }]);
  });

  it('never sends a JSON-looking token as an object', async () => {
    const { invites } = await visit(`/invite?token=${encodeURIComponent('{"a":1}')}`);
    expect(invites).toEqual([{ token: '{"a":1}' }]);
  });

  it('drops a token longer than 512 characters', async () => {
    const { invites, pathname } = await visit(`/invite?token=${'x'.repeat(600)}`);
    expect(invites).toEqual([]);
    expect(pathname).toBe('/workspace/create/name');
  });
});
