// The development OpenID provider: panva's oidc-provider (OpenID Certified) configured as a stand-in for Google and
// Microsoft. Authorization code + PKCE for public clients only; ID tokens (RS256) carry the claims Murmur's sign-in
// reads from the real vendors.
import Provider, { type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { DEV_OIDC_CLIENT_IDS, DEV_OIDC_PATH, SIGN_IN_CALLBACK_PATH } from '@contract/dev-oidc';
import type { VendorType } from '@contract/auth';
import { DEV_TENANT_ID, type Directory } from './accounts';
import type { DevOidcSecrets } from './keys';
import { createMemoryAdapter } from './memory-adapter';
import { errorPage } from './pages';

/** The Vite dev server's origin (`npm run dev`), whose callback the clients accept too. */
const VITE_DEV_ORIGIN = 'http://localhost:5173';

const SCOPE = 'openid email profile';
const MINUTE = 60;

export interface DevProviderOptions {
  issuer: string;
  secrets: DevOidcSecrets;
  directory: Directory;
}

/** Where the provider sends the browser back: the SPA's callback on the server's origin and on the Vite dev server. */
export function redirectUris(issuer: string): string[] {
  const origins = new Set([new URL(issuer).origin, VITE_DEV_ORIGIN]);
  return [...origins].map((origin) => `${origin}${SIGN_IN_CALLBACK_PATH}`);
}

const vendorOf = (clientId: string | undefined): VendorType | undefined =>
  (Object.keys(DEV_OIDC_CLIENT_IDS) as VendorType[]).find(
    (vendor) => DEV_OIDC_CLIENT_IDS[vendor] === clientId,
  );

export function createDevProvider({ issuer, secrets, directory }: DevProviderOptions): Provider {
  const uris = redirectUris(issuer);
  const configuration: Configuration = {
    adapter: createMemoryAdapter(),
    clients: (Object.keys(DEV_OIDC_CLIENT_IDS) as VendorType[]).map((vendor) => ({
      client_id: DEV_OIDC_CLIENT_IDS[vendor],
      client_name: `Murmur (as ${vendor === 'google' ? 'Google' : 'Microsoft'})`,
      application_type: 'web',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      redirect_uris: uris,
    })),
    jwks: secrets.jwks,
    cookies: { keys: secrets.cookieKeys },
    responseTypes: ['code'],
    // Public clients must use PKCE (S256 is the only method oidc-provider accepts).
    pkce: { required: () => true },
    scopes: ['openid', 'email', 'profile'],
    claims: {
      openid: ['sub', 'tid', 'xms_edov'],
      email: ['email', 'email_verified'],
      profile: ['name', 'given_name', 'family_name'],
    },
    // Like Google and Microsoft, put the scopes' claims into the ID token itself, not only behind userinfo.
    conformIdTokenClaims: false,
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      userinfo: { enabled: true },
    },
    ttl: {
      AccessToken: 10 * MINUTE,
      AuthorizationCode: MINUTE,
      IdToken: 10 * MINUTE,
      Interaction: 30 * MINUTE,
      Session: 60 * MINUTE,
      Grant: 60 * MINUTE,
    },
    interactions: { url: (_ctx, interaction) => `${DEV_OIDC_PATH}/interaction/${interaction.uid}` },
    // CORS only for the clients' own origins (the SPA exchanges the code from the browser).
    clientBasedCORS: (_ctx, origin, client) =>
      client?.redirectUris.some((uri) => URL.parse(uri)?.origin === origin) ?? false,
    async findAccount(ctx: KoaContextWithOIDC, sub: string) {
      const person = directory.find(sub);
      if (!person) return undefined;
      const vendor = vendorOf(ctx.oidc.client?.clientId);
      return {
        accountId: sub,
        claims: () => ({
          sub,
          email: person.email,
          email_verified: true,
          ...(person.firstName ? { given_name: person.firstName } : {}),
          ...(person.lastName ? { family_name: person.lastName } : {}),
          name: [person.firstName, person.lastName].filter(Boolean).join(' ') || person.email,
          // Entra's tenant id, and its "the domain's owner vouches for this e-mail" flag.
          ...(vendor === 'microsoft' ? { tid: DEV_TENANT_ID, xms_edov: true } : {}),
        }),
      };
    },
    // First-party clients: signing in grants the sign-in scopes without a consent screen.
    async loadExistingGrant(ctx: KoaContextWithOIDC) {
      const { client, session, result, provider } = ctx.oidc;
      if (!client || !session?.accountId) return undefined;
      const grantId = result?.consent?.grantId ?? session.grantIdFor(client.clientId);
      const existing = grantId ? await provider.Grant.find(grantId) : undefined;
      if (existing) return existing;
      const grant = new provider.Grant({ clientId: client.clientId, accountId: session.accountId });
      grant.addOIDCScope(SCOPE);
      await grant.save();
      return grant;
    },
    async renderError(ctx: KoaContextWithOIDC, out: Record<string, string>) {
      ctx.type = 'html';
      ctx.body = errorPage(
        out.error ?? 'error',
        out.error_description ?? 'The sign-in request is not valid.',
      );
    },
  };
  const provider = new Provider(issuer, configuration);
  // Fastify does not trust proxy headers (trustProxy: false); neither does the provider.
  provider.proxy = false;
  return provider;
}
