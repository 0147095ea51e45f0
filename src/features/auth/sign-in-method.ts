// Which sign-in each button performs, from the build-time configuration alone: shared by the login screens' controls
// (./use-sign-in) and the sign-in code they load on demand (./sign-in).
import type { VendorType } from '@contract/auth';
import type { AppConfig } from '@/config';

export type SignInMethod = 'devProvider' | 'vendor';

/** The development OpenID provider stands in for both vendors in local and dev builds that name it. */
export const usesDevProvider = (config: AppConfig): boolean =>
  (config.VITE_APP_ENV === 'local' || config.VITE_APP_ENV === 'dev') && config.VITE_DEV_OIDC_ISSUER !== '';

export const vendorClientId = (config: AppConfig, vendor: VendorType): string =>
  vendor === 'google' ? config.VITE_GOOGLE_CLIENT_ID : config.VITE_MICROSOFT_CLIENT_ID;

/** How signing in with this vendor works here, or null when this deployment has no way to. */
export function signInMethod(config: AppConfig, vendor: VendorType): SignInMethod | null {
  if (usesDevProvider(config)) return 'devProvider';
  return vendorClientId(config, vendor) !== '' ? 'vendor' : null;
}

export const vendorLabel = (vendor: VendorType) => (vendor === 'google' ? 'Google' : 'Microsoft');
