// Signing in (loaded only when a sign-in button is pressed, or on /login/callback): a nonce from the server, an ID
// token from the vendor (or the development provider standing in for it) carrying that nonce, then auth/login.
import type { Api } from '@/api/api';
import type { VendorType } from '@contract/auth';
import type { Session } from '@/api/session';
import type { AppConfig } from '@/config';
import { HttpError } from '@/api/errors';
import { SignInError } from './sign-in-error';
import { completeDevProvider, redirectToDevProvider } from './dev-provider';
import { googleIdToken, microsoftIdToken, relayMicrosoftResponse } from './vendor-sdk';
import { signInMethod, usesDevProvider, vendorClientId, vendorLabel } from './sign-in-method';

export interface SignInDeps {
  api: Api;
  session: Session;
  config: AppConfig;
  /** Where a redirecting sign-in waits (this tab only); sessionStorage by default. */
  storage?: Storage;
}

export type SignInOutcome =
  /** The browser is on its way to the sign-in provider. */
  | { kind: 'redirecting' }
  | { kind: 'signedIn'; inviteToken: string | null }
  /** In MSAL's popup: Microsoft's answer went to the window that opened it. */
  | { kind: 'relayed' };

/** The server's own sentence from an error body, when it sent one. */
function serverMessage(error: unknown): string | null {
  if (!(error instanceof HttpError)) return null;
  try {
    const body = JSON.parse(error.bodyExcerpt) as { message?: unknown };
    return typeof body.message === 'string' ? body.message : null;
  } catch {
    return null;
  }
}

async function fromServer<T>(
  call: () => Promise<T>,
  fallback: string,
  inviteToken: string | null,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw new SignInError(serverMessage(error) ?? fallback, { inviteToken, cause: error });
  }
}

async function finish(deps: SignInDeps, idToken: string, vendor: VendorType, inviteToken: string | null) {
  const tokens = await fromServer(
    () => deps.api.login(idToken, vendor),
    'Murmur could not sign you in. Please try again.',
    inviteToken,
  );
  deps.session.login(tokens);
}

export async function startSignIn(
  deps: SignInDeps,
  vendor: VendorType,
  inviteToken: string | null,
): Promise<SignInOutcome> {
  const method = signInMethod(deps.config, vendor);
  if (!method) throw new SignInError(`${vendorLabel(vendor)} sign-in is not configured for this deployment.`);
  const { nonce } = await fromServer(
    () => deps.api.nonce(),
    'Murmur could not start the sign-in. Please try again.',
    inviteToken,
  );
  if (method === 'devProvider') {
    await redirectToDevProvider({
      issuer: deps.config.VITE_DEV_OIDC_ISSUER,
      vendor,
      nonce,
      inviteToken,
      storage: deps.storage,
    });
    return { kind: 'redirecting' };
  }
  const clientId = vendorClientId(deps.config, vendor);
  const idToken =
    vendor === 'google' ? await googleIdToken(clientId, nonce) : await microsoftIdToken(clientId, nonce);
  await finish(deps, idToken, vendor, inviteToken);
  return { kind: 'signedIn', inviteToken };
}

// A code can be redeemed once: React's development double effects and re-renders share the one completion.
const completions = new Map<string, Promise<SignInOutcome>>();

async function complete(deps: SignInDeps, callbackUrl: URL): Promise<SignInOutcome> {
  if (!usesDevProvider(deps.config)) {
    if (deps.config.VITE_MICROSOFT_CLIENT_ID !== '' && /[?#&]state=/.test(callbackUrl.href)) {
      await relayMicrosoftResponse();
      return { kind: 'relayed' };
    }
    throw new SignInError('No sign-in is in progress here. Please sign in again.');
  }
  const { vendor, idToken, inviteToken } = await completeDevProvider(
    deps.config.VITE_DEV_OIDC_ISSUER,
    callbackUrl,
    deps.storage,
  );
  await finish(deps, idToken, vendor, inviteToken);
  return { kind: 'signedIn', inviteToken };
}

/** On /login/callback: finishes the sign-in the provider sent the browser back from. */
export function completeSignIn(deps: SignInDeps, callbackUrl: URL): Promise<SignInOutcome> {
  const key = callbackUrl.href;
  let completion = completions.get(key);
  if (!completion) {
    completion = complete(deps, callbackUrl);
    completions.set(key, completion);
  }
  return completion;
}
