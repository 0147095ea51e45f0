// Reddit through its official API with an application's client credentials (application-only OAuth2:
// https://github.com/reddit-archive/reddit/wiki/OAuth2, API reference https://www.reddit.com/dev/api).
//
// - Token: POST {SCRAPING_REDDIT_AUTH_URL}/api/v1/access_token, HTTP Basic client_id:client_secret, body
//   grant_type=client_credentials. The bearer token is kept in this process's memory per credentials until shortly
//   before it expires, never written anywhere; a 401 from the API asks for a new one once.
// - Posts: a search (GET /search, or /r/{sub}/search with restrict_sr=1; sort=new, type=link) or a subreddit's new
//   posts (GET /r/{sub}/new), 100 a page (`limit`), paged by the listing's `after` fullname, newest first. A later run
//   stops at posts not newer than the newest the previous run saw (created_utc).
// - Comments: after a page of posts, each post with comments is one child page: GET /comments/{id}?depth=…&sort=new,
//   its replies flattened to the depth asked; "more" stubs (deeper or hidden replies) are counted, not followed. The
//   posts still waiting for their comments are in the cursor, so a crash resumes at the next one.
// - Rate limits: Reddit answers X-Ratelimit-Remaining and X-Ratelimit-Reset (seconds to the window's end); when none
//   is left, the next request waits for the reset (an instant kept in the cursor). 429s are handled by http.ts.
// - Deleted or removed posts and comments ("[deleted]", "[removed]", removed_by_category) leave the corpus; edited
//   ones are upserted by their fullname (t3_…, t1_…).
// Every request sends a User-Agent naming the app and, when given, its Reddit account, as Reddit's API rules ask.
// The mapping of posts and comments to corpus rows is in reddit-map.ts.
import { createHash } from 'node:crypto';
import type { SourceParams } from '@contract/scraping';
import {
  CredentialProblem,
  httpGet,
  httpPost,
  jsonBody,
  PermanentError,
  RateLimitedError,
  type HttpResponse,
} from './http';
import {
  countOf,
  credentialOf,
  objectOf,
  stringOf,
  type CollectedItem,
  type Connector,
  type ConnectorContext,
  type CredentialTest,
  type Page,
} from './types';
import { mapComments, mapPost } from './reddit-map';

type SearchParams = Extract<SourceParams, { source: 'reddit_search' }>;
type SubredditParams = Extract<SourceParams, { source: 'reddit_subreddit' }>;
type RedditParams = SearchParams | SubredditParams;

interface RedditCursor {
  /** Posts created after this Unix second only (the newest of the previous run). */
  since?: number;
  /** The newest created_utc seen in this run. */
  top?: number;
  /** The listing's next page (a fullname). */
  after?: string;
  /** Posts (ids without t3_) whose comments are still to fetch, one child page each. */
  pending?: string[];
  /** The listing has no more pages: the run ends once `pending` is empty. */
  listed?: boolean;
  /** Not before this instant (ms): the rate-limit window was used up. */
  wait_until?: number;
}

const PAGE_SIZE = 100;
/** Comments asked per post (Reddit's most for /comments is 500). */
const COMMENT_LIMIT = 500;
/** How far before the newest post seen a later search run looks again. */
const SEARCH_LOOKBACK_SECONDS = 15 * 60;

const userAgent = (secret: Record<string, string>) =>
  `server:murmur-collector:1.0${secret.username ? ` (by /u/${secret.username.replace(/^\/?u\//, '')})` : ''}`;

// ---- The token ----

const tokens = new Map<string, { token: string; expiresAt: number }>();
/** The cache's key: the credentials' fields, hashed (so new fields get a new token). */
const tokenKey = (secret: Record<string, string>) =>
  createHash('sha256').update(`${secret.client_id}\0${secret.client_secret}`).digest('hex');

async function accessToken(
  secret: Record<string, string>,
  context: Pick<ConnectorContext, 'http' | 'signal' | 'urls'>,
  fresh = false,
): Promise<string> {
  const key = tokenKey(secret);
  const cached = tokens.get(key);
  if (!fresh && cached && cached.expiresAt > Date.now()) return cached.token;
  let response: HttpResponse;
  try {
    response = await httpPost(`${context.urls.redditAuth.replace(/\/$/, '')}/api/v1/access_token`, {
      ...context.http,
      signal: context.signal,
      headers: {
        authorization: `Basic ${Buffer.from(`${secret.client_id}:${secret.client_secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': userAgent(secret),
      },
      body: 'grant_type=client_credentials',
    });
  } catch (error) {
    const status = error instanceof PermanentError ? error.answer?.status : undefined;
    if (status === 401 || status === 403 || status === 400) {
      throw new CredentialProblem(
        `Reddit refused the client id or secret (${status}): check both, and that the app is a “script” or “web” app.`,
      );
    }
    throw error;
  }
  const body = objectOf(jsonBody(response));
  const token = stringOf(body?.access_token);
  if (!token) {
    const reason = stringOf(body?.error) ?? 'no access_token in the answer';
    throw new CredentialProblem(`Reddit gave no access token (${reason}).`);
  }
  const seconds = typeof body?.expires_in === 'number' ? body.expires_in : 3600;
  tokens.set(key, { token, expiresAt: Date.now() + Math.max(60, seconds - 60) * 1000 });
  return token;
}

/** An authenticated GET; a 401 (token expired or revoked) asks for a new token once. */
async function apiGet(path: string, context: ConnectorContext, secret = credentialOf(context)) {
  const url = `${context.urls.reddit.replace(/\/$/, '')}${path}`;
  const get = async (fresh: boolean) =>
    httpGet(url, {
      ...context.http,
      signal: context.signal,
      headers: {
        authorization: `bearer ${await accessToken(secret, context, fresh)}`,
        'user-agent': userAgent(secret),
      },
    });
  try {
    return await get(false);
  } catch (error) {
    const status = error instanceof PermanentError ? error.answer?.status : undefined;
    if (status !== 401) throw error;
    try {
      return await get(true);
    } catch (again) {
      if (again instanceof PermanentError && again.answer?.status === 401) {
        throw new CredentialProblem('Reddit refused the access token it gave for these credentials (401).');
      }
      throw again;
    }
  }
}

/** When the rate-limit window is used up: the instant it opens again (ms), from Reddit's headers. */
function exhausted(response: HttpResponse): number | undefined {
  const remaining = Number(response.headers.get('x-ratelimit-remaining'));
  const reset = Number(response.headers.get('x-ratelimit-reset'));
  if (!response.headers.has('x-ratelimit-remaining') || Number.isNaN(remaining) || remaining >= 1)
    return undefined;
  return Date.now() + (Number.isNaN(reset) ? 60 : reset) * 1000;
}

// ---- Pages ----

const subredditOf = (name: string) => name.replace(/^\/?r\//, '');

function listingPath(params: RedditParams, after: string | undefined): string {
  const query = new URLSearchParams({ limit: String(PAGE_SIZE), raw_json: '1' });
  if (after) query.set('after', after);
  if (params.source === 'reddit_subreddit') return `/r/${subredditOf(params.subreddit)}/new?${query}`;
  query.set('q', params.query);
  query.set('sort', 'new');
  query.set('type', 'link');
  if (!params.subreddit) return `/search?${query}`;
  query.set('restrict_sr', '1');
  return `/r/${subredditOf(params.subreddit)}/search?${query}`;
}

const describe = (params: RedditParams) =>
  params.source === 'reddit_subreddit'
    ? `r/${subredditOf(params.subreddit)} new`
    : `search "${params.query}"${params.subreddit ? ` in r/${subredditOf(params.subreddit)}` : ''}`;

/** What a page of a listing answers, or a PermanentError in words. */
async function listing(params: RedditParams, cursor: RedditCursor, context: ConnectorContext) {
  try {
    return await apiGet(listingPath(params, cursor.after), context);
  } catch (error) {
    const status =
      error instanceof PermanentError && !(error instanceof CredentialProblem)
        ? error.answer?.status
        : undefined;
    const where = params.subreddit ? `r/${subredditOf(params.subreddit)}` : 'Reddit';
    if (status === 403) throw new PermanentError(`${where} is private, quarantined or banned (403).`);
    if (status === 404) throw new PermanentError(`${where} was not found (404).`);
    throw error;
  }
}

async function postsPage(
  params: RedditParams,
  cursor: RedditCursor,
  context: ConnectorContext,
): Promise<Page> {
  const response = await listing(params, cursor, context);
  const data = objectOf(objectOf(jsonBody(response))?.data);
  if (!data || !Array.isArray(data.children)) throw new PermanentError('Reddit: expected a Listing of posts');
  let top = cursor.top;
  let reachedOld = false;
  const fresh: unknown[] = [];
  // Search's index can take minutes to list a new post: a later search run looks back a little before the newest
  // post it saw (those seen again are unchanged); a subreddit's new posts are listed at once.
  const lookback = params.source === 'reddit_search' ? SEARCH_LOOKBACK_SECONDS : 0;
  for (const child of data.children) {
    const created = objectOf(objectOf(child)?.data)?.created_utc;
    if (typeof created === 'number' && cursor.since !== undefined && created <= cursor.since - lookback) {
      reachedOld = true;
      continue;
    }
    if (typeof created === 'number' && (top === undefined || created > top)) top = created;
    fresh.push(child);
  }
  const items = fresh.map(mapPost);
  const next = stringOf(data.after);
  const listed = !next || data.children.length === 0 || reachedOld;
  const pending =
    params.comment_depth > 0
      ? fresh
          .map((child) => objectOf(objectOf(child)?.data))
          .filter((post) => (countOf(post?.num_comments) ?? 0) > 0 && stringOf(post?.id))
          .map((post) => stringOf(post!.id)!)
      : [];
  const wait = exhausted(response);
  const note =
    `${describe(params)}${cursor.after ? ` after ${cursor.after}` : ''}: ${data.children.length} posts` +
    (reachedOld ? ` (${data.children.length - fresh.length} seen before)` : '') +
    (pending.length > 0 ? `; comments of ${pending.length} next` : '');
  const done = listed && pending.length === 0;
  return {
    items,
    note,
    done,
    cursor: done
      ? { since: top ?? cursor.since, ...(wait && { wait_until: wait }) }
      : {
          since: cursor.since,
          ...(top !== undefined && { top }),
          ...(next && !listed && { after: next }),
          ...(pending.length > 0 && { pending }),
          ...(listed && { listed: true }),
          ...(wait && { wait_until: wait }),
        },
  };
}

async function commentsPage(
  params: RedditParams,
  cursor: RedditCursor,
  context: ConnectorContext,
): Promise<Page> {
  const [postId, ...rest] = cursor.pending!;
  const query = new URLSearchParams({
    depth: String(params.comment_depth),
    limit: String(COMMENT_LIMIT),
    sort: 'new',
    raw_json: '1',
  });
  let items: CollectedItem[] = [];
  const more = { count: 0 };
  let note: string;
  let wait: number | undefined;
  try {
    const response = await apiGet(`/comments/${encodeURIComponent(postId!)}?${query}`, context);
    wait = exhausted(response);
    const body = jsonBody(response);
    const comments = Array.isArray(body) ? objectOf(objectOf(body[1])?.data)?.children : undefined;
    if (!Array.isArray(comments)) throw new PermanentError('Reddit: expected [post, comments] Listings');
    mapComments(comments, items, more);
    note = `comments of t3_${postId}: ${items.length}${more.count > 0 ? ` (${more.count} more not followed)` : ''}`;
  } catch (error) {
    // A post deleted meanwhile has no comments page: its comments are skipped, not the run.
    if (
      !(error instanceof PermanentError) ||
      error instanceof CredentialProblem ||
      error.answer?.status !== 404
    )
      throw error;
    items = [];
    note = `comments of t3_${postId}: the post is gone (404)`;
  }
  const done = rest.length === 0 && cursor.listed === true;
  const base = { since: cursor.since, ...(cursor.top !== undefined && { top: cursor.top }) };
  return {
    items,
    note,
    child: true,
    done,
    cursor: done
      ? { since: cursor.top ?? cursor.since, ...(wait && { wait_until: wait }) }
      : {
          ...base,
          ...(cursor.after && { after: cursor.after }),
          ...(rest.length > 0 && { pending: rest }),
          ...(cursor.listed && { listed: true }),
          ...(wait && { wait_until: wait }),
        },
  };
}

function redditConnector<P extends RedditParams>(): Connector<P> {
  return {
    async fetchPage(params, cursor, context) {
      const state = (cursor ?? {}) as RedditCursor;
      if (state.wait_until && state.wait_until > Date.now()) {
        throw new RateLimitedError(
          state.wait_until - Date.now(),
          `Reddit's rate-limit window is used up; it resets in ${Math.ceil((state.wait_until - Date.now()) / 1000)} s`,
        );
      }
      return state.pending?.length ? commentsPage(params, state, context) : postsPage(params, state, context);
    },
    finish(cursor) {
      const c = (cursor ?? {}) as RedditCursor;
      return { since: c.top ?? c.since };
    },
    childrenPending(cursor) {
      return ((cursor as RedditCursor | null)?.pending?.length ?? 0) > 0;
    },
  };
}

export const redditSearch = redditConnector<SearchParams>();
export const redditSubreddit = redditConnector<SubredditParams>();

/** Test connection: a token, then the newest post of r/popular. */
export const redditTest: CredentialTest = async (secret, context) => {
  let response: HttpResponse;
  try {
    response = await apiGet(
      '/r/popular/new?limit=1&raw_json=1',
      { ...context, credential: { id: 'test', secret } },
      secret,
    );
  } catch (error) {
    const status =
      error instanceof PermanentError && !(error instanceof CredentialProblem)
        ? error.answer?.status
        : undefined;
    if (status === 403)
      throw new CredentialProblem('Reddit gave a token but refuses these credentials its API (403).');
    if (status === 404) {
      throw new PermanentError(
        'Reddit answered 404 for r/popular: is SCRAPING_REDDIT_URL the OAuth API (https://oauth.reddit.com)?',
      );
    }
    throw error;
  }
  const remaining = response.headers.get('x-ratelimit-remaining');
  const reset = response.headers.get('x-ratelimit-reset');
  return (
    'Reddit accepted the client id and secret' +
    (remaining ? `; ${Math.floor(Number(remaining))} requests left in this window` : '') +
    (reset ? ` (it resets in ${reset} s)` : '') +
    '.'
  );
};
