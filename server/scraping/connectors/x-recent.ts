// X through API v2 recent search with an app's bearer token
// (https://docs.x.com/x-api/posts/search-recent-posts): posts matching a query from the last 7 days, newest first,
// 100 a page, paged by `next_token`, with their authors and media expanded (`includes`).
//
// - A later run asks `since_id` = the newest post the previous run saw. Recent search reaches back 7 days only: when
//   that post is older than that, the run asks from 7 days ago (`start_time`) instead, and says so.
// - Edits: an edited post is a new id whose `edit_history_tweet_ids` starts with the original's; the corpus keys a post
//   by that first id, so an edit updates the post it edits.
// - Rate limits: X answers x-rate-limit-remaining and x-rate-limit-reset (Unix seconds); when none is left, the next
//   request waits for the reset (an instant kept in the cursor). 429s are handled by http.ts (which reads the reset).
// - Errors in words: 401 (the token is wrong or revoked), 403 (the app lacks access to this endpoint), 400 (X's
//   reason for refusing the query).
// The bearer token goes in the Authorization header only; no note, error or refused item carries it.
import type { SourceParams } from '@contract/scraping';
import {
  CredentialProblem,
  httpGet,
  jsonBody,
  PermanentError,
  RateLimitedError,
  type HttpResponse,
} from './http';
import {
  countOf,
  credentialOf,
  objectOf,
  rawOf,
  stringOf,
  type CollectedItem,
  type Connector,
  type ConnectorContext,
  type CredentialTest,
  withoutEmpty,
} from './types';

type SearchParams = Extract<SourceParams, { source: 'x_search' }>;

interface XCursor {
  /** Posts newer than this id only (the newest of the previous run), and when it was posted. */
  since_id?: string;
  since_at?: string;
  /** The next page. */
  next?: string;
  /** The newest post seen in this run, and when it was posted. */
  top_id?: string;
  top_at?: string;
  /** Asked from this instant (the 7-day window's start) rather than since_id. */
  start_time?: string;
  /** Not before this instant (ms): the rate-limit window was used up. */
  wait_until?: number;
}

const PAGE_SIZE = 100;
const WINDOW_MS = 7 * 86_400_000;
/** Asked from a little after the window's start, so that X's own clock does not find it older than 7 days. */
const WINDOW_MARGIN_MS = 5 * 60_000;

const TWEET_FIELDS = [
  'created_at',
  'public_metrics',
  'lang',
  'author_id',
  'conversation_id',
  'in_reply_to_user_id',
  'referenced_tweets',
  'entities',
  'attachments',
  'edit_history_tweet_ids',
].join(',');
const USER_FIELDS = [
  'username',
  'name',
  'public_metrics',
  'verified',
  'profile_image_url',
  'description',
].join(',');

/** X's language codes that are not languages (undetermined, media only, hashtags only, …). */
const NOT_LANGUAGES = new Set(['und', 'qme', 'qht', 'qam', 'qct', 'qst', 'zxx', 'art']);

/** Snowflake ids: compare by length, then as text. */
const newer = (a: string, b: string | undefined) =>
  b === undefined || a.length > b.length || (a.length === b.length && a > b);

function translate(error: unknown): unknown {
  if (!(error instanceof PermanentError) || !error.answer) return error;
  const { status, body } = error.answer;
  let problem: Record<string, unknown> | undefined;
  try {
    problem = objectOf(JSON.parse(body));
  } catch {
    problem = undefined;
  }
  const detail = stringOf(problem?.detail);
  const reason = stringOf(problem?.reason);
  if (status === 401)
    return new CredentialProblem('X refused the bearer token (401): it is wrong or was revoked.');
  if (status === 403) {
    return new CredentialProblem(
      reason === 'client-not-enrolled'
        ? 'X refused the app (403 client-not-enrolled): its keys must belong to an App in a Project with access to the v2 recent search endpoint.'
        : `X refused access (403${reason ? ` ${reason}` : ''})${detail ? `: ${detail}` : '.'}`,
    );
  }
  if (status === 400) {
    const first = objectOf(Array.isArray(problem?.errors) ? problem.errors[0] : undefined);
    return new PermanentError(
      `X refused the request (400): ${stringOf(first?.message) ?? detail ?? 'invalid request'}`,
    );
  }
  return error;
}

async function search(context: ConnectorContext, query: Record<string, string>): Promise<HttpResponse> {
  const url = new URL(`${context.urls.x.replace(/\/$/, '')}/tweets/search/recent`);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  try {
    return await httpGet(url.toString(), {
      ...context.http,
      signal: context.signal,
      headers: { authorization: `Bearer ${credentialOf(context).bearer_token ?? ''}` },
    });
  } catch (error) {
    throw translate(error);
  }
}

/** When the rate-limit window is used up: the instant it opens again (ms). */
function exhausted(response: HttpResponse): number | undefined {
  const remaining = response.headers.get('x-rate-limit-remaining');
  const reset = Number(response.headers.get('x-rate-limit-reset'));
  if (remaining === null || Number(remaining) > 0) return undefined;
  return Number.isFinite(reset) && reset > 0 ? reset * 1000 : Date.now() + 15 * 60_000;
}

function mediaOf(post: Record<string, unknown>, media: Map<string, string>, hasLinks: boolean) {
  const keys = objectOf(post.attachments)?.media_keys;
  const types = (Array.isArray(keys) ? keys : []).map((k) => media.get(String(k)));
  if (types.some((t) => t === 'video' || t === 'animated_gif')) return 'video';
  if (types.includes('photo')) return 'image';
  return hasLinks ? 'link' : 'text';
}

function mapPost(
  value: unknown,
  users: Map<string, Record<string, unknown>>,
  media: Map<string, string>,
): CollectedItem {
  const post = objectOf(value);
  const raw = rawOf(value);
  const id = stringOf(post?.id);
  const ref = id ?? '(no id)';
  if (!post || !id) return { ref, reason: 'not a post (no id)', raw };
  const user = users.get(stringOf(post.author_id) ?? '');
  if (!user) return { ref, reason: "the post's author is not in the answer's includes.users", raw };
  if (typeof post.text !== 'string') return { ref, reason: 'the post has no text', raw };
  const username = stringOf(user.username);
  const history = Array.isArray(post.edit_history_tweet_ids) ? post.edit_history_tweet_ids : [];
  const original = stringOf(history[0]) ?? id;
  const types = (Array.isArray(post.referenced_tweets) ? post.referenced_tweets : []).map((r) =>
    stringOf(objectOf(r)?.type),
  );
  const entities = objectOf(post.entities);
  const list = (key: string) =>
    Array.isArray(entities?.[key]) ? (entities[key] as unknown[]).map(objectOf) : [];
  const hosts = list('urls')
    .map((u) => URL.parse(stringOf(u?.expanded_url) ?? stringOf(u?.unwound_url) ?? '')?.hostname)
    .filter((h): h is string => Boolean(h));
  const metrics = objectOf(post.public_metrics);
  const userMetrics = objectOf(user.public_metrics);
  const shares =
    countOf(metrics?.retweet_count) === undefined
      ? undefined
      : countOf(metrics?.retweet_count)! + (countOf(metrics?.quote_count) ?? 0);
  const lang = stringOf(post.lang);
  return {
    ref: username ? `https://x.com/${username}/status/${id}` : ref,
    raw,
    row: withoutEmpty({
      platform: 'x',
      external_id: original,
      author_external_id: stringOf(user.id),
      author_handle: username,
      author_display_name: stringOf(user.name) || undefined,
      author_followers: countOf(userMetrics?.followers_count),
      author_following: countOf(userMetrics?.following_count),
      author_verified: typeof user.verified === 'boolean' ? user.verified : undefined,
      author_bio: stringOf(user.description)?.slice(0, 2_000) || undefined,
      author_avatar_url: stringOf(user.profile_image_url),
      text: post.text,
      language: lang && !NOT_LANGUAGES.has(lang) && /^[a-z]{2,3}$/.test(lang) ? lang : undefined,
      posted_at: stringOf(post.created_at),
      kind: types.includes('retweeted')
        ? 'repost'
        : types.includes('replied_to')
          ? 'reply'
          : types.includes('quoted')
            ? 'quote'
            : 'original',
      media: mediaOf(post, media, hosts.length > 0),
      likes: countOf(metrics?.like_count),
      comments: countOf(metrics?.reply_count),
      shares,
      views: countOf(metrics?.impression_count),
      url: username ? `https://x.com/${username}/status/${id}` : undefined,
      hashtags: list('hashtags')
        .map((h) => stringOf(h?.tag))
        .filter(Boolean),
      mentions: list('mentions')
        .map((m) => stringOf(m?.username))
        .filter(Boolean),
      ...(hosts.length > 0 && { domains: hosts }),
    }),
  };
}

export const xSearch: Connector<SearchParams> = {
  async fetchPage(params, cursor, context) {
    const state = (cursor ?? {}) as XCursor;
    if (state.wait_until && state.wait_until > Date.now()) {
      throw new RateLimitedError(
        state.wait_until - Date.now(),
        `X's rate-limit window is used up; it resets in ${Math.ceil((state.wait_until - Date.now()) / 1000)} s`,
      );
    }
    // The previous run's newest post fell out of the 7-day window: since_id would be refused.
    const stale =
      state.since_at !== undefined && Date.parse(state.since_at) < Date.now() - WINDOW_MS + WINDOW_MARGIN_MS;
    const startTime =
      state.start_time ??
      (stale ? new Date(Date.now() - WINDOW_MS + WINDOW_MARGIN_MS).toISOString() : undefined);
    const response = await search(context, {
      query: params.query,
      max_results: String(PAGE_SIZE),
      sort_order: 'recency',
      'tweet.fields': TWEET_FIELDS,
      expansions: 'author_id,attachments.media_keys',
      'user.fields': USER_FIELDS,
      'media.fields': 'type',
      ...(startTime ? { start_time: startTime } : state.since_id ? { since_id: state.since_id } : {}),
      ...(state.next && { next_token: state.next }),
    });
    const body = objectOf(jsonBody(response));
    const meta = objectOf(body?.meta);
    if (!body || !meta) throw new PermanentError('X: expected { data, includes, meta }');
    const posts = Array.isArray(body.data) ? body.data : [];
    const includes = objectOf(body.includes);
    const users = new Map(
      (Array.isArray(includes?.users) ? includes.users : [])
        .map(objectOf)
        .filter((u): u is Record<string, unknown> => Boolean(stringOf(u?.id)))
        .map((u) => [stringOf(u.id)!, u]),
    );
    const media = new Map(
      (Array.isArray(includes?.media) ? includes.media : [])
        .map(objectOf)
        .map((m) => [stringOf(m?.media_key) ?? '', stringOf(m?.type) ?? '']),
    );
    let topId = state.top_id;
    let topAt = state.top_at;
    for (const post of posts.map(objectOf)) {
      const id = stringOf(post?.id);
      if (id && newer(id, topId)) {
        topId = id;
        topAt = stringOf(post?.created_at) ?? topAt;
      }
    }
    const partial = Array.isArray(body.errors) ? body.errors.length : 0;
    const next = stringOf(meta.next_token);
    const done = posts.length === 0 || !next;
    const wait = exhausted(response);
    const note =
      `search "${params.query}"${startTime && !state.next ? ' from 7 days ago (the last post seen is older than the window)' : ''}` +
      `${state.next ? ' (next page)' : ''}: ${posts.length} posts` +
      (partial > 0 ? `, ${partial} partial errors (withheld or deleted referenced posts)` : '');
    const since = topId ? { since_id: topId, ...(topAt && { since_at: topAt }) } : pick(state);
    return {
      items: posts.map((post) => mapPost(post, users, media)),
      note,
      done,
      cursor: done
        ? { ...since, ...(wait && { wait_until: wait }) }
        : {
            ...pick(state),
            ...(startTime && { start_time: startTime }),
            next,
            ...(topId && { top_id: topId }),
            ...(topAt && { top_at: topAt }),
            ...(wait && { wait_until: wait }),
          },
    };
  },
  finish(cursor) {
    const c = (cursor ?? {}) as XCursor;
    return c.top_id ? { since_id: c.top_id, ...(c.top_at && { since_at: c.top_at }) } : pick(c);
  },
};

const pick = (c: XCursor) => ({
  ...(c.since_id && { since_id: c.since_id }),
  ...(c.since_at && { since_at: c.since_at }),
});

/** Test connection: the project's monthly post usage (GET /2/usage/tweets), which reads no posts. */
export const xTest: CredentialTest = async (secret, context) => {
  let response: HttpResponse;
  try {
    response = await httpGet(`${context.urls.x.replace(/\/$/, '')}/usage/tweets`, {
      ...context.http,
      signal: context.signal,
      headers: { authorization: `Bearer ${secret.bearer_token ?? ''}` },
    });
  } catch (error) {
    throw translate(error);
  }
  const data = objectOf(objectOf(jsonBody(response))?.data);
  const used = stringOf(data?.project_usage) ?? String(data?.project_usage ?? '');
  const cap = stringOf(data?.project_cap) ?? String(data?.project_cap ?? '');
  const reset = data?.cap_reset_day;
  return (
    'The bearer token works' +
    (used && cap
      ? `; this month the project has read ${Number(used).toLocaleString('en-US')} of ${Number(cap).toLocaleString('en-US')} posts`
      : '') +
    (typeof reset === 'number' ? ` (the cap resets on day ${reset})` : '') +
    '.'
  );
};
