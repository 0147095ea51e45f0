// Sign-in through the server's development OpenID provider: authorization code + PKCE with oauth4webapi. The PKCE
// verifier, state and nonce wait in sessionStorage (this tab only) during the redirect; only what OpenID requires
// travels in the URL (the S256 challenge, state and nonce).
import * as oauth from 'oauth4webapi';
import { DEV_OIDC_CLIENT_IDS, SIGN_IN_CALLBACK_PATH } from '@contract/dev-oidc';
import type { VendorType } from '@contract/auth';
import { SignInError } from './sign-in-error';

const PENDING_SIGN_IN_KEY = 'murmur_pending_sign_in';
/** As long as the server keeps the nonce usable. */
const PENDING_MAX_AGE_MS = 10 * 60 * 1000;

interface PendingSignIn {
  vendor: VendorType;
  state: string;
  nonce: string;
  codeVerifier: string;
  redirectUri: string;
  inviteToken: string | null;
  startedAt: number;
}

const requestOptions = (issuer: URL) =>
  issuer.protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {};

async function discover(issuer: string): Promise<oauth.AuthorizationServer> {
  const url = new URL(issuer);
  const response = await oauth.discoveryRequest(url, { algorithm: 'oidc', ...requestOptions(url) });
  return oauth.processDiscoveryResponse(url, response);
}

function readPending(storage: Storage): PendingSignIn | null {
  const raw = storage.getItem(PENDING_SIGN_IN_KEY);
  storage.removeItem(PENDING_SIGN_IN_KEY);
  if (!raw) return null;
  try {
    const pending = JSON.parse(raw) as PendingSignIn;
    const fresh = Date.now() - pending.startedAt < PENDING_MAX_AGE_MS;
    return fresh && (pending.vendor === 'google' || pending.vendor === 'microsoft') ? pending : null;
  } catch {
    return null;
  }
}

export interface DevRedirectOptions {
  issuer: string;
  vendor: VendorType;
  nonce: string;
  inviteToken: string | null;
  storage?: Storage;
}

/** Sends the browser to the provider; it comes back to /login/callback. */
export async function redirectToDevProvider(options: DevRedirectOptions): Promise<void> {
  const { issuer, vendor, nonce, inviteToken, storage = window.sessionStorage } = options;
  const as = await discover(issuer);
  if (!as.authorization_endpoint)
    throw new SignInError('The development sign-in provider has no sign-in page.');
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const redirectUri = `${window.location.origin}${SIGN_IN_CALLBACK_PATH}`;
  const url = new URL(as.authorization_endpoint);
  const params: Record<string, string> = {
    client_id: DEV_OIDC_CLIENT_IDS[vendor],
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'openid email profile',
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    // Always let the person choose who to be, as a real vendor's account chooser would.
    prompt: 'login',
  };
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  const pending: PendingSignIn = {
    vendor,
    state,
    nonce,
    codeVerifier,
    redirectUri,
    inviteToken,
    startedAt: Date.now(),
  };
  storage.setItem(PENDING_SIGN_IN_KEY, JSON.stringify(pending));
  window.location.assign(url.href);
}

export interface DevCallbackResult {
  vendor: VendorType;
  idToken: string;
  inviteToken: string | null;
}

/** Checks the provider's answer against the sign-in started in this tab and redeems the code for an ID token. */
export async function completeDevProvider(
  issuer: string,
  callbackUrl: URL,
  storage: Storage = window.sessionStorage,
): Promise<DevCallbackResult> {
  const pending = readPending(storage);
  if (!pending) {
    throw new SignInError(
      'This sign-in was not started in this tab, or it took too long. Please sign in again.',
    );
  }
  const as = await discover(issuer);
  const client: oauth.Client = { client_id: DEV_OIDC_CLIENT_IDS[pending.vendor] };
  let params: URLSearchParams;
  try {
    params = oauth.validateAuthResponse(as, client, callbackUrl, pending.state);
  } catch (error) {
    if (error instanceof oauth.AuthorizationResponseError) {
      throw new SignInError(
        error.error === 'access_denied'
          ? 'The sign-in was cancelled.'
          : `The sign-in provider refused the sign-in: ${error.error_description ?? error.error}.`,
        { inviteToken: pending.inviteToken },
      );
    }
    throw new SignInError('This answer does not belong to the sign-in started here. Please sign in again.', {
      inviteToken: pending.inviteToken,
    });
  }
  const url = new URL(issuer);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    params,
    pending.redirectUri,
    pending.codeVerifier,
    requestOptions(url),
  );
  const result = await oauth.processAuthorizationCodeResponse(as, client, response, {
    expectedNonce: pending.nonce,
    requireIdToken: true,
  });
  if (!result.id_token) throw new SignInError('The sign-in provider sent no ID token.');
  return { vendor: pending.vendor, idToken: result.id_token, inviteToken: pending.inviteToken };
}
