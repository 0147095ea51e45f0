// Builds the Fastify app: validation from zod schemas, the OpenAPI document, security headers, the APIs, and the SPA.
import { existsSync, readdirSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { join } from 'node:path';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { constants as zlibConstants } from 'node:zlib';
import fastifyCompress from '@fastify/compress';
import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import {
  hasZodFastifySchemaValidationErrors,
  jsonSchemaTransform,
  serializerCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { Db, ReadReplica } from './db/database';
import type { DatabaseStatus } from './db/supervisor';
import { databaseUnavailable } from './db/unavailable';
import type { ServerConfig } from './config';
import type { AccessTokens } from './auth/access-token';
import { authenticate } from './auth/authenticate';
import { createSignInStates } from './auth/sign-in-state';
import { routeAccess } from './workspaces/route-access';
import { contentSecurityPolicyDirectives, securityHeaders, vendorSdks } from './security-headers';
import { registerApiRoutes } from './routes';
import { ApiError, frameworkClientError, logFailure, unreadableRequestError } from './errors';
import { httpLimitsOf, limitedServer } from './http-server';
import { validatorCompiler } from './validation';
import { serverKeys, type ServerKeys } from './keys';
import { createAnalytics, type Analytics } from './social/analytics';
import { API_COMPRESSION } from './social/insights/answer-bytes';
import { loadCatalogue, type Catalogue } from './billing/plans';
import type { PaymentProvider } from './billing/provider';
import type { BillingContext } from './billing/service';
import { builtinProvider } from './billing/builtin-adapter';
import { stripeProvider } from './billing/stripe';
import { createBuiltinPayments, type BuiltinPayments } from './payments/service';
import type { AnalyticsService } from './analytics/service';
import { figuresReadiness } from './analytics/figures-wait';
import type { Mailer } from './mail/mailer';
import type { DevMailbox } from './mail/dev-mailbox';
import type { ReportPrinterOptions } from './sharing/report';

export interface AppDeps {
  db: Db;
  /**
   * The analytics pool's (server/db/database.ts) for the heavy requests; without it they share `db`'s pool (API-only
   * tests).
   */
  analyticsDb?: Db;
  /**
   * The read replicas' pools (DATABASE_READ_URL, server/db/database.ts connectReplicas): the corpus reads of the heavy
   * requests go there (server/social/reads.ts); none, or absent, keeps them on analyticsDb.
   */
  readReplicas?: ReadReplica[];
  config: ServerConfig;
  accessTokens: AccessTokens;
  /** The SPA's build; omitted in API-only tests. */
  spaDir?: string;
  /** Origins allowed to call the API from another origin (Vite's dev server in `npm run dev`); none otherwise. */
  corsOrigins?: string[];
  /** Origins the SPA calls (its build-time API bases), allowed by the CSP's connect-src. */
  connectOrigins?: string[];
  /**
   * The server's secret, from which the keys of refresh-token successors and paging cursors are derived
   * (server/keys.ts); npm start derives it from the signing key, so both survive a restart. Absent: random.
   */
  secret?: Uint8Array;
  /** Request and error logging; without it the server logs nothing (API-only tests). */
  logger?: { level: 'info' | 'warn'; stream?: NodeJS.WritableStream };
  /** DATA_DIR, where the development OpenID provider keeps its keys; in memory when absent. */
  dataDir?: string;
  /**
   * The key that encrypts the source credentials (SECRETS_KEY, or the one APP_ENV local keeps in DATA_DIR:
   * server/scraping/credentials.ts); absent, credentials cannot be stored (409 secrets_key_missing).
   */
  secretsKey?: Buffer;
  /**
   * The analytics store (server/analytics/service.ts), once started and unless ANALYTICS_STORE=off: `store` while it
   * may answer, `state()` with the corpus version it reflects. The overview reads it when it is caught up.
   */
  analytics?: AnalyticsService;
  /** The collection queue's dispatcher (server/scraping/collector.ts), once started: API calls nudge it. */
  collector?: { nudge(): void };
  /**
   * The embedded PostgreSQL's state while supervised (server/db/supervisor.ts), for GET /api/health; absent, the health
   * check asks the database only.
   */
  databaseStatus?: () => DatabaseStatus;
  /** The plan catalogue; loaded from BILLING_PLANS_FILE (or the bundled plans.json) when absent. */
  catalogue?: Catalogue;
  /** The payment provider; from the configuration when absent (tests pass Stripe with recorded answers). */
  paymentProvider?: PaymentProvider;
  /** Outgoing e-mail (server/mail/start.ts): absent without SMTP_URL and without the development mailbox. */
  mailer?: Mailer;
  /** The development mailbox while it runs (DEV_MAILBOX): its pages are served under /dev/mailbox. */
  devMailbox?: DevMailbox;
  /** The PDF reports' printer (server/sharing/report.ts): its budget per report and queue; its defaults when absent. */
  reports?: ReportPrinterOptions;
}

declare module 'fastify' {
  interface FastifyInstance {
    deps: AppDeps;
    keys: ServerKeys;
    /** Where the heavy requests run: their pool, their admission control, the dashboards' answer cache. */
    analytics: Analytics;
    /** Plans, the payment provider and the database, for the billing routes, the limits and the billing job. */
    billing: BillingContext;
    /** The built-in payment provider when it is the one in use, else null. */
    builtinPayments: BuiltinPayments | null;
  }
}

/** The configured payment provider (and the built-in one's service when that is it). */
function paymentsFor(deps: AppDeps, keys: ServerKeys) {
  const { config } = deps;
  if (deps.paymentProvider) return { provider: deps.paymentProvider, builtin: null };
  if (config.PAYMENT_PROVIDER === 'stripe') {
    return {
      provider: stripeProvider({
        secretKey: config.STRIPE_SECRET_KEY!,
        webhookSecret: config.STRIPE_WEBHOOK_SECRET!,
      }),
      builtin: null,
    };
  }
  if (config.PAYMENT_PROVIDER === 'builtin') {
    const builtin = createBuiltinPayments({
      db: deps.db,
      key: keys.paymentWebhooks,
      baseUrl: config.PAYMENT_SERVER_URL,
    });
    return { provider: builtinProvider(builtin, keys.paymentWebhooks), builtin };
  }
  return { provider: null, builtin: null };
}

/** The dashboards the SPA's build wrote a shell page for (shell-<dashboard>.html). */
function shellDashboards(spaDir: string): Set<string> {
  if (!existsSync(spaDir)) return new Set();
  const names = readdirSync(spaDir).map((file) => /^shell-([a-z-]+)\.html$/.exec(file)?.[1]);
  return new Set(names.filter((name): name is string => name !== undefined));
}

/** An error of ours as the API answers it: its status, Retry-After when it has one, `{error, message}`. */
function sendApiError(reply: FastifyReply, error: ApiError) {
  if (error.options.retryAfterSeconds !== undefined)
    reply.header('retry-after', String(error.options.retryAfterSeconds));
  return reply
    .status(error.statusCode)
    .send({ ...error.options.body, error: error.code, message: error.message });
}

/** Where each API lives, as the SPA's build-time config names them. */
const API_PREFIX = '/api';
const SOCIAL_PREFIX = '/social/';

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: deps.logger
      ? {
          level: deps.logger.level,
          ...(deps.logger.stream && { stream: deps.logger.stream }),
          // Tokens never reach the logs: no headers, no query strings.
          serializers: {
            req: (req) => ({ method: req.method, url: req.url.split('?')[0] }),
          },
        }
      : false,
    trustProxy: false,
    bodyLimit: 256 * 1024,
    // A bad percent-encoding in the path, or a path parameter over maxParamLength (100), never reach a route's error
    // handler: answered here in the API's shape rather than with Fastify's code.
    frameworkErrors: (error, _request, reply) => {
      // The only other one is an async route constraint failing (a 500); Murmur declares none.
      const mapped =
        frameworkClientError(error) ?? new ApiError(500, 'internal', 'Something went wrong on our side.');
      void sendApiError(reply, mapped);
    },
    // A request the HTTP parser cannot read: the API's shape, as Fastify's own handler would send it otherwise.
    clientErrorHandler: (error, socket) => {
      if ((error as NodeJS.ErrnoException).code === 'ECONNRESET' || socket.destroyed) return;
      const refusal = unreadableRequestError(error as { code?: unknown });
      const body = JSON.stringify({ error: refusal.code, message: refusal.message });
      if (socket.writable) {
        socket.write(
          `HTTP/1.1 ${refusal.statusCode} ${STATUS_CODES[refusal.statusCode]}\r\nContent-Type: application/json; ` +
            `charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
      }
      socket.destroy(error);
    },
    // The app's logger once it exists: only connections, which come after it, are refused.
    serverFactory: limitedServer(httpLimitsOf(deps.config), (message) => app.log.warn(message)),
  }).withTypeProvider<ZodTypeProvider>();
  app.decorate('deps', deps);
  app.decorate('keys', serverKeys(deps.secret));
  app.decorate(
    'analytics',
    createAnalytics(deps, (message) => app.log.warn(message)),
  );
  const payments = paymentsFor(deps, app.keys);
  app.decorate('billing', {
    db: deps.db,
    config: deps.config,
    catalogue: deps.catalogue ?? loadCatalogue(deps.config.BILLING_PLANS_FILE),
    provider: payments.provider,
  });
  app.decorate('builtinPayments', payments.builtin);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const csp = contentSecurityPolicyDirectives(deps.connectOrigins ?? [], vendorSdks(deps.config));
  await app.register(securityHeaders, { config: deps.config, directives: csp });
  // The APIs' answers are personal: never cached. Static files and the SPA's index set their own cache-control.
  // Set when the request arrives (a synchronous hook, not a promise per answer in onSend); errors keep it.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.url.startsWith(API_PREFIX) || request.url.startsWith(SOCIAL_PREFIX)) {
      reply.header('cache-control', 'no-store');
    }
    done();
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (hasZodFastifySchemaValidationErrors(error)) {
      return reply.status(400).send({
        error: 'invalid_request',
        message: 'The request is not valid.',
        fields: error.validation.map((issue) => ({
          path: issue.instancePath.replace(/^\//, '').replace(/\//g, '.') || error.validationContext || '',
          message: issue.message,
        })),
      });
    }
    // Our own errors carry their status, 5xx included (e.g. 503 when a sign-in vendor is unreachable).
    if (error instanceof ApiError) return sendApiError(reply, error);
    // The database went away (it is being restarted, or an external one is down): a client may try again soon.
    if (databaseUnavailable(error)) {
      reply.header('retry-after', '5');
      // What keeps the embedded PostgreSQL from starting again, when waiting cures it (a full disk).
      const reason = deps.databaseStatus?.().reason;
      return reply.status(503).send({
        error: 'database_unavailable',
        message: `The database is not answering${reason ? ` (${reason})` : ''}. Try again in a moment.`,
      });
    }
    // Fastify's own (a body that is not JSON, too large, of a type no parser takes): the API's codes, not Fastify's.
    const framework = frameworkClientError(error);
    if (framework) return sendApiError(reply, framework);
    if (error.statusCode && error.statusCode < 500) {
      return reply
        .status(error.statusCode)
        .send({ error: error.code ?? 'bad_request', message: error.message });
    }
    // The log gets an id to find the request by and what failed, never user input (see server/errors.ts).
    const errorId = logFailure(request, error);
    return reply
      .status(500)
      .send({ error: 'internal', message: `Something went wrong on our side (error ${errorId}).` });
  });

  // API answers above 1 KB go compressed when the client accepts it (dashboards answer tens of KB of JSON, the CSV
  // exports megabytes). Brotli at quality 4 and gzip at 6: on the fly, the top levels cost more CPU than they save.
  // The SPA's files are compressed at build time instead (preCompressed below), so they are left alone here; the
  // dashboards' answers are compressed once, with the same settings, and sent as they are (insights/answer-bytes.ts).
  await app.register(fastifyCompress, {
    threshold: API_COMPRESSION.threshold,
    encodings: [...API_COMPRESSION.encodings],
    brotliOptions: { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: API_COMPRESSION.brotliQuality } },
    zlibOptions: { level: API_COMPRESSION.gzipLevel },
  });

  await app.register(fastifySwagger, {
    openapi: {
      info: { title: 'Murmur internal API', version: '1.0.0' },
      servers: [{ url: '/' }],
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      },
    },
    transform: jsonSchemaTransform,
  });
  // The document and its page describe every endpoint: off in prod unless API_DOCS turns them on.
  if (deps.config.API_DOCS) await app.register(fastifySwaggerUi, { routePrefix: '/api/docs' });
  if (deps.corsOrigins?.length) {
    const { default: cors } = await import('@fastify/cors');
    await app.register(cors, {
      origin: deps.corsOrigins,
      methods: ['GET', 'POST', 'PATCH', 'DELETE'],
      // The SPA waits out a 429's Retry-After before asking again; the downloads' file name comes from the answer; a
      // dashboard read on a lagging replica says how old its data is (server/social/reads.ts, docs/replicas.md).
      exposedHeaders: ['Retry-After', 'Content-Disposition', 'Murmur-Read-From', 'Murmur-Data-As-Of'],
    });
  }
  const signIns = createSignInStates(deps.db, {
    maxAgeMs: deps.config.SIGN_IN_STATE_MAX_AGE_SECONDS * 1000,
    warn: (message) => app.log.warn(message),
  });
  app.addHook('onClose', () => signIns.close());
  await app.register(authenticate, { accessTokens: deps.accessTokens, signIns });
  // Before the routes: it hooks every route that declares `config.workspace` as the route is added.
  await app.register(routeAccess, { db: deps.db, config: deps.config });
  // Also before the routes: a figure route is answered 503 while the store cannot answer (server/analytics).
  await app.register(figuresReadiness, { service: () => deps.analytics });
  await registerApiRoutes(app);
  // Its pages declare the app's CSP, narrowly widened, as their own security headers. Loaded only when it is on:
  // oidc-provider and its Koa stack are never imported in production.
  if (deps.config.DEV_OIDC) {
    const { devOidc } = await import('./dev-oidc/plugin');
    await app.register(devOidc, { config: deps.config, dataDir: deps.dataDir, csp });
  }

  // Like the development provider: mounted only while the mailbox runs, its code never loaded otherwise.
  if (deps.config.DEV_MAILBOX && deps.devMailbox) {
    const { devMailboxPlugin } = await import('./mail/dev-mailbox-plugin');
    await app.register(devMailboxPlugin, { config: deps.config, mailbox: deps.devMailbox });
  }

  if (payments.builtin) {
    const { builtinPaymentsPlugin } = await import('./payments/plugin');
    await app.register(builtinPaymentsPlugin, { config: deps.config, payments: payments.builtin });
  }

  // Unknown API paths answer JSON, never the SPA's index.html.
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    if (path.startsWith(`${API_PREFIX}/`) || path.startsWith('/social/') || path.startsWith('/payments/')) {
      return reply
        .status(404)
        .send({ error: 'not_found', message: `No such endpoint: ${request.method} ${path}` });
    }
    if (deps.spaDir && (request.method === 'GET' || request.method === 'HEAD')) {
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-cache')
        .sendFile('index.html');
    }
    return reply.status(404).send({ error: 'not_found', message: 'Not Found' });
  });

  // The sign-in screen's address gets the build's login.html (scripts/vite-prerender-login.ts): index.html with that
  // screen already drawn, so it paints before the app's code arrives. A build without it (bad configuration) falls
  // back to index.html through the static files below.
  if (deps.spaDir && existsSync(join(deps.spaDir, 'login.html'))) {
    app.get('/login', { schema: { hide: true } }, (_request, reply) =>
      reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').sendFile('login.html'),
    );
  }

  // A dashboard's address gets that dashboard's shell (shell-<dashboard>.html, scripts/vite-prerender-login.ts): the
  // workspace frame and the dashboard's heading and skeleton, drawn at build time and the same for everyone, so they
  // paint before the app's code arrives. /insight opens the overview. Any other page under /insight gets index.html,
  // as every other address does.
  const shells = deps.spaDir ? shellDashboards(deps.spaDir) : new Set<string>();
  if (shells.size) {
    const sendShell = (request: FastifyRequest<{ Params: { dashboard?: string } }>, reply: FastifyReply) => {
      const dashboard = request.params.dashboard ?? 'overview';
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-cache')
        .sendFile(shells.has(dashboard) ? `shell-${dashboard}.html` : 'index.html');
    };
    app.get('/workspace/:workspaceId/insight', { schema: { hide: true } }, sendShell);
    app.get('/workspace/:workspaceId/insight/:dashboard', { schema: { hide: true } }, sendShell);
  }

  if (deps.spaDir && existsSync(join(deps.spaDir, 'index.html'))) {
    await app.register(fastifyStatic, {
      root: deps.spaDir,
      wildcard: false,
      index: ['index.html'],
      // The build wrote .br and .gz beside each text file (scripts/vite-precompress.ts): sent as they are, with
      // Content-Encoding and Vary: Accept-Encoding.
      preCompressed: true,
      setHeaders: (res, path) => {
        res.header(
          'cache-control',
          path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    });
  }

  return app;
}
