// Mounts the development OpenID provider under /oidc: oidc-provider (a Koa app) gets the raw request and response of
// every /oidc/* route, except the sign-in page, which Fastify serves itself. Registered only when config.DEV_OIDC.
import type { IncomingMessage } from 'node:http';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import * as z from 'zod/mini';
import { DEV_OIDC_CLIENT_IDS, DEV_OIDC_PATH } from '@contract/dev-oidc';
import type { ServerConfig } from '@server/config';
import { securityHeaderValues, type CspDirectives } from '@server/security-headers';
import { createDirectory, DEMO_ACCOUNTS, normalizeEmail, subjectFor } from './accounts';
import { loadDevOidcSecrets } from './keys';
import { errorPage, interactionPage, PAGE_STYLE_SOURCE, type NewPersonForm } from './pages';
import { createDevProvider, redirectUris } from './provider';

export interface DevOidcOptions {
  config: ServerConfig;
  /** Where the provider keeps its keys; in memory when absent. */
  dataDir?: string;
  /** The app's content security policy, which the sign-in pages widen narrowly. */
  csp: CspDirectives;
}

const hide = { hide: true };
const uidParams = z.object({ uid: z.string().check(z.minLength(1), z.maxLength(100)) });
const text = (max: number) =>
  z._default(
    z.pipe(
      z.string().check(z.maxLength(max)),
      z.transform((v) => v.trim()),
    ),
    '',
  );
const loginForm = z.object({
  account: z.optional(z.string()),
  given_name: text(100),
  family_name: text(100),
  email: text(254),
});
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function vendorName(clientId: unknown): string {
  return clientId === DEV_OIDC_CLIENT_IDS.microsoft ? 'Microsoft' : 'Google';
}

function sendHtml(reply: FastifyReply, status: number, html: string) {
  return reply.status(status).type('text/html; charset=utf-8').send(html);
}

/** Route options: the app's security headers, with this content security policy instead of the app's. */
const withPolicy = async (config: ServerConfig, directives: CspDirectives) => ({
  config: { securityHeaders: await securityHeaderValues(config, directives) },
});

export const devOidc: FastifyPluginAsync<DevOidcOptions> = async (app, { config, dataDir, csp }) => {
  const directory = createDirectory();
  const provider = createDevProvider({
    issuer: config.DEV_OIDC_ISSUER,
    secrets: loadDevOidcSecrets(dataDir),
    directory,
  });
  provider.on('server_error', (_ctx: unknown, error: unknown) =>
    app.log.error({ err: error }, 'development OpenID provider failed'),
  );
  const handle = provider.callback();
  // The sign-in page's form ends in a redirect to the SPA, which may live on another origin (the Vite dev server).
  const formOrigins = [...new Set(redirectUris(config.DEV_OIDC_ISSUER).map((uri) => new URL(uri).origin))];
  // The provider's own answers (JSON, redirects, and its error page from ./pages.ts).
  const providerPolicy = await withPolicy(config, {
    'default-src': ["'none'"],
    'style-src': [PAGE_STYLE_SOURCE],
    'form-action': ["'self'", ...formOrigins],
    'frame-ancestors': ["'none'"],
    'base-uri': ["'none'"],
  });
  // The sign-in page: the app's policy, its form allowed to end on the SPA's origins and its inline stylesheet (by hash).
  const pagePolicy = await withPolicy(config, {
    ...csp,
    'style-src': [...(csp['style-src'] ?? []), PAGE_STYLE_SOURCE],
    'form-action': ["'self'", ...formOrigins],
  });

  await app.register(async (scope) => {
    // The provider reads its own request bodies; Fastify must leave the stream untouched.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    scope.all(`${DEV_OIDC_PATH}/*`, { schema: hide, ...providerPolicy }, async (request, reply) => {
      const raw: IncomingMessage & { originalUrl?: string } = request.raw;
      raw.originalUrl = raw.url;
      raw.url = (raw.url ?? '').slice(DEV_OIDC_PATH.length) || '/';
      // The security headers are on the raw response already (set in onRequest), so they survive the hijack.
      reply.hijack();
      await handle(raw, reply.raw);
    });
  });

  await app.register(async (scope) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 16 * 1024 },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
    );
    scope.addHook('onSend', async (_request, reply) => {
      reply.header('cache-control', 'no-store');
    });

    /** The sign-in in progress, or null (and an error page sent) when it has expired or belongs to another browser. */
    async function interaction(request: FastifyRequest, reply: FastifyReply) {
      const params = z.safeParse(uidParams, request.params);
      const details = await provider.interactionDetails(request.raw, reply.raw).catch(() => null);
      if (!params.success || !details || details.uid !== params.data.uid) {
        await sendHtml(
          reply,
          400,
          errorPage('invalid_request', 'This sign-in has expired or was finished already.'),
        );
        return null;
      }
      return details;
    }

    scope.get(
      `${DEV_OIDC_PATH}/interaction/:uid`,
      { schema: hide, ...pagePolicy },
      async (request, reply) => {
        const details = await interaction(request, reply);
        if (!details) return reply;
        return sendHtml(
          reply,
          200,
          interactionPage({ uid: details.uid, vendorName: vendorName(details.params.client_id) }),
        );
      },
    );

    scope.post(
      `${DEV_OIDC_PATH}/interaction/:uid/login`,
      { schema: hide, ...pagePolicy },
      async (request, reply) => {
        const details = await interaction(request, reply);
        if (!details) return reply;
        const parsed = z.safeParse(loginForm, request.body ?? {});
        const form: NewPersonForm = parsed.success
          ? parsed.data
          : { given_name: '', family_name: '', email: '' };
        const demo = parsed.success
          ? DEMO_ACCOUNTS.find((account) => account.email === parsed.data.account)
          : undefined;
        let subject: string;
        if (demo) {
          subject = subjectFor(demo.email);
        } else if (parsed.success && EMAIL.test(form.email)) {
          subject = directory.add({
            email: normalizeEmail(form.email),
            firstName: form.given_name || null,
            lastName: form.family_name || null,
          });
        } else {
          const page = interactionPage({
            uid: details.uid,
            vendorName: vendorName(details.params.client_id),
            form,
            error: 'Enter an e-mail address such as name@example.com.',
          });
          return sendHtml(reply, 400, page);
        }
        const returnTo = await provider.interactionResult(
          request.raw,
          reply.raw,
          { login: { accountId: subject } },
          { mergeWithLastSubmission: false },
        );
        return reply.redirect(returnTo, 303);
      },
    );

    scope.post(
      `${DEV_OIDC_PATH}/interaction/:uid/abort`,
      { schema: hide, ...pagePolicy },
      async (request, reply) => {
        const details = await interaction(request, reply);
        if (!details) return reply;
        const returnTo = await provider.interactionResult(
          request.raw,
          reply.raw,
          { error: 'access_denied', error_description: 'The sign-in was cancelled.' },
          { mergeWithLastSubmission: false },
        );
        return reply.redirect(returnTo, 303);
      },
    );
  });
};
