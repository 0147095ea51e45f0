// RSS 2.0 and Atom feeds. The first page is the feed's URL, asked conditionally (If-None-Match / If-Modified-Since
// from the previous run), so an unchanged feed costs one 304; older pages follow the feed's rel="next" link (RFC
// 5005 paging, in Atom or as atom:link in RSS). The feed is the author (one profile per feed); an entry is keyed by
// its guid or id, else its link.
import { XMLParser } from 'fast-xml-parser';
import type { SourceParams } from '@contract/scraping';
import { httpGet, PermanentError } from './http';
import { htmlToText, objectOf, rawOf, stringOf, type CollectedItem, type Connector } from './types';

type FeedParams = Extract<SourceParams, { source: 'feed' }>;

interface FeedCursor {
  /** The next (older) page's URL. */
  next?: string;
  etag?: string;
  last_modified?: string;
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  textNodeName: '#text',
  // Entities are expanded by the parser; the HTML inside descriptions is turned into text afterwards.
  processEntities: true,
  htmlEntities: true,
  isArray: (name) => ['item', 'entry', 'link', 'atom:link', 'category', 'author'].includes(name),
});

const textOf = (value: unknown): string | undefined => {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  const node = objectOf(value);
  return node ? textOf(node['#text']) : undefined;
};

function hrefOf(links: unknown, rel: string): string | undefined {
  for (const link of Array.isArray(links) ? links : []) {
    const node = objectOf(link);
    if (node && (stringOf(node['@rel']) ?? 'alternate') === rel && stringOf(node['@href'])) {
      return stringOf(node['@href']);
    }
    if (!node && rel === 'alternate' && typeof link === 'string') return link;
  }
  return undefined;
}

function isoOf(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const time = Date.parse(value.trim());
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

interface FeedInfo {
  url: string;
  title: string;
  host: string;
}

function mapEntry(entry: unknown, feed: FeedInfo, atom: boolean): CollectedItem {
  const node = objectOf(entry) ?? {};
  const raw = rawOf(entry);
  const link = atom
    ? hrefOf(node.link, 'alternate')
    : textOf(Array.isArray(node.link) ? node.link[0] : node.link);
  const id = textOf(atom ? node.id : node.guid) ?? link;
  const ref = id ?? '(no id)';
  if (!id) return { ref, reason: 'the entry has no guid, id or link', raw };
  const title = htmlToText(textOf(node.title) ?? '');
  const body = htmlToText(
    textOf(atom ? (node.content ?? node.summary) : (node['content:encoded'] ?? node.description)) ?? '',
  );
  const dateText = textOf(atom ? (node.published ?? node.updated) : (node.pubDate ?? node['dc:date']));
  const postedAt = isoOf(dateText);
  if (!postedAt) {
    return { ref, reason: dateText ? `unreadable date "${dateText}"` : 'the entry has no date', raw };
  }
  const categories = (Array.isArray(node.category) ? node.category : [])
    .map((c) => (atom ? stringOf(objectOf(c)?.['@term']) : textOf(c)))
    .filter((c): c is string => !!c && /^[\p{L}\p{N}_-]{1,100}$/u.test(c));
  const text = [title, body].filter(Boolean).join('\n\n');
  const row: Record<string, unknown> = {
    platform: 'rss',
    external_id: id.slice(0, 200),
    author_external_id: feed.url.slice(0, 200),
    author_handle: feed.host.slice(0, 100),
    author_display_name: feed.title.slice(0, 200) || undefined,
    text: text.slice(0, 100_000),
    posted_at: postedAt,
    media: 'link',
    url:
      link && URL.parse(link, feed.url)?.protocol.startsWith('http')
        ? URL.parse(link, feed.url)!.toString()
        : undefined,
    ...(categories.length > 0 && { hashtags: categories }),
  };
  return {
    ref,
    row: Object.fromEntries(Object.entries(row).filter(([, v]) => v !== undefined)),
    raw,
  };
}

export const feedConnector: Connector<FeedParams> = {
  async fetchPage(params, cursor, context) {
    const state = (cursor ?? {}) as FeedCursor;
    const first = !state.next;
    const headers: Record<string, string> = {
      accept: 'application/rss+xml, application/atom+xml, application/xml, text/xml',
    };
    if (first && state.etag) headers['if-none-match'] = state.etag;
    if (first && state.last_modified) headers['if-modified-since'] = state.last_modified;
    const response = await httpGet(state.next ?? params.url, {
      ...context.http,
      headers,
      signal: context.signal,
    });
    const host = new URL(response.url).host;
    const keep = { etag: state.etag, last_modified: state.last_modified };
    if (response.status === 304) {
      return { items: [], done: true, cursor: keep, note: `${host}: not modified since the last run` };
    }
    let doc: Record<string, unknown>;
    try {
      doc = parser.parse(response.body) as Record<string, unknown>;
    } catch (error) {
      throw new PermanentError(`${host}: not a readable feed (${(error as Error).message.split('\n')[0]})`);
    }
    const rss = objectOf(objectOf(doc.rss)?.channel);
    const atom = objectOf(doc.feed);
    if (!rss && !atom) throw new PermanentError(`${host}: not an RSS or Atom feed`);
    const channel = (rss ?? atom)!;
    const links = rss ? channel['atom:link'] : channel.link;
    const feed: FeedInfo = {
      url: params.url,
      title: htmlToText(textOf(channel.title) ?? ''),
      host: new URL(params.url).host,
    };
    const entries = (rss ? channel.item : channel.entry) as unknown[] | undefined;
    const items = (entries ?? []).map((entry) => mapEntry(entry, feed, !rss));
    const nextHref = hrefOf(links, 'next');
    const next = nextHref ? URL.parse(nextHref, response.url)?.toString() : undefined;
    // The conditional headers come from the first page (the feed itself).
    const validators = first
      ? {
          etag: response.headers.get('etag') ?? undefined,
          last_modified: response.headers.get('last-modified') ?? undefined,
        }
      : keep;
    const done = !next || items.length === 0;
    return {
      items,
      done,
      cursor: done ? validators : { ...validators, next },
      note: `${host}${state.next ? ` (page ${new URL(state.next).search || state.next})` : ''}: ${items.length} entries`,
    };
  },
  finish(cursor) {
    const c = (cursor ?? {}) as FeedCursor;
    return { etag: c.etag, last_modified: c.last_modified };
  },
};
