// The production vendors: Google Identity Services (its script, loaded on demand) and Microsoft's MSAL (a popup).
// Each hands back an ID token carrying the server's nonce. Neither can run without the vendor's servers, so both are
// kept small; the CSP and COOP headers they need in production are listed in docs/configuration.md.
import type { PopupRequest } from '@azure/msal-browser';
import { SIGN_IN_CALLBACK_PATH } from '@contract/dev-oidc';
import { SignInError } from './sign-in-error';

const GOOGLE_SCRIPT = 'https://accounts.google.com/gsi/client';
const MICROSOFT_AUTHORITY = 'https://login.microsoftonline.com/common';

interface GoogleMomentNotification {
  isSkippedMoment?: () => boolean;
  isNotDisplayed?: () => boolean;
}

interface GoogleIdentity {
  initialize(options: {
    client_id: string;
    nonce: string;
    callback: (response: { credential?: string }) => void;
    use_fedcm_for_prompt?: boolean;
    cancel_on_tap_outside?: boolean;
  }): void;
  prompt(listener?: (notification: GoogleMomentNotification) => void): void;
}

function loadScript(src: string): Promise<void> {
  const existing = document.querySelector<HTMLScriptElement>(`script[src="${src}"]`);
  if (existing?.dataset.loaded === 'true') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const script = existing ?? document.createElement('script');
    script.addEventListener('load', () => {
      script.dataset.loaded = 'true';
      resolve();
    });
    script.addEventListener('error', () =>
      reject(new SignInError('Google sign-in could not be loaded. Check your connection and try again.')),
    );
    if (!existing) {
      script.src = src;
      script.async = true;
      document.head.append(script);
    }
  });
}

/** Google Identity Services: the account chooser, then the ID token ("credential") it signed with our nonce. */
export async function googleIdToken(clientId: string, nonce: string): Promise<string> {
  await loadScript(GOOGLE_SCRIPT);
  const identity = (window as unknown as { google?: { accounts?: { id?: GoogleIdentity } } }).google?.accounts
    ?.id;
  if (!identity) throw new SignInError('Google sign-in could not be started in this browser.');
  return new Promise((resolve, reject) => {
    identity.initialize({
      client_id: clientId,
      nonce,
      use_fedcm_for_prompt: true,
      cancel_on_tap_outside: false,
      callback: (response) =>
        response.credential
          ? resolve(response.credential)
          : reject(new SignInError('Google did not confirm who you are. Please try again.')),
    });
    identity.prompt((notification) => {
      if (notification.isNotDisplayed?.() || notification.isSkippedMoment?.()) {
        reject(
          new SignInError(
            'The Google sign-in was closed, or this browser blocks it (third-party sign-in may be turned off).',
          ),
        );
      }
    });
  });
}

/** MSAL's popup: Microsoft's account chooser, then the ID token it signed with our nonce. */
export async function microsoftIdToken(clientId: string, nonce: string): Promise<string> {
  const { createStandardPublicClientApplication, BrowserAuthError } = await import('@azure/msal-browser');
  const msal = await createStandardPublicClientApplication({
    auth: {
      clientId,
      authority: MICROSOFT_AUTHORITY,
      redirectUri: `${window.location.origin}${SIGN_IN_CALLBACK_PATH}`,
    },
    cache: { cacheLocation: 'sessionStorage' },
  });
  const request: PopupRequest = { scopes: ['openid', 'profile', 'email'], nonce, prompt: 'select_account' };
  try {
    return (await msal.loginPopup(request)).idToken;
  } catch (error) {
    if (error instanceof BrowserAuthError && error.errorCode === 'user_cancelled') {
      throw new SignInError('The sign-in was cancelled.', { cause: error });
    }
    throw new SignInError('Microsoft sign-in did not complete. Please try again.', { cause: error });
  }
}

/** In MSAL's popup, back on /login/callback: hands Microsoft's answer to the window that opened it. */
export async function relayMicrosoftResponse(): Promise<void> {
  const { broadcastResponseToMainFrame } = await import('@azure/msal-browser/redirect-bridge');
  await broadcastResponseToMainFrame();
}
