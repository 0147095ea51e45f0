// Build-time configuration (spec §5), validated once at start-up. A bad value names its key on screen, never a blank page.
import * as z from 'zod/mini';

const optionalUrl = z.union([z.literal(''), z.url()]);

const configSchema = z.object({
  VITE_APP_ENV: z.enum(['local', 'dev', 'qa', 'prod']),
  VITE_API_BASE_URL: z.url(),
  VITE_SOCIAL_API_BASE_URL: z.url(),
  VITE_PAYMENT_SERVER_URL: z.url(),
  /** The error-reporting endpoint; empty disables reporting. */
  VITE_SENTRY_DSN: z._default(optionalUrl, ''),
  VITE_INTERNAL_WORKSPACE_ID: z._default(z.string(), ''),
  VITE_GOOGLE_CLIENT_ID: z._default(z.string(), ''),
  VITE_MICROSOFT_CLIENT_ID: z._default(z.string(), ''),
  /** The server's development OpenID provider (local and dev only); empty uses the real vendors. */
  VITE_DEV_OIDC_ISSUER: z._default(optionalUrl, ''),
  VITE_INSPECT: z._default(z.string(), 'false'),
  /** 'true' only in end-to-end test builds: exposes the app to browser tests. */
  VITE_E2E: z._default(z.string(), 'false'),
});

export type AppConfig = z.infer<typeof configSchema>;

export interface ConfigProblem {
  key: string;
  message: string;
}

export type ConfigResult = { ok: true; config: AppConfig } | { ok: false; problems: ConfigProblem[] };

export function parseConfig(env: Record<string, unknown>): ConfigResult {
  const result = z.safeParse(configSchema, env);
  if (result.success) return { ok: true, config: result.data };
  return {
    ok: false,
    problems: result.error.issues.map((issue) => ({
      key: issue.path.map(String).join('.') || '(config)',
      message: issue.message,
    })),
  };
}
