// The development OpenID provider's public clients, one per vendor it stands in for. Shared by the server (which
// registers them and verifies their ID tokens) and the SPA (which signs in with them).
import type { VendorType } from './auth';

export const DEV_OIDC_CLIENT_IDS: Record<VendorType, string> = {
  google: 'murmur-dev-google',
  microsoft: 'murmur-dev-microsoft',
};

/** Where the provider is mounted on the server; its issuer is the server's origin plus this path. */
export const DEV_OIDC_PATH = '/oidc';

/** The SPA route the provider sends the browser back to with the authorization code. */
export const SIGN_IN_CALLBACK_PATH = '/login/callback';
