// The parsers of single configuration values (server/config.ts puts them together): numbers in bounds, booleans and
// text where unset and empty mean the same, comma-separated lists, and the URLs and keys whose shape is checked here.
import * as z from 'zod/mini';
import { DEV_OIDC_PATH } from '@contract/dev-oidc';
import { parseAnalyticsUrl } from '@server/analytics/url';

export const int = (fallback: number, min: number, max: number) =>
  z._default(
    z.pipe(
      z.pipe(z.string().check(z.regex(/^\d+$/)), z.transform(Number)),
      z.number().check(z.int(), z.gte(min), z.lte(max)),
    ),
    fallback,
  );
/** Unset or empty: undefined, so a default can depend on other keys. */
export const optionalBool = z.pipe(
  z.optional(z.enum(['true', 'false', '1', '0', ''])),
  z.transform((v) => (v === undefined || v === '' ? undefined : v === 'true' || v === '1')),
);
/** true/false (or 1/0); unset or empty: `fallback`. */
export const bool = (fallback: boolean) =>
  z.pipe(
    optionalBool,
    z.transform((v) => v ?? fallback),
  );
/** Unset and empty mean the same, as `KEY=` in an env file. */
export const optionalText = z.pipe(
  z.optional(z.string()),
  z.transform((v) => (v ? v : undefined)),
);
export const isDevIssuer = (value: string) => {
  const url = URL.parse(value);
  return url !== null && /^https?:$/.test(url.protocol) && url.pathname === DEV_OIDC_PATH && !url.search;
};
/** A comma-separated list; blanks are dropped, and an empty list is refused rather than silently matching nothing. */
export const list = (fallback: string) =>
  z.pipe(
    z.pipe(
      z._default(z.string(), fallback),
      z.transform((v) =>
        v
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean),
      ),
    ),
    z.array(z.string()).check(z.minLength(1, { error: 'Must list at least one value' })),
  );

/** SECRETS_KEY's bytes: 32 of them, in base64 or base64url; undefined when it is not that. */
export function secretsKeyBytes(value: string): Buffer | undefined {
  const text = value.trim();
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) return undefined;
  const bytes = Buffer.from(text.replace(/\+/g, '-').replace(/\//g, '_').replace(/=$/, ''), 'base64url');
  return bytes.length === 32 ? bytes : undefined;
}

/** Whether a URL names an SMTP server: smtp:// or smtps:// with a host. */
export const isSmtpUrl = (value: string) => {
  const url = URL.parse(value);
  return url !== null && /^smtps?:$/.test(url.protocol) && url.hostname !== '';
};
/** Whether ANALYTICS_URL reads as a ClickHouse server's HTTP interface (server/analytics/url.ts). */
export const isAnalyticsUrl = (value: string) => {
  try {
    parseAnalyticsUrl(value);
    return true;
  } catch {
    return false;
  }
};
/** An address, alone or after a display name: `murmur@example.com` or `Murmur <murmur@example.com>`. */
export const isSender = (value: string) =>
  /^(?:[^<>\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/.test(value.trim());

/** Whether a URL names a PostgreSQL server: postgres:// or postgresql:// with a host. */
const isPostgresUrl = (value: string) => {
  const url = URL.parse(value);
  return url !== null && /^postgres(ql)?:$/.test(url.protocol) && url.hostname !== '';
};
/**
 * DATABASE_READ_URL: read replicas of DATABASE_URL, comma-separated. A malformed one is named by its position and
 * host, never by its text (it holds a password).
 */
export const readUrls = z.pipe(
  optionalText,
  z.transform((value, context) => {
    if (value === undefined) return [];
    const urls = value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
    urls.forEach((url, index) => {
      if (isPostgresUrl(url)) return;
      const host = URL.parse(url)?.hostname;
      context.issues.push({
        code: 'custom',
        input: `#${index + 1}`,
        message:
          `URL #${index + 1} of ${urls.length}${host ? ` (host ${host})` : ''} is not a PostgreSQL URL ` +
          '(postgres://user:password@host:port/database)',
      });
    });
    return urls;
  }),
);
