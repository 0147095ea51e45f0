// Mastodon's public REST API: a hashtag's timeline (GET /api/v1/timelines/tag/:hashtag) and an account's statuses
// (GET /api/v1/accounts/lookup, then /api/v1/accounts/:id/statuses without boosts). Pages go back in time with
// max_id (from the Link header's rel="next"); since_id keeps a later run to what is newer than the last one saw.
// A status is keyed by its URI, which is the same on every instance that federates it.
import type { SourceParams } from '@contract/scraping';
import { httpGet, jsonBody, PermanentError, type HttpResponse } from './http';
import {
  countOf,
  htmlToText,
  objectOf,
  rawOf,
  stringOf,
  type CollectedItem,
  type Connector,
  type ConnectorContext,
  type Page,
  withoutEmpty,
} from './types';

type HashtagParams = Extract<SourceParams, { source: 'mastodon_hashtag' }>;
type AccountParams = Extract<SourceParams, { source: 'mastodon_account' }>;

interface MastodonCursor {
  /** Statuses newer than this id only (the newest of the previous run). */
  since_id?: string;
  /** The next page: statuses older than this id. */
  max_id?: string;
  /** The newest id seen in this run: the next run's since_id. */
  top?: string;
  /** The account's id on the instance, once looked up. */
  account_id?: string;
}

const PAGE_SIZE = 40;

/** Mastodon ids are numeric strings (snowflakes): compare by length, then as text. */
const newer = (a: string, b: string | undefined) =>
  b === undefined || a.length > b.length || (a.length === b.length && a > b);

/** max_id of the Link header's rel="next". */
function nextMaxId(response: HttpResponse): string | undefined {
  const link = response.headers.get('link');
  const next = link?.split(',').find((part) => /rel="?next"?/.test(part));
  const url = next?.match(/<([^>]+)>/)?.[1];
  return url ? (URL.parse(url)?.searchParams.get('max_id') ?? undefined) : undefined;
}

function mediaOf(status: Record<string, unknown>): string {
  const attachments = Array.isArray(status.media_attachments) ? status.media_attachments : [];
  const types = attachments.map((a) => stringOf(objectOf(a)?.type));
  if (types.some((t) => t === 'video' || t === 'gifv')) return 'video';
  if (types.includes('image')) return 'image';
  return objectOf(status.card) ? 'link' : 'text';
}

/** A status as a corpus row; a reason when it lacks what every post needs. */
export function mapStatus(value: unknown, instance: URL): CollectedItem {
  const status = objectOf(value);
  const raw = rawOf(value);
  const ref = stringOf(status?.uri) ?? stringOf(status?.id) ?? '(no id)';
  if (!status) return { ref, reason: 'not a status object', raw };
  const account = objectOf(status.account);
  if (!account) return { ref, reason: 'the status has no account', raw };
  const acct = stringOf(account.acct);
  const spoiler = stringOf(status.spoiler_text);
  const content = typeof status.content === 'string' ? htmlToText(status.content) : undefined;
  const tags = Array.isArray(status.tags) ? status.tags.map((t) => stringOf(objectOf(t)?.name)) : [];
  const mentions = Array.isArray(status.mentions)
    ? status.mentions.map((m) => stringOf(objectOf(m)?.acct))
    : [];
  const row: Record<string, unknown> = {
    platform: 'mastodon',
    external_id: status.uri,
    author_external_id: account.url ?? (acct ? `${acct}@${instance.host}` : undefined),
    author_handle: acct && !acct.includes('@') ? `${acct}@${instance.host}` : acct,
    author_display_name: stringOf(account.display_name) || undefined,
    author_followers: countOf(account.followers_count),
    author_following: countOf(account.following_count),
    author_bio: typeof account.note === 'string' ? htmlToText(account.note).slice(0, 2_000) : undefined,
    author_avatar_url: stringOf(account.avatar),
    text: content === undefined ? undefined : spoiler ? `${spoiler}\n\n${content}` : content,
    language: stringOf(status.language) ?? undefined,
    posted_at: status.created_at,
    kind: status.in_reply_to_id ? 'reply' : 'original',
    media: mediaOf(status),
    likes: countOf(status.favourites_count),
    comments: countOf(status.replies_count),
    shares: countOf(status.reblogs_count),
    url: stringOf(status.url) ?? stringOf(status.uri),
    hashtags: tags.filter((t): t is string => t !== undefined),
    mentions: mentions.filter((m): m is string => m !== undefined),
  };
  return { ref, row: withoutEmpty(row), raw };
}

async function statusesPage(
  url: URL,
  instance: URL,
  cursor: MastodonCursor,
  context: ConnectorContext,
  describe: string,
): Promise<Page> {
  url.searchParams.set('limit', String(PAGE_SIZE));
  if (cursor.since_id) url.searchParams.set('since_id', cursor.since_id);
  if (cursor.max_id) url.searchParams.set('max_id', cursor.max_id);
  const response = await httpGet(url.toString(), { ...context.http, signal: context.signal });
  const body = jsonBody(response);
  if (!Array.isArray(body)) throw new PermanentError(`${instance.host}: expected a list of statuses`);
  let top = cursor.top;
  for (const status of body) {
    const id = stringOf(objectOf(status)?.id);
    if (id && newer(id, top)) top = id;
  }
  // The last page is empty or has no rel="next" link.
  const next = nextMaxId(response);
  const done = body.length === 0 || next === undefined;
  const items = body.map((status) => mapStatus(status, instance));
  const note = `${describe}${cursor.max_id ? ` before ${cursor.max_id}` : ''}: ${body.length} statuses`;
  const { account_id } = cursor;
  return done
    ? { items, done, note, cursor: { since_id: top ?? cursor.since_id, ...(account_id && { account_id }) } }
    : { items, done, note, cursor: { ...cursor, max_id: next, ...(top && { top }) } };
}

const finish = (cursor: unknown): unknown => {
  const c = (cursor ?? {}) as MastodonCursor;
  return { since_id: c.top ?? c.since_id, ...(c.account_id && { account_id: c.account_id }) };
};

export const mastodonHashtag: Connector<HashtagParams> = {
  async fetchPage(params, cursor, context) {
    const instance = new URL(params.instance);
    const tag = params.hashtag.replace(/^#/, '');
    const url = new URL(`/api/v1/timelines/tag/${encodeURIComponent(tag)}`, instance);
    return statusesPage(
      url,
      instance,
      (cursor ?? {}) as MastodonCursor,
      context,
      `#${tag} on ${instance.host}`,
    );
  },
  finish,
};

export const mastodonAccount: Connector<AccountParams> = {
  async fetchPage(params, cursor, context) {
    const instance = new URL(params.instance);
    const state = { ...((cursor ?? {}) as MastodonCursor) };
    const acct = params.account.replace(/^@/, '');
    if (!state.account_id) {
      const lookup = new URL('/api/v1/accounts/lookup', instance);
      lookup.searchParams.set('acct', acct);
      const account = objectOf(
        jsonBody(await httpGet(lookup.toString(), { ...context.http, signal: context.signal })),
      );
      const id = stringOf(account?.id);
      if (!id) throw new PermanentError(`${instance.host}: no account ${acct}`);
      state.account_id = id;
    }
    const url = new URL(`/api/v1/accounts/${encodeURIComponent(state.account_id)}/statuses`, instance);
    url.searchParams.set('exclude_reblogs', 'true');
    return statusesPage(url, instance, state, context, `@${acct} on ${instance.host}`);
  },
  finish,
};
