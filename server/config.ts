// Server configuration from the environment, validated once; a bad value names its key and the server does not start.
import { availableParallelism } from 'node:os';
import * as z from 'zod/mini';
import { DEV_OIDC_CLIENT_IDS, DEV_OIDC_PATH } from '@contract/dev-oidc';
import {
  int,
  optionalBool,
  optionalText,
  isDevIssuer,
  list,
  isSmtpUrl,
  isAnalyticsUrl,
  isSender,
  readUrls,
  secretsKeyBytes,
} from './config-fields';
import { scrapingSettings } from './config-scraping';

const serverConfigSchema = z.object({
  APP_ENV: z._default(z.enum(['local', 'dev', 'qa', 'prod']), 'local'),
  HOST: z._default(z.string(), '127.0.0.1'),
  PORT: int(8787, 1, 65535),
  /** Any PostgreSQL; when absent the embedded PostgreSQL keeps its data in DATA_DIR. */
  DATABASE_URL: z.optional(z.url()),
  /**
   * Streaming replicas of the primary, comma-separated PostgreSQL URLs (docs/replicas.md): the dashboards', discover's
   * and the exports' reads of the corpus go there (least busy first); everything else, and every write, stays on the
   * primary. A replica that is down or refuses is left alone for a few seconds and its reads go to the primary.
   */
  DATABASE_READ_URL: readUrls,
  /**
   * How old, at most, the corpus a replica answers from may be while the primary has newer changes (the time since
   * the replica's last replayed transaction); a replica further behind gives its reads to the primary.
   */
  DATABASE_READ_MAX_LAG_SECONDS: int(30, 0, 86_400),
  /**
   * The HTTP server's time-outs (server/http-server.ts): a request's head must arrive within HEADERS (a browser sends
   * it at once), the whole request, an upload's body included, within REQUEST; an idle kept-alive connection is closed
   * after KEEP_ALIVE (behind a proxy, keep it above the proxy's own idle time-out).
   */
  HTTP_HEADERS_TIMEOUT_SECONDS: int(10, 1, 300),
  HTTP_REQUEST_TIMEOUT_SECONDS: int(300, 1, 3600),
  HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: int(30, 1, 600),
  /**
   * Connections one address (an IPv6 client's /64) may hold open at once; one more is answered 429 and closed. An
   * office behind one NAT address shares it; behind a proxy every client has the proxy's address (raise it, or 0 for
   * no cap, and let the proxy limit them).
   */
  HTTP_MAX_SOCKETS_PER_ADDRESS: int(256, 0, 1_000_000),
  DATA_DIR: z._default(z.string(), '.data'),
  EMBEDDED_PG_PORT: int(54329, 1024, 65535),
  /**
   * When the embedded PostgreSQL dies under the server: how many times it is started again before the server exits
   * non-zero (0: exit at once), and the pause before the first try, doubled each next one (server/db/supervisor.ts).
   */
  EMBEDDED_PG_RESTARTS: int(5, 0, 100),
  EMBEDDED_PG_RESTART_DELAY_MS: int(1000, 10, 60_000),
  /**
   * Threads each query of the analytics store (embedded ClickHouse in DATA_DIR/analytics, server/analytics) may use:
   * every core by default, the store's process running below the web server's priority (server/analytics/store.ts).
   */
  ANALYTICS_MAX_THREADS: int(availableParallelism(), 1, 256),
  /**
   * How long a figure read that finds the analytics store behind PostgreSQL waits for it to apply the newest writes
   * (a correction just made) before it answers as the store is (the answer then says data_as_of, and is not cached).
   */
  ANALYTICS_READ_WAIT_MS: int(1_000, 0, 60_000),
  /**
   * The analytics store in the server (server/analytics/service.ts): `on` opens DATA_DIR/analytics, rebuilds it from
   * PostgreSQL when needed and applies the corpus's changes; `off` leaves it closed and unregisters it from the
   * outbox (the corpus's writers then record nothing for it).
   */
  ANALYTICS_STORE: z._default(z.enum(['on', 'off']), 'on'),
  /**
   * A ClickHouse server's HTTP interface that holds the analytics store instead of DATA_DIR/analytics (the same
   * tables and statements, through @clickhouse/client: server/analytics/remote.ts): http(s)://user:password@host:port.
   * Unset: the embedded store.
   */
  ANALYTICS_URL: z.optional(
    z.string().check(
      z.refine(isAnalyticsUrl, {
        error: 'Must be an http:// or https:// URL of a ClickHouse server (http://user:password@host:8123)',
      }),
    ),
  ),
  /** Base64url HMAC key (≥ 32 bytes) for access tokens; the embedded default generates one in DATA_DIR. */
  JWT_SIGNING_KEY: z.optional(z.string().check(z.minLength(43))),
  ACCESS_TOKEN_TTL_SECONDS: int(600, 30, 900),
  /**
   * How long a server process trusts that a sign-in is live before reading it again (server/auth/sign-in-state.ts).
   * Sign-out ends its access tokens at once in every process through a database signal; this bounds how long one
   * stays usable in a process that missed the signal (its listening connection was down). 0 reads on every request.
   */
  SIGN_IN_STATE_MAX_AGE_SECONDS: int(5, 0, 60),
  REFRESH_TOKEN_LIFETIME_DAYS: int(30, 1, 365),
  /**
   * Seconds after a refresh during which the rotated token, presented again, gets the same successor instead of
   * revoking the sign-in: a retry whose answer was lost, or two requests at once. 0 turns it off.
   */
  REFRESH_REUSE_GRACE_SECONDS: int(30, 0, 300),
  TRIAL_DAYS: int(14, 0, 365),
  /** The plans, their prices and limits (server/billing/plans.json by default); validated at start. */
  BILLING_PLANS_FILE: optionalText,
  /**
   * The Chromium that prints dashboards as PDF reports (server/sharing/report.ts); default /usr/bin/chromium (Debian's
   * `chromium` package). Without it, a report is 503 report_unavailable.
   */
  REPORT_CHROMIUM_PATH: z._default(z.string().check(z.minLength(1)), '/usr/bin/chromium'),
  /** The SPA's public origin, where the card checkout returns to; default http://localhost:PORT. */
  APP_URL: z.pipe(optionalText, z.optional(z.url())),
  /** Where the built-in payment provider is served; default APP_URL + /payments/. */
  PAYMENT_SERVER_URL: z.pipe(optionalText, z.optional(z.url())),
  /**
   * The built-in payment provider (test cards, no real money) under /payments/. Unset: on for local, dev and qa
   * unless Stripe is configured; `true` or `false` decides. Never with APP_ENV=prod.
   */
  BUILTIN_PAYMENTS: optionalBool,
  /** Stripe: both set switch the checkout to Stripe (Checkout Sessions, webhooks verified with the signing secret). */
  STRIPE_SECRET_KEY: optionalText,
  STRIPE_WEBHOOK_SECRET: optionalText,
  /** Days a failed renewal stays past due (retried daily) before the plan expires. */
  PAST_DUE_GRACE_DAYS: int(7, 0, 60),
  /**
   * How often the billing job looks for trials ending, renewals due and past-due plans running out: every N minutes
   * past the hour (a pg-boss schedule, whose finest step is a minute), so N divides 60.
   */
  BILLING_JOB_EVERY_MINUTES: z._default(
    z.pipe(
      z.pipe(z.string().check(z.regex(/^\d+$/)), z.transform(Number)),
      z.number().check(
        z.refine((n) => Number.isInteger(n) && n >= 1 && n <= 60 && 60 % n === 0, {
          error: 'Must divide 60: 1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30 or 60',
        }),
      ),
    ),
    1,
  ),
  INTERNAL_WORKSPACE_ID: z._default(z.string().check(z.minLength(1)), 'internal'),
  /** Comma-separated e-mail addresses of staff accounts (the internal workspace is theirs). */
  STAFF_EMAILS: z._default(z.string(), ''),
  /**
   * Sign-in vendors. Each is verified against its JWKS; pointing the URLs, issuers and client id at another OpenID
   * provider (the development one) makes it stand in for that vendor. A vendor without a client id is switched off.
   */
  GOOGLE_CLIENT_ID: optionalText,
  GOOGLE_JWKS_URL: z._default(z.url(), 'https://www.googleapis.com/oauth2/v3/certs'),
  /** Google documents both spellings of its issuer. */
  GOOGLE_ISSUERS: list('accounts.google.com,https://accounts.google.com'),
  MICROSOFT_CLIENT_ID: optionalText,
  MICROSOFT_JWKS_URL: z._default(z.url(), 'https://login.microsoftonline.com/common/discovery/v2.0/keys'),
  /** `{tid}` stands for the token's own tenant claim; a template without it is one fixed issuer. */
  MICROSOFT_ISSUER_TEMPLATE: z._default(
    z.string().check(z.minLength(1)),
    'https://login.microsoftonline.com/{tid}/v2.0',
  ),
  /** How long a sign-in nonce stays usable: the time a person may take in the vendor's sign-in window. */
  LOGIN_NONCE_TTL_SECONDS: int(600, 60, 3600),
  /** Per client IP and minute, for each of auth/nonce and auth/login. */
  LOGIN_RATE_LIMIT_PER_MINUTE: int(10, 1, 100_000),
  /** Per client IP and minute, for auth/refresh and auth/logout; higher, as a shared IP carries many sessions. */
  REFRESH_RATE_LIMIT_PER_MINUTE: int(60, 1, 100_000),
  /**
   * Per account and minute, for discover searches and, separately, for the insights dashboards (all seven share one
   * budget): each costs the database up to a few hundred milliseconds.
   */
  SOCIAL_RATE_LIMIT_PER_MINUTE: int(120, 1, 100_000),
  /**
   * Heavy requests (dashboards, discover, exports, query counts) computing at once, from every account together
   * (server/social/admission.ts): about the database's cores. More wait in a queue of ANALYTICS_QUEUE, at most
   * ANALYTICS_QUEUE_WAIT_MS each; beyond either, 503 `busy` with Retry-After.
   */
  ANALYTICS_SLOTS: int(2, 1, 64),
  ANALYTICS_QUEUE: int(64, 0, 10_000),
  ANALYTICS_QUEUE_WAIT_MS: int(20_000, 100, 600_000),
  /** The dashboards' answer cache, in MB of JSON (server/social/insights/answer-cache.ts); 0 turns it off. */
  ANSWER_CACHE_MB: int(64, 0, 4096),
  /**
   * Months of posts kept (server/social/corpus/partitions.ts): the monthly partitions wholly older than this many days
   * are dropped hourly, with their rollups. 0 keeps every month; a value shorter than a plan's history is refused.
   */
  CORPUS_RETENTION_DAYS: int(0, 0, 36_500),
  /** Posts of the synthetic demo corpus seeded when the posts table is empty at start; 0 turns it off. */
  CORPUS_DEMO_POSTS: int(30_000, 0, 10_000_000),
  /** Collection: its workers, the sources' endpoints and the streams (server/config-scraping.ts). */
  ...scrapingSettings,
  /**
   * The key that encrypts the source credentials staff store (server/scraping/credentials.ts): 32 random bytes in
   * base64 or base64url (`openssl rand -base64 32`). Unset: APP_ENV local generates one in DATA_DIR; elsewhere
   * credentials cannot be stored, and the server refuses to start when some are stored already.
   */
  SECRETS_KEY: z.optional(
    z.string().check(
      z.refine((value) => secretsKeyBytes(value) !== undefined, {
        error: 'Must be 32 bytes in base64 or base64url (openssl rand -base64 32)',
      }),
    ),
  ),
  /** Where uploaded corpus files wait for their import; default DATA_DIR/uploads. */
  SCRAPING_UPLOAD_DIR: optionalText,
  /** The largest corpus file staff may upload, in megabytes. */
  SCRAPING_UPLOAD_MAX_MB: int(200, 1, 10_000),
  /**
   * The bundled development OpenID provider under /oidc. Unset: on for APP_ENV local and dev, off for qa and prod;
   * `true` or `false` decides regardless of APP_ENV.
   */
  DEV_OIDC: optionalBool,
  /** The OpenAPI page and document at /api/docs. Unset: on except in prod; `true` or `false` decides. */
  API_DOCS: optionalBool,
  /** The development provider's issuer (the server's public origin + /oidc); default http://localhost:PORT/oidc. */
  DEV_OIDC_ISSUER: z.pipe(
    optionalText,
    z.optional(
      z
        .url()
        .check(z.refine(isDevIssuer, { error: `Must be an http(s) URL whose path is ${DEV_OIDC_PATH}` })),
    ),
  ),
  /**
   * The SMTP server the e-mails (alerts) go through: smtp:// (STARTTLS when the server offers it) or smtps://, with
   * user:password when it wants them (percent-encoded); never logged. Unset, and no development mailbox: no e-mail.
   */
  SMTP_URL: z.pipe(
    optionalText,
    z.optional(
      z.string().check(
        z.refine(isSmtpUrl, {
          error: 'Must be an smtp:// or smtps:// URL with a host (smtp://user:password@host:port)',
        }),
      ),
    ),
  ),
  /** The e-mails' sender (From). */
  MAIL_FROM: z.pipe(
    optionalText,
    z._default(
      z.string().check(
        z.refine(isSender, {
          error:
            'Must be an address, alone or with a name: murmur@example.com or Murmur <murmur@example.com>',
        }),
      ),
      'Murmur <murmur@localhost>',
    ),
  ),
  /**
   * The development mailbox (server/mail/dev-mailbox.ts): an SMTP server on 127.0.0.1:DEV_MAILBOX_PORT that keeps the
   * last 200 messages, shown at /dev/mailbox; when on, every e-mail goes there instead of SMTP_URL. Unset: on for
   * APP_ENV local and dev without SMTP_URL, off otherwise; `true` or `false` decides. Never with APP_ENV=prod.
   */
  DEV_MAILBOX: optionalBool,
  /** 0: any free port. */
  DEV_MAILBOX_PORT: int(2525, 0, 65535),
});

type ParsedConfig = z.infer<typeof serverConfigSchema>;

type PaymentProviderName = 'builtin' | 'stripe' | 'none';

export type ServerConfig = Omit<
  ParsedConfig,
  | 'DEV_OIDC'
  | 'DEV_OIDC_ISSUER'
  | 'API_DOCS'
  | 'SCRAPING_ALLOW_PRIVATE_HOSTS'
  | 'APP_URL'
  | 'PAYMENT_SERVER_URL'
  | 'BUILTIN_PAYMENTS'
  | 'DEV_MAILBOX'
> & {
  /** Resolved from SCRAPING_ALLOW_PRIVATE_HOSTS and APP_ENV. */
  SCRAPING_ALLOW_PRIVATE_HOSTS: boolean;
  APP_URL: string;
  PAYMENT_SERVER_URL: string;
  /** Which payment provider takes the checkout (resolved from the Stripe keys, BUILTIN_PAYMENTS and APP_ENV). */
  PAYMENT_PROVIDER: PaymentProviderName;
  /** Whether /api/docs is served (resolved from API_DOCS and APP_ENV). */
  API_DOCS: boolean;
  /** Whether the development provider is mounted (resolved from DEV_OIDC and APP_ENV). */
  DEV_OIDC: boolean;
  DEV_OIDC_ISSUER: string;
  /** Whether the development mailbox runs (resolved from DEV_MAILBOX, SMTP_URL and APP_ENV). */
  DEV_MAILBOX: boolean;
};

/**
 * With the development provider on, a vendor without a client id of its own is pointed at the provider: its client,
 * its key set and its issuer. The sign-in code path stays the production one; only the URLs differ.
 */
function resolveDevOidc(parsed: ParsedConfig): ServerConfig {
  const enabled = parsed.DEV_OIDC ?? (parsed.APP_ENV === 'local' || parsed.APP_ENV === 'dev');
  const issuer = parsed.DEV_OIDC_ISSUER ?? `http://localhost:${parsed.PORT}${DEV_OIDC_PATH}`;
  const appUrl = (parsed.APP_URL ?? `http://localhost:${parsed.PORT}`).replace(/\/+$/, '');
  const stripe = Boolean(parsed.STRIPE_SECRET_KEY && parsed.STRIPE_WEBHOOK_SECRET);
  const builtin = parsed.BUILTIN_PAYMENTS ?? (!stripe && parsed.APP_ENV !== 'prod');
  const config: ServerConfig = {
    ...parsed,
    APP_URL: appUrl,
    PAYMENT_SERVER_URL: parsed.PAYMENT_SERVER_URL ?? `${appUrl}/payments/`,
    PAYMENT_PROVIDER: stripe ? 'stripe' : builtin ? 'builtin' : 'none',
    DEV_OIDC: enabled,
    DEV_OIDC_ISSUER: issuer,
    API_DOCS: parsed.API_DOCS ?? parsed.APP_ENV !== 'prod',
    SCRAPING_ALLOW_PRIVATE_HOSTS: parsed.SCRAPING_ALLOW_PRIVATE_HOSTS ?? parsed.APP_ENV === 'local',
    DEV_MAILBOX:
      parsed.DEV_MAILBOX ?? (!parsed.SMTP_URL && (parsed.APP_ENV === 'local' || parsed.APP_ENV === 'dev')),
  };
  if (!enabled) return config;
  const jwks = `${issuer}/jwks`;
  if (!parsed.GOOGLE_CLIENT_ID) {
    Object.assign(config, {
      GOOGLE_CLIENT_ID: DEV_OIDC_CLIENT_IDS.google,
      GOOGLE_JWKS_URL: jwks,
      GOOGLE_ISSUERS: [issuer],
    });
  }
  if (!parsed.MICROSOFT_CLIENT_ID) {
    Object.assign(config, {
      MICROSOFT_CLIENT_ID: DEV_OIDC_CLIENT_IDS.microsoft,
      MICROSOFT_JWKS_URL: jwks,
      // A fixed issuer: the provider is one tenant, named by the tid claim it adds for this client.
      MICROSOFT_ISSUER_TEMPLATE: issuer,
    });
  }
  return config;
}

export function loadServerConfig(env: Record<string, string | undefined> = process.env): ServerConfig {
  const result = z.safeParse(serverConfigSchema, env);
  if (result.success) {
    // The development provider signs anyone in as anyone (any e-mail, staff included): never in production.
    if (result.data.APP_ENV === 'prod' && result.data.DEV_OIDC === true) {
      throw new Error(
        'Invalid server configuration:\n  DEV_OIDC: the development sign-in provider cannot run with APP_ENV=prod',
      );
    }
    if (result.data.APP_ENV === 'prod' && result.data.BUILTIN_PAYMENTS === true) {
      throw new Error(
        'Invalid server configuration:\n  BUILTIN_PAYMENTS: the built-in payment provider (test cards) cannot run with APP_ENV=prod',
      );
    }
    // It shows every e-mail sent, unsubscribe links included, to whoever reaches the server.
    if (result.data.APP_ENV === 'prod' && result.data.DEV_MAILBOX === true) {
      throw new Error(
        'Invalid server configuration:\n  DEV_MAILBOX: the development mailbox cannot run with APP_ENV=prod',
      );
    }
    if (result.data.HTTP_HEADERS_TIMEOUT_SECONDS > result.data.HTTP_REQUEST_TIMEOUT_SECONDS) {
      throw new Error(
        'Invalid server configuration:\n  HTTP_HEADERS_TIMEOUT_SECONDS: must not be longer than HTTP_REQUEST_TIMEOUT_SECONDS',
      );
    }
    if (Boolean(result.data.STRIPE_SECRET_KEY) !== Boolean(result.data.STRIPE_WEBHOOK_SECRET)) {
      throw new Error(
        'Invalid server configuration:\n  STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET: set both or neither',
      );
    }
    return resolveDevOidc(result.data);
  }
  const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  throw new Error(`Invalid server configuration:\n${lines.join('\n')}`);
}
