// The one interface every source implements: fetch a page from a cursor, map each item to a corpus row (the import
// format of docs/corpus-format.md), and say where the next page starts. The runner (server/scraping/runner.ts)
// validates the rows, upserts them and persists the cursor with them in one transaction.
import type { SourceParams } from '@contract/scraping';
import type { HttpOptions } from './http';

/** One item of a page: a corpus row to validate, or an item the connector already knows it cannot map. */
export type CollectedItem =
  { ref: string; row: Record<string, unknown>; raw: string } | { ref: string; reason: string; raw: string };

export interface Page {
  items: CollectedItem[];
  /** Where the next page starts; when `done`, where the next run starts (newer than everything seen). */
  cursor: unknown;
  done: boolean;
  /** A line for the run's log (the request made, what came back). */
  note: string;
}

export interface ConnectorContext {
  http: HttpOptions;
  signal: AbortSignal;
  /** The Bluesky AppView (SCRAPING_BLUESKY_URL), https://public.api.bsky.app by default. */
  blueskyUrl: string;
}

export interface Connector<P extends SourceParams = SourceParams> {
  fetchPage(params: P, cursor: unknown, context: ConnectorContext): Promise<Page>;
  /** The cursor for the next run when a run stops early (its page budget spent): newer than what was seen. */
  finish(cursor: unknown): unknown;
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
