// The one interface every source implements: fetch a page from a cursor, map each item to a corpus row (the import
// format of docs/corpus-format.md), and say where the next page starts. The runner (server/scraping/runner.ts)
// validates the rows, upserts them and persists the cursor with them in one transaction.
import type { SourceParams } from '@contract/scraping';
import { PermanentError, type HttpOptions } from './http';

/**
 * One item of a page: a corpus row to validate, an item the connector already knows it cannot map, or an item the
 * source says was deleted (or removed by its moderators), which leaves the corpus if it is there.
 */
export type CollectedItem =
  | { ref: string; row: Record<string, unknown>; raw: string }
  | { ref: string; reason: string; raw: string }
  | { ref: string; gone: { platform: string; external_id: string }; raw: string };

export interface Page {
  items: CollectedItem[];
  /** Where the next page starts; when `done`, where the next run starts (newer than everything seen). */
  cursor: unknown;
  done: boolean;
  /** A line for the run's log (the request made, what came back). */
  note: string;
  /**
   * The page holds the replies of posts an earlier page brought (a post's comments): it does not count against the
   * run's page budget (max_pages counts pages of results).
   */
  child?: boolean;
}

/** Where each source's API is (configurable, so that tests and staff can point them at a replay server). */
export interface SourceUrls {
  /** The Bluesky AppView (SCRAPING_BLUESKY_URL), https://public.api.bsky.app by default. */
  bluesky: string;
  /** Reddit's OAuth API (SCRAPING_REDDIT_URL), https://oauth.reddit.com. */
  reddit: string;
  /** Reddit's token endpoint's origin (SCRAPING_REDDIT_AUTH_URL), https://www.reddit.com. */
  redditAuth: string;
  /** YouTube Data API v3 (SCRAPING_YOUTUBE_URL), https://www.googleapis.com/youtube/v3. */
  youtube: string;
  /** Hacker News search on Algolia (SCRAPING_HACKERNEWS_URL), https://hn.algolia.com/api/v1. */
  hackernews: string;
  /** X API v2 (SCRAPING_X_URL), https://api.x.com/2. */
  x: string;
}

/** A source credential's fields, decrypted (server/scraping/credentials.ts); never logged, never in a cursor. */
interface Credential {
  id: string;
  secret: Record<string, string>;
}

export interface ConnectorContext {
  http: HttpOptions;
  signal: AbortSignal;
  urls: SourceUrls;
  /** The job's credential (Reddit, YouTube, X); undefined for sources that need none. */
  credential?: Credential;
  /**
   * Charges a request's quota units (YouTube's daily quota) before the request is sent. Throws QuotaSpentError (a
   * RateLimitedError that waits for the quota's next day) when the credential's daily budget would be passed.
   */
  spend(units: number): Promise<void>;
}

export interface Connector<P extends SourceParams = SourceParams> {
  fetchPage(params: P, cursor: unknown, context: ConnectorContext): Promise<Page>;
  /** The cursor for the next run when a run stops early (its page budget spent): newer than what was seen. */
  finish(cursor: unknown): unknown;
  /**
   * Whether the next page is a child page (replies still to fetch for the posts of the last page): a run whose page
   * budget is spent fetches them before it stops. None when absent.
   */
  childrenPending?(cursor: unknown): boolean;
}

/**
 * A credential's "test connection": one cheap request with it. Resolves with a sentence saying what works; throws
 * CredentialProblem (connectors/http.ts) saying in words what is wrong (bad key, no quota, rate-limited, not found).
 */
export type CredentialTest = (
  secret: Record<string, string>,
  context: Omit<ConnectorContext, 'credential'>,
) => Promise<string>;

/** The credential of a context, or a PermanentError saying the job has none. */
export function credentialOf(context: ConnectorContext): Record<string, string> {
  if (!context.credential) throw new PermanentError('This source needs a credential, and the job has none.');
  return context.credential.secret;
}

/** The raw item, cut for the refused-items list. */
export const rawOf = (value: unknown) => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 2_000 ? `${text.slice(0, 1_999)}…` : text;
};

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Text of an HTML fragment (a Mastodon status, a feed's description): line breaks kept, tags dropped. */
export function htmlToText(html: string): string {
  return html
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|li|h[1-6]|blockquote)>/gi, '\n\n')
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, '')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
      if (name.startsWith('#x') || name.startsWith('#X')) return safeChar(parseInt(name.slice(2), 16), whole);
      if (name.startsWith('#')) return safeChar(Number(name.slice(1)), whole);
      return ENTITIES[name.toLowerCase()] ?? whole;
    })
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function safeChar(code: number, fallback: string) {
  return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff)
    ? String.fromCodePoint(code)
    : fallback;
}

/** A record's field as an object, or undefined. */
export const objectOf = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

export const stringOf = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined;
export const countOf = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;

/** A post row without its absent fields (undefined or null): the importer's schema treats a missing field as unknown. */
export const withoutEmpty = (row: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(row).filter(([, v]) => v !== undefined && v !== null));
