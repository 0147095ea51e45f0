// Bluesky post search on the public AppView (GET /xrpc/app.bsky.feed.searchPosts, no sign-in): newest first
// (sort=latest), paged by the answer's opaque cursor; `since` keeps a later run to posts indexed after the newest the
// previous run saw. A post is keyed by its AT URI, its author by DID.
import type { SourceParams } from '@contract/scraping';
import { httpGet, jsonBody, PermanentError } from './http';
import { countOf, objectOf, rawOf, stringOf, type CollectedItem, type Connector } from './types';

type SearchParams = Extract<SourceParams, { source: 'bluesky_search' }>;

interface BlueskyCursor {
  /** Posts indexed at or after this instant only (the newest of the previous run). */
  since?: string;
  /** The AppView's cursor for the next page. */
  page?: string;
  /** The newest indexedAt seen in this run. */
  top?: string;
}

const PAGE_SIZE = 50;

function mediaOf(embed: Record<string, unknown> | undefined): string {
  const type = stringOf(embed?.$type) ?? '';
  if (type.startsWith('app.bsky.embed.video')) return 'video';
  if (type.startsWith('app.bsky.embed.images')) return 'image';
  if (type.startsWith('app.bsky.embed.external')) return 'link';
  if (type.startsWith('app.bsky.embed.recordWithMedia')) return mediaOf(objectOf(embed?.media));
  return 'text';
}

/** Hashtags and mentions from the record's facets (the text's own markup). */
function facets(record: Record<string, unknown>) {
  const hashtags: string[] = [];
  const domains: string[] = [];
  for (const facet of Array.isArray(record.facets) ? record.facets : []) {
    for (const feature of Array.isArray(objectOf(facet)?.features)
      ? (objectOf(facet)!.features as unknown[])
      : []) {
      const f = objectOf(feature);
      const type = stringOf(f?.$type);
      if (type === 'app.bsky.richtext.facet#tag' && stringOf(f?.tag)) hashtags.push(stringOf(f?.tag)!);
      if (type === 'app.bsky.richtext.facet#link') {
        const host = URL.parse(stringOf(f?.uri) ?? '')?.hostname;
        if (host) domains.push(host);
      }
    }
  }
  return { hashtags, domains };
}

/** A post view (the AppView's, or one made from a Jetstream commit: server/scraping/streams) as a corpus row. */
export function mapPost(value: unknown): CollectedItem {
  const post = objectOf(value);
  const raw = rawOf(value);
  const ref = stringOf(post?.uri) ?? '(no uri)';
  if (!post) return { ref, reason: 'not a post view', raw };
  const author = objectOf(post.author);
  const record = objectOf(post.record);
  if (!author || !record) return { ref, reason: 'the post has no author or no record', raw };
  const handle = stringOf(author.handle);
  const rkey = ref.split('/').at(-1);
  const embed = objectOf(post.embed) ?? objectOf(record.embed);
  const embedType = stringOf(embed?.$type) ?? '';
  const langs = Array.isArray(record.langs) ? record.langs : [];
  const { hashtags, domains } = facets(record);
  const quotes = countOf(post.quoteCount) ?? 0;
  const reposts = countOf(post.repostCount);
  const row: Record<string, unknown> = {
    platform: 'bluesky',
    external_id: post.uri,
    author_external_id: author.did,
    author_handle: handle,
    author_display_name: stringOf(author.displayName) || undefined,
    author_avatar_url: stringOf(author.avatar),
    text: record.text,
    language: stringOf(langs[0]),
    posted_at: record.createdAt,
    kind: record.reply ? 'reply' : embedType.startsWith('app.bsky.embed.record') ? 'quote' : 'original',
    media: mediaOf(embed),
    likes: countOf(post.likeCount),
    comments: countOf(post.replyCount),
    shares: reposts === undefined ? undefined : reposts + quotes,
    url: handle && rkey ? `https://bsky.app/profile/${handle}/post/${rkey}` : undefined,
    ...(hashtags.length > 0 && { hashtags }),
    ...(domains.length > 0 && { domains }),
  };
  return {
    ref,
    row: Object.fromEntries(Object.entries(row).filter(([, v]) => v !== undefined && v !== null)),
    raw,
  };
}

export const blueskySearch: Connector<SearchParams> = {
  async fetchPage(params, cursor, context) {
    const state = (cursor ?? {}) as BlueskyCursor;
    const url = new URL('/xrpc/app.bsky.feed.searchPosts', context.urls.bluesky);
    url.searchParams.set('q', params.query);
    url.searchParams.set('sort', 'latest');
    url.searchParams.set('limit', String(PAGE_SIZE));
    if (params.lang) url.searchParams.set('lang', params.lang);
    if (state.since) url.searchParams.set('since', state.since);
    if (state.page) url.searchParams.set('cursor', state.page);
    const body = objectOf(
      jsonBody(await httpGet(url.toString(), { ...context.http, signal: context.signal })),
    );
    if (!body || !Array.isArray(body.posts))
      throw new PermanentError(`${url.host}: expected { posts: [...] }`);
    let top = state.top;
    for (const post of body.posts) {
      const indexed = stringOf(objectOf(post)?.indexedAt);
      if (indexed && !Number.isNaN(Date.parse(indexed)) && (!top || Date.parse(indexed) > Date.parse(top))) {
        top = indexed;
      }
    }
    const next = stringOf(body.cursor);
    const done = body.posts.length === 0 || !next;
    const note = `search "${params.query}"${state.page ? ` (cursor ${state.page})` : ''}: ${body.posts.length} posts`;
    return {
      items: body.posts.map(mapPost),
      note,
      done,
      cursor: done ? { since: top ?? state.since } : { ...state, page: next, ...(top && { top }) },
    };
  },
  finish(cursor) {
    const c = (cursor ?? {}) as BlueskyCursor;
    return { since: c.top ?? c.since };
  },
};
