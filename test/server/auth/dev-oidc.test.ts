// The development OpenID provider end to end over HTTP: discovery, the sign-in page, authorization code + PKCE, and
// the ID token it issues going through the production sign-in (auth/login) as Google and as Microsoft.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_OIDC_CLIENT_IDS } from '@contract/dev-oidc';
import { DEMO_WORKSPACE, DEV_TENANT_ID, subjectFor } from '@server/dev-oidc/accounts';
import { seedDevData } from '@server/seed';
import { bearer, getNonce, postLogin } from '@test/support/auth.fixtures';
import {
  claimsOf,
  createDevOidcServer,
  discover,
  followToCallback,
  location,
  signInWithProvider,
  startSignIn,
  submit,
  type DevOidcServer,
} from '@test/support/dev-oidc-flow';

let server: DevOidcServer;

beforeAll(async () => {
  server = await createDevOidcServer();
  await seedDevData(server.db, server.config);
});
afterAll(() => server.close());

async function signInToMurmur(vendor: 'google' | 'microsoft', fields: Record<string, string>) {
  const nonce = await getNonce(server.app);
  const idToken = await signInWithProvider(server, vendor, nonce, fields);
  const login = await postLogin(server.app, { oauth_token: idToken, vendor_type: vendor });
  expect(login.statusCode, login.body).toBe(200);
  const tokens = login.json<{ access_token: string; refresh_token: string }>();
  const me = await server.app.inject({
    method: 'GET',
    url: '/api/users/me',
    headers: bearer(tokens.access_token),
  });
  expect(me.statusCode).toBe(200);
  return { idToken, claims: claimsOf(idToken), me: me.json<Record<string, unknown>>() };
}

describe('the development OpenID provider', () => {
  it('publishes an authorization-code-only configuration with S256 PKCE and an RS256 key', async () => {
    const as = await discover(server.issuer);
    expect(as.issuer).toBe(server.issuer);
    expect(as.response_types_supported).toEqual(['code']);
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    expect(as.scopes_supported).toEqual(expect.arrayContaining(['openid', 'email', 'profile']));
    const jwks = await (await fetch(as.jwks_uri!)).json();
    expect(jwks.keys).toEqual([expect.objectContaining({ kty: 'RSA', alg: 'RS256', use: 'sig' })]);
    expect(jwks.keys[0]).not.toHaveProperty('d');
  });

  it('shows a sign-in page without scripts, with the demo accounts and labelled fields', async () => {
    const signIn = await startSignIn(server, 'google', 'n-page');
    const page = await signIn.jar.fetch(signIn.interactionUrl);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toMatch(/<script/i);
    for (const name of ['Ana Owner', 'Ben Manager', 'Cleo Viewer', 'Sam Staff']) expect(html).toContain(name);
    for (const id of ['given_name', 'family_name', 'email']) {
      expect(html).toContain(`<label for="${id}">`);
      expect(html).toContain(`id="${id}"`);
    }
    expect(html).toContain('Sign in as a new person');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toMatch(/form-action 'self' [^;]*http:\/\/localhost:5173/);
    // Its one inline stylesheet is allowed by its hash, and no other inline style.
    const style = /<style>([\s\S]*)<\/style>/.exec(html)?.[1] ?? '';
    const hash = createHash('sha256').update(style).digest('base64');
    const styleSrc = csp.split(';').find((directive) => directive.trim().startsWith('style-src')) ?? '';
    expect(styleSrc.trim().split(' ')).toContain(`'sha256-${hash}'`);
    expect(csp).not.toContain('unsafe-inline');
  });

  it("answers with its own narrow policy where oidc-provider writes the response, and the app's other headers", async () => {
    const res = await fetch(`${server.issuer}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/^default-src 'none';/);
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toMatch(/form-action 'self' [^;]*http:\/\/localhost:5173/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('signs a demo account in as Google: the ID token has the claims, auth/login finds the seeded user', async () => {
    const { claims, me } = await signInToMurmur('google', { account: 'ana@murmur.local' });
    expect(claims).toMatchObject({
      iss: server.issuer,
      aud: DEV_OIDC_CLIENT_IDS.google,
      sub: subjectFor('ana@murmur.local'),
      email: 'ana@murmur.local',
      email_verified: true,
      given_name: 'Ana',
      family_name: 'Owner',
    });
    expect(claims).not.toHaveProperty('tid');
    expect(me).toMatchObject({
      email: 'ana@murmur.local',
      workspaces: [
        expect.objectContaining({
          id: DEMO_WORKSPACE.id,
          name: 'Murmur Demo',
          privilege: 'owner',
          plan_expired_at: null,
        }),
      ],
    });
  });

  it('signs a new person in as Microsoft with tid and xms_edov, and gives the same e-mail the same subject', async () => {
    const fields = { given_name: 'Nora', family_name: 'New', email: 'Nora.New@Example.com' };
    const first = await signInToMurmur('microsoft', fields);
    expect(first.claims).toMatchObject({
      aud: DEV_OIDC_CLIENT_IDS.microsoft,
      sub: subjectFor('nora.new@example.com'),
      email: 'nora.new@example.com',
      given_name: 'Nora',
      family_name: 'New',
      tid: DEV_TENANT_ID,
      xms_edov: true,
    });
    expect(first.me).toMatchObject({ first_name: 'Nora', last_name: 'New', workspaces: [] });
    const again = await signInToMurmur('microsoft', { ...fields, email: 'nora.new@example.com' });
    expect(again.me.id).toBe(first.me.id);
  });

  it('gives the seeded staff account the internal workspace', async () => {
    const { me } = await signInToMurmur('google', { account: 'sam@murmur.local' });
    expect(me.workspaces).toEqual([
      expect.objectContaining({ id: server.config.INTERNAL_WORKSPACE_ID, privilege: 'owner' }),
    ]);
  });

  it('keeps the sign-in page on an invalid e-mail address, with the problem announced', async () => {
    const signIn = await startSignIn(server, 'google', 'n-invalid');
    const response = await submit(signIn, 'login', { given_name: 'X', email: 'not-an-address' });
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toMatch(/role="alert"[^>]*>Enter an e-mail address/);
    expect(html).toContain('value="not-an-address"');
    expect(html).toContain('aria-invalid="true"');
  });

  it('returns access_denied to the SPA when the person cancels', async () => {
    const signIn = await startSignIn(server, 'google', 'n-cancel');
    const callback = await followToCallback(signIn, await submit(signIn, 'abort', {}));
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('state')).toBe(signIn.state);
    expect(callback.searchParams.has('code')).toBe(false);
  });

  it('refuses an authorization request without PKCE and a redirect URI it does not know', async () => {
    const signIn = await startSignIn(server, 'google', 'n-pkce', {
      code_challenge: '',
      code_challenge_method: '',
    });
    expect(signIn.interactionUrl.pathname).toBe('/login/callback');
    expect(signIn.interactionUrl.searchParams.get('error')).toBe('invalid_request');

    const as = await discover(server.issuer);
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: DEV_OIDC_CLIENT_IDS.google,
      redirect_uri: 'https://attacker.example/login/callback',
      response_type: 'code',
      scope: 'openid',
    }).toString();
    const response = await fetch(url, { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
  });

  it('is still the production sign-in: a provider token whose nonce the server never issued is refused', async () => {
    const idToken = await signInWithProvider(server, 'google', 'a-nonce-murmur-never-issued', {
      account: 'ben@murmur.local',
    });
    const login = await postLogin(server.app, { oauth_token: idToken, vendor_type: 'google' });
    expect(login.statusCode).toBe(401);
    // The Google client's token is no Microsoft token.
    const asMicrosoft = await postLogin(server.app, { oauth_token: idToken, vendor_type: 'microsoft' });
    expect(asMicrosoft.statusCode).toBe(401);
    expect(asMicrosoft.json<{ message: string }>().message).toMatch(/another application/);
  });

  it('is redirected from the interaction without cookies to an error page', async () => {
    const signIn = await startSignIn(server, 'google', 'n-cookies');
    const stranger = await fetch(signIn.interactionUrl, { redirect: 'manual' });
    expect(stranger.status).toBe(400);
    expect(await stranger.text()).toContain('This sign-in has expired or was finished already.');
    expect(
      location(await submit(signIn, 'login', { account: 'cleo@murmur.local' }), server.origin).pathname,
    ).toMatch(/^\/oidc\/auth\//);
  });
});
