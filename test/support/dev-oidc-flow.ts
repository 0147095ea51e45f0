// A listening test server with the development OpenID provider mounted, and a relying party that signs in through it
// over real HTTP the way the SPA does (oauth4webapi: discovery, authorization code + PKCE, nonce and state), with a
// minimal cookie jar standing in for the browser on the provider's pages.
import { createServer } from 'node:net';
import * as oauth from 'oauth4webapi';
import { DEV_OIDC_CLIENT_IDS, SIGN_IN_CALLBACK_PATH } from '@contract/dev-oidc';
import type { VendorType } from '@contract/auth';
import { createTestServer } from './server-harness';

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

export async function createDevOidcServer(env: Record<string, string> = {}) {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const issuer = `${origin}/oidc`;
  const server = await createTestServer({
    DEV_OIDC: 'true',
    DEV_OIDC_ISSUER: issuer,
    LOGIN_RATE_LIMIT_PER_MINUTE: '10000',
    ...env,
  });
  await server.app.listen({ host: '127.0.0.1', port });
  return { ...server, origin, issuer };
}

export type DevOidcServer = Awaited<ReturnType<typeof createDevOidcServer>>;

/** Cookies by name; the provider's cookies are host-only, and every path of theirs is under /oidc. */
class CookieJar {
  private readonly cookies = new Map<string, string>();

  async fetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) {
      headers.set('cookie', [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; '));
    }
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const index = pair.indexOf('=');
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }
}

export function location(response: Response, base: string): URL {
  const target = response.headers.get('location');
  if (response.status < 300 || response.status >= 400 || !target) {
    throw new Error(`expected a redirect, got ${response.status}`);
  }
  return new URL(target, base);
}

export interface StartedSignIn {
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  redirectUri: string;
  state: string;
  nonce: string;
  codeVerifier: string;
  jar: CookieJar;
  /** The provider's sign-in page for this sign-in. */
  interactionUrl: URL;
}

const insecure = { [oauth.allowInsecureRequests]: true };

export async function discover(issuer: string) {
  const issuerUrl = new URL(issuer);
  const response = await oauth.discoveryRequest(issuerUrl, { algorithm: 'oidc', ...insecure });
  return oauth.processDiscoveryResponse(issuerUrl, response);
}

/** Discovery and the authorization request, up to the provider's sign-in page. */
export async function startSignIn(
  server: DevOidcServer,
  vendor: VendorType,
  nonce: string,
  extraParams: Record<string, string> = {},
): Promise<StartedSignIn> {
  const as = await discover(server.issuer);
  const client: oauth.Client = { client_id: DEV_OIDC_CLIENT_IDS[vendor] };
  const redirectUri = `${server.origin}${SIGN_IN_CALLBACK_PATH}`;
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  const params = {
    client_id: client.client_id,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'openid email profile',
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    prompt: 'login',
    ...extraParams,
  };
  for (const [key, value] of Object.entries(params)) if (value !== '') url.searchParams.set(key, value);
  const jar = new CookieJar();
  const response = await jar.fetch(url);
  return {
    as,
    client,
    redirectUri,
    state,
    nonce,
    codeVerifier,
    jar,
    interactionUrl: location(response, url.href),
  };
}

/** Submits a form on the provider's sign-in page; returns the provider's answer (a redirect when accepted). */
export function submit(signIn: StartedSignIn, action: 'login' | 'abort', fields: Record<string, string>) {
  return signIn.jar.fetch(`${signIn.interactionUrl.href}/${action}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

/** Follows the provider's redirects from a submitted form to the SPA's callback address. */
export async function followToCallback(signIn: StartedSignIn, response: Response): Promise<URL> {
  let next = location(response, signIn.interactionUrl.href);
  while (next.pathname !== SIGN_IN_CALLBACK_PATH) {
    next = location(await signIn.jar.fetch(next), next.href);
  }
  return next;
}

/** What the SPA's callback page does: checks state, redeems the code with the PKCE verifier, checks the nonce. */
async function redeem(signIn: StartedSignIn, callback: URL): Promise<string> {
  const params = oauth.validateAuthResponse(signIn.as, signIn.client, callback, signIn.state);
  const response = await oauth.authorizationCodeGrantRequest(
    signIn.as,
    signIn.client,
    oauth.None(),
    params,
    signIn.redirectUri,
    signIn.codeVerifier,
    insecure,
  );
  const result = await oauth.processAuthorizationCodeResponse(signIn.as, signIn.client, response, {
    expectedNonce: signIn.nonce,
    requireIdToken: true,
  });
  return result.id_token!;
}

/** A whole sign-in with the provider, choosing with `fields` on its page; returns the ID token. */
export async function signInWithProvider(
  server: DevOidcServer,
  vendor: VendorType,
  nonce: string,
  fields: Record<string, string>,
): Promise<string> {
  const signIn = await startSignIn(server, vendor, nonce);
  const callback = await followToCallback(signIn, await submit(signIn, 'login', fields));
  return redeem(signIn, callback);
}

export function claimsOf(idToken: string): Record<string, unknown> {
  const payload = idToken.split('.')[1] ?? '';
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
}
