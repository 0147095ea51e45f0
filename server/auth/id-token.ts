// Verifies a vendor's ID token against the vendor's published keys. Vendors differ only in configuration (keys,
// issuers, client id), so a development OpenID provider can stand in for either one.
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import type { FastifyBaseLogger } from 'fastify';
import type { ServerConfig } from '@server/config';
import type { VendorType } from '@contract/auth';
import { ApiError } from '@server/errors';

export interface VerifiedIdentity {
  vendor: VendorType;
  /** Microsoft's tenant id: one subject may exist in several tenants. '' for Google. */
  tenant: string;
  subject: string;
  nonce: string;
  email: string;
  /** The vendor vouches that the address is this person's; staff rights are granted only then. */
  emailVerified: boolean;
  firstName: string | null;
  lastName: string | null;
}

export interface IdTokenVerifier {
  /** Throws ApiError 401 invalid_id_token, or 503 when the vendor's keys cannot be had. */
  verify(vendor: VendorType, token: string, log: FastifyBaseLogger): Promise<VerifiedIdentity>;
}

// Asymmetric only: an HMAC algorithm would let anyone who knows the public key forge tokens.
const ALGORITHMS = ['RS256', 'ES256'];
const CLOCK_TOLERANCE_SECONDS = 30;
const MAX_TEXT = 320;

export const invalidIdToken = (message = 'The sign-in token is not valid.') =>
  new ApiError(401, 'invalid_id_token', message);

const unavailable = (message: string) => new ApiError(503, 'sign_in_unavailable', message);

interface VendorRules {
  clientId: string | undefined;
  keys: ReturnType<typeof createRemoteJWKSet>;
  /** jose checks these when given; Microsoft's issuer depends on the token's tenant and is checked afterwards. */
  issuers?: string[];
  identify(payload: JWTPayload): Omit<VerifiedIdentity, 'vendor' | 'subject' | 'nonce'>;
}

const text = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, MAX_TEXT) : null;

const exact = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' && value.length <= 255 ? value : null;

function names(payload: JWTPayload) {
  return { firstName: text(payload.given_name), lastName: text(payload.family_name) };
}

function requireEmail(email: string | null): string {
  if (!email) throw invalidIdToken('The sign-in token does not carry an e-mail address.');
  return email;
}

function microsoftTenant(payload: JWTPayload, template: string): string {
  const tid = text(payload.tid);
  if (!template.includes('{tid}')) {
    if (payload.iss !== template) throw invalidIdToken('The sign-in token comes from an unexpected issuer.');
    return tid ?? '';
  }
  // The common keys sign for every tenant, so the issuer must name the tenant the token itself claims.
  if (!tid) throw invalidIdToken('The sign-in token does not name its tenant.');
  if (payload.iss !== template.replaceAll('{tid}', tid)) {
    throw invalidIdToken('The sign-in token comes from an unexpected issuer.');
  }
  return tid;
}

function toApiError(error: unknown, log: FastifyBaseLogger): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof errors.JWTExpired) return invalidIdToken('The sign-in token has expired.');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return invalidIdToken('The sign-in token was issued for another application.');
    if (error.claim === 'iss') return invalidIdToken('The sign-in token comes from an unexpected issuer.');
    if (error.claim === 'nonce') return invalidIdToken('The sign-in token carries no sign-in nonce.');
    return invalidIdToken('The sign-in token is missing a claim or has one that is not valid.');
  }
  if (
    error instanceof errors.JWSSignatureVerificationFailed ||
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JOSEAlgNotAllowed
  ) {
    return invalidIdToken('The sign-in token is not signed by the sign-in provider.');
  }
  // Timeouts, network failures and unreadable key sets are the provider's trouble, not the token's.
  const providerTrouble =
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    !(error instanceof errors.JOSEError) ||
    error.code === errors.JOSEError.code;
  if (providerTrouble) {
    log.warn({ err: error }, 'sign-in provider keys unavailable');
    return unavailable('The sign-in provider cannot be reached. Please try again.');
  }
  return invalidIdToken();
}

export function createIdTokenVerifier(config: ServerConfig): IdTokenVerifier {
  const vendors: Record<VendorType, VendorRules> = {
    google: {
      clientId: config.GOOGLE_CLIENT_ID,
      keys: createRemoteJWKSet(new URL(config.GOOGLE_JWKS_URL)),
      issuers: config.GOOGLE_ISSUERS,
      identify: (payload) => ({
        tenant: '',
        email: requireEmail(text(payload.email)),
        emailVerified: payload.email_verified === true,
        ...names(payload),
      }),
    },
    microsoft: {
      clientId: config.MICROSOFT_CLIENT_ID,
      keys: createRemoteJWKSet(new URL(config.MICROSOFT_JWKS_URL)),
      identify: (payload) => {
        const email = text(payload.email);
        return {
          tenant: microsoftTenant(payload, config.MICROSOFT_ISSUER_TEMPLATE),
          email: requireEmail(email ?? text(payload.preferred_username)),
          // Entra lets tenant admins set `email` freely (the "nOAuth" flaw); xms_edov says the domain's owner
          // vouches for it. preferred_username is never verified.
          emailVerified: email !== null && payload.xms_edov === true,
          ...names(payload),
        };
      },
    },
  };

  return {
    async verify(vendor, token, log) {
      const rules = vendors[vendor];
      // Without a client id jose would skip the audience check and accept tokens minted for any application.
      if (!rules.clientId) throw unavailable(`Sign-in with ${vendor} is not configured on this server.`);
      try {
        const { payload } = await jwtVerify(token, rules.keys, {
          algorithms: ALGORITHMS,
          audience: rules.clientId,
          ...(rules.issuers ? { issuer: rules.issuers } : {}),
          requiredClaims: ['iss', 'sub', 'aud', 'exp', 'iat', 'nonce'],
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
        });
        // Compared exactly: trimming or truncating could make two subjects one.
        const subject = exact(payload.sub);
        const nonce = exact(payload.nonce);
        if (!subject) throw invalidIdToken('The sign-in token does not name its subject.');
        if (!nonce) throw invalidIdToken('The sign-in token carries no sign-in nonce.');
        return { vendor, subject, nonce, ...rules.identify(payload) };
      } catch (error) {
        throw toApiError(error, log);
      }
    },
  };
}
