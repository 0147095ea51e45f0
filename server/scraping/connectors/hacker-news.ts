// Hacker News through its public search API on Algolia (https://hn.algolia.com/api), no key: stories and comments
// matching words, newest first (GET /search_by_date), by date.
//
// Paging goes back in time by the items' creation time rather than by page number alone (Algolia answers at most
// 1,000 hits of one query: `page` cannot reach further): each request asks for items created at or before the oldest
// second the last page reached (`numericFilters=created_at_i<=…`), so a backfill reaches as far back as the page
// budget allows. Items of that second come again and are upserted as unchanged; only when a whole page shares one
// second (no progress by time) does `page` move on within it. A later run asks for items created at or after the
// newest second the previous run saw (`created_at_i>=…`). An item is keyed by its objectID (the HN item id).
import type { SourceParams } from '@contract/scraping';
import { httpGet, jsonBody, PermanentError } from './http';
import { countOf, htmlToText, objectOf, rawOf, stringOf, type CollectedItem, type Connector } from './types';

type SearchParams = Extract<SourceParams, { source: 'hackernews_search' }>;

interface HackerNewsCursor {
  /** Items created at or after this Unix second only (the newest of the previous run). */
  since?: number;
  /** The next page: items created at or before this Unix second. */
  before?: number;
  /** Algolia's page within `before`'s second, when a whole page shared it. */
  page?: number;
  /** The newest created_at_i seen in this run: the next run's `since`. */
  top?: number;
}

/** Hits per request (Algolia allows up to 1,000; 100 keeps a page's transaction small). */
const HACKER_NEWS_PAGE_SIZE = 100;

const TAGS: Record<SearchParams['items'], string> = {
  all: '(story,comment)',
  story: 'story',
  comment: 'comment',
};

/** HN's HTML separates paragraphs with a bare <p> (no closing tag). */
const textOf = (html: string) => htmlToText(html.replace(/<p>/gi, '\n\n'));

const itemUrl = (id: string) => `https://news.ycombinator.com/item?id=${encodeURIComponent(id)}`;

/** A hit as a corpus row, or the reason it cannot be one. */
function mapHit(value: unknown): CollectedItem {
  const hit = objectOf(value);
  const raw = rawOf(value);
  const id = stringOf(hit?.objectID);
  const ref = id ? itemUrl(id) : '(no objectID)';
  if (!hit || !id) return { ref, reason: 'not a search hit (no objectID)', raw };
  const tags = Array.isArray(hit._tags) ? hit._tags.filter((t): t is string => typeof t === 'string') : [];
  const comment = tags.includes('comment');
  const author = stringOf(hit.author);
  // Deleted and dead items keep their id in the index without an author or text.
  if (!author) return { ref, reason: 'the item has no author (deleted or dead on Hacker News)', raw };
  const link = stringOf(hit.url);
  const host = link ? URL.parse(link)?.hostname : undefined;
  const title = stringOf(hit.title);
  const body = stringOf(comment ? hit.comment_text : hit.story_text);
  const text = comment
    ? body === undefined
      ? undefined
      : textOf(body)
    : [title, body ? textOf(body) : undefined].filter(Boolean).join('\n\n') || undefined;
  if (text === undefined) return { ref, reason: 'the item has no text', raw };
  const seconds = countOf(hit.created_at_i);
  const row: Record<string, unknown> = {
    platform: 'hackernews',
    external_id: id,
    author_external_id: author,
    author_handle: author,
    text,
    posted_at:
      stringOf(hit.created_at) ??
      (seconds === undefined ? undefined : new Date(seconds * 1000).toISOString()),
    kind: comment ? 'reply' : 'original',
    media: !comment && link ? 'link' : 'text',
    likes: countOf(hit.points),
    comments: countOf(hit.num_comments),
    url: itemUrl(id),
    ...(host && { domains: [host] }),
  };
  return {
    ref,
    row: Object.fromEntries(Object.entries(row).filter(([, v]) => v !== undefined && v !== null)),
    raw,
  };
}

export const hackernewsSearch: Connector<SearchParams> = {
  async fetchPage(params, cursor, context) {
    const state = (cursor ?? {}) as HackerNewsCursor;
    const url = new URL(`${context.urls.hackernews.replace(/\/$/, '')}/search_by_date`);
    url.searchParams.set('query', params.query);
    url.searchParams.set('tags', TAGS[params.items]);
    url.searchParams.set('hitsPerPage', String(HACKER_NEWS_PAGE_SIZE));
    const filters = [
      ...(state.since !== undefined ? [`created_at_i>=${state.since}`] : []),
      ...(state.before !== undefined ? [`created_at_i<=${state.before}`] : []),
    ];
    if (filters.length > 0) url.searchParams.set('numericFilters', filters.join(','));
    if (state.page) url.searchParams.set('page', String(state.page));
    const body = objectOf(
      jsonBody(await httpGet(url.toString(), { ...context.http, signal: context.signal })),
    );
    if (!body || !Array.isArray(body.hits)) throw new PermanentError(`${url.host}: expected { hits: [...] }`);
    const times = body.hits
      .map((hit) => countOf(objectOf(hit)?.created_at_i))
      .filter((t): t is number => t !== undefined);
    const top = Math.max(state.top ?? -1, ...times);
    const oldest = times.length > 0 ? Math.min(...times) : undefined;
    const note =
      `search "${params.query}" (${params.items})` +
      (state.before !== undefined ? ` at or before ${new Date(state.before * 1000).toISOString()}` : '') +
      (state.page ? `, page ${state.page + 1} of that second` : '') +
      `: ${body.hits.length} items`;
    const items = body.hits.map(mapHit);
    const done = body.hits.length < HACKER_NEWS_PAGE_SIZE || oldest === undefined;
    if (done) {
      return { items, note, done, cursor: { since: top >= 0 ? top : state.since } };
    }
    // Progress by time when the page reached an older second; otherwise the next page of the same second.
    const next: HackerNewsCursor =
      oldest < (state.before ?? Infinity)
        ? { since: state.since, before: oldest, top }
        : { since: state.since, before: state.before, page: (state.page ?? 0) + 1, top };
    return { items, note, done, cursor: next };
  },
  finish(cursor) {
    const c = (cursor ?? {}) as HackerNewsCursor;
    return { since: c.top ?? c.since };
  },
};
