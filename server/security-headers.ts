// Security headers on every answer, as @fastify/helmet writes them: the content security policy the SPA and the sign-in
// vendors need, and helmet's other headers, each kept, set or turned off for the reason written beside it. Computed
// once, not per request (securityHeaderValues).
import Fastify, { type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import helmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import type { ServerConfig } from './config';

/** The sign-in vendors whose browser SDKs the SPA loads in production (not when the dev provider stands in). */
export interface VendorSdks {
  google: boolean;
  microsoft: boolean;
}

export function vendorSdks(config: ServerConfig): VendorSdks {
  return {
    google: !config.DEV_OIDC && Boolean(config.GOOGLE_CLIENT_ID),
    microsoft: !config.DEV_OIDC && Boolean(config.MICROSOFT_CLIENT_ID),
  };
}

const GOOGLE_GSI = 'https://accounts.google.com/gsi/';
const MICROSOFT_LOGIN = 'https://login.microsoftonline.com';

/** A content security policy as directive name → sources, the shape helmet takes. */
export type CspDirectives = Record<string, string[]>;

export function contentSecurityPolicyDirectives(connectOrigins: string[], sdks: VendorSdks): CspDirectives {
  return {
    'default-src': ["'self'"],
    'script-src': ["'self'", ...(sdks.google ? [`${GOOGLE_GSI}client`] : [])],
    // No 'unsafe-inline': the SPA's styles are files of its build (react-toastify's too, from its unstyled entry);
    // React's style prop goes through the CSSOM, which style-src does not restrict.
    'style-src': ["'self'", ...(sdks.google ? [`${GOOGLE_GSI}style`] : [])],
    'img-src': ["'self'", 'data:', 'https:'],
    'connect-src': [
      "'self'",
      ...connectOrigins,
      ...(sdks.google ? [GOOGLE_GSI] : []),
      ...(sdks.microsoft ? [MICROSOFT_LOGIN] : []),
    ],
    'frame-src': sdks.google ? [GOOGLE_GSI] : ["'none'"],
    'object-src': ["'none'"],
    'base-uri': ["'none'"],
    'frame-ancestors': ["'none'"],
    'form-action': ["'self'"],
  };
}

/** The policy as one header value (helmet writes the same directives, separated by `;` alone). */
export function contentSecurityPolicy(connectOrigins: string[], sdks: VendorSdks): string {
  return Object.entries(contentSecurityPolicyDirectives(connectOrigins, sdks))
    .map(([name, sources]) => [name, ...sources].join(' '))
    .join('; ');
}

export interface SecurityHeadersOptions {
  config: ServerConfig;
  /** The policy; routes that need more (the development provider's pages) declare their own (securityHeaderValues). */
  directives: CspDirectives;
}

/** Header names and values, set as they are on an answer. */
export type HeaderValues = ReadonlyArray<readonly [string, string]>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** This route's own security headers, instead of the app's (securityHeaderValues with its own policy). */
    securityHeaders?: HeaderValues;
  }
}

/** Helmet's options: each header kept, set or turned off for the reason written beside it. */
function helmetOptions(config: ServerConfig, directives: CspDirectives): FastifyHelmetOptions {
  const sdks = vendorSdks(config);
  return {
    // Exactly these directives: helmet's defaults would add a style-src with https: and 'unsafe-inline', and
    // upgrade-insecure-requests, which breaks every asset of a page served over plain http (local, QA).
    contentSecurityPolicy: { useDefaults: false, directives },
    // Off: require-corp would block Google's sign-in iframe and every cross-origin image without a CORP header
    // (img-src allows https:, e.g. profile pictures).
    crossOriginEmbedderPolicy: false,
    // MSAL's sign-in popup reports back to its opener, which `same-origin` would cut off.
    crossOriginOpenerPolicy: { policy: sdks.microsoft ? 'same-origin-allow-popups' : 'same-origin' },
    // same-origin: nothing of ours is embedded by another site. The SPA on another origin (Vite's dev server, an
    // API deployed apart) reads the API through CORS, which this header does not restrict.
    crossOriginResourcePolicy: { policy: 'same-origin' },
    // Kept (?1): the origin gets its own agent cluster; nothing here sets document.domain.
    originAgentCluster: true,
    referrerPolicy: { policy: 'no-referrer' },
    // Production only: QA and local hosts may be served over plain http or a throwaway certificate, and two years
    // of HSTS on their names would lock browsers out.
    strictTransportSecurity:
      config.APP_ENV === 'prod' ? { maxAge: 63_072_000, includeSubDomains: true } : false,
    xContentTypeOptions: true,
    // Kept (off): no DNS look-ups for links the person has not followed; the SDKs' hosts are fetched on demand.
    xDnsPrefetchControl: { allow: false },
    // Kept: harmless, and the only protection old Internet Explorer had against opening downloads in our origin.
    xDownloadOptions: true,
    // DENY, as frame-ancestors 'none' says for browsers that read the CSP (helmet's default is SAMEORIGIN).
    xFrameOptions: { action: 'deny' },
    xPermittedCrossDomainPolicies: { permittedPolicies: 'none' },
    // Removes X-Powered-By (Fastify sends none).
    xPoweredBy: true,
    // Kept (0): turns off the legacy XSS auditor, which itself could be abused to leak data; the CSP does the job.
    xXssProtection: true,
  };
}

/**
 * The headers helmet sets for this policy, found once. @fastify/helmet builds helmet's middleware again on every
 * request (the policy parsed, every value formatted: about 6% of the server's time on `GET users/me`); the values
 * never change, so @fastify/helmet is asked once, on a throw-away instance, and its answer's headers (those an answer
 * without it lacks) are kept. The same values as before, whatever helmet's version writes.
 */
export async function securityHeaderValues(
  config: ServerConfig,
  directives: CspDirectives,
): Promise<HeaderValues> {
  const headersOf = async (withHelmet: boolean) => {
    const probe = Fastify();
    if (withHelmet) await probe.register(helmet, helmetOptions(config, directives));
    probe.get('/', async () => '');
    const answer = await probe.inject({ method: 'GET', url: '/' });
    await probe.close();
    return answer.headers;
  };
  const [plain, secured] = await Promise.all([headersOf(false), headersOf(true)]);
  return Object.entries(secured).flatMap(([name, value]) =>
    plain[name] === undefined && typeof value === 'string' ? [[name, value] as const] : [],
  );
}

export const securityHeaders = fp(
  async (app: FastifyInstance, { config, directives }: SecurityHeadersOptions) => {
    const headers = await securityHeaderValues(config, directives);
    // Set on the raw answer in the first hook, so every answer has them: errors, 404s, static files, and the
    // development provider's answers, which it writes itself.
    app.addHook('onRequest', (request, reply, done) => {
      for (const [name, value] of request.routeOptions.config.securityHeaders ?? headers) {
        reply.raw.setHeader(name, value);
      }
      done();
    });
  },
  { name: 'security-headers' },
);
