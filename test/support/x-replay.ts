// A local stand-in for X API v2 (https://docs.x.com/x-api/posts/search-recent-posts) over in-memory posts and users,
// answering as the API does for an app's bearer token: GET /tweets/search/recent (query words and `a OR b`, since_id,
// start_time, max_results, next_token; newest first; `data`, `includes.users`, `includes.media`, `meta` with
// newest_id, oldest_id, result_count, next_token), each answer with x-rate-limit-limit / -remaining / -reset; GET
// /usage/tweets. A wrong token is X's 401 problem; a since_id older than 7 days its 400. Posts are shaped like
// test/fixtures/scraping/x-search-recent.json.
import type { Reply, Route } from './replay-server';

export interface XPost {
  id: string;
  text: string;
  author_id: string;
  created_at: string;
  lang?: string;
  edit_history_tweet_ids?: string[];
  referenced_tweets?: { type: string; id: string }[];
  public_metrics?: Record<string, number>;
  entities?: Record<string, unknown>;
  attachments?: { media_keys: string[] };
  [field: string]: unknown;
}

/** `count` posts by a few users, newest first from `newest` (ms), a minute apart; ids count down from `top`. */
export function xPosts(
  count: number,
  { newest = Date.now() - 3_600_000, top = 1_860_000_000_000_000_000n } = {},
) {
  return Array.from({ length: count }, (_, i): XPost => {
    const id = String(top - BigInt(i));
    return {
      id,
      text: `Lovely flat white this morning at the corner café #coffee (${i})`,
      author_id: String(1000 + (i % 7)),
      created_at: new Date(newest - i * 60_000).toISOString(),
      lang: i % 5 === 4 ? 'und' : 'en',
      edit_history_tweet_ids: [id],
      conversation_id: id,
      public_metrics: {
        retweet_count: i % 4,
        reply_count: i % 3,
        like_count: 10 + i,
        quote_count: i % 2,
        bookmark_count: 0,
        impression_count: 500 + i,
      },
      entities: { hashtags: [{ start: 48, end: 55, tag: 'coffee' }] },
    };
  });
}

const xUser = (id: string) => ({
  id,
  name: `Coffee Person ${id}`,
  username: `coffee_${id}`,
  verified: id === '1000',
  description: 'Drinks coffee, writes about it.',
  profile_image_url: `https://pbs.twimg.example/profile_images/${id}/normal.jpg`,
  public_metrics: {
    followers_count: Number(id) * 3,
    following_count: 120,
    tweet_count: 4_000,
    listed_count: 2,
  },
});

export interface XSource {
  posts: XPost[];
  token: string;
  /** Requests left in the window, sent as x-rate-limit-remaining (counting down to 0). */
  remaining: number;
  routes: Record<string, Route>;
}

const problem = (status: number, body: Record<string, unknown>): Reply => ({
  status,
  headers: { 'content-type': 'application/problem+json' },
  body: JSON.stringify(body),
});

export function xReplay(
  posts: XPost[],
  options: {
    token?: string;
    remaining?: number;
    resetInSeconds?: number;
    before?: (url: URL, count: number) => Reply | undefined;
    delayMs?: number;
  } = {},
): XSource {
  let count = 0;
  const source: XSource = {
    posts,
    token: options.token ?? 'AAAAMurmurBearer',
    remaining: options.remaining ?? 450,
    routes: {},
  };
  const authorised = (request: { headers: Record<string, string | string[] | undefined> }) =>
    request.headers.authorization === `Bearer ${source.token}`;
  const unauthorised = problem(401, {
    title: 'Unauthorized',
    type: 'about:blank',
    status: 401,
    detail: 'Unauthorized',
  });
  const limits = () => {
    source.remaining = Math.max(0, source.remaining - 1);
    return {
      'x-rate-limit-limit': '450',
      'x-rate-limit-remaining': String(source.remaining),
      'x-rate-limit-reset': String(Math.floor(Date.now() / 1000) + (options.resetInSeconds ?? 900)),
    };
  };
  const older = (a: string, b: string) => BigInt(a) < BigInt(b);
  source.routes['/tweets/search/recent'] = (url, _count, request) => {
    count += 1;
    const early = options.before?.(url, count);
    if (early) return early;
    if (!authorised(request)) return unauthorised;
    const sinceId = url.searchParams.get('since_id');
    const startTime = url.searchParams.get('start_time');
    const weekAgo = Date.now() - 7 * 86_400_000;
    if (startTime && Date.parse(startTime) < weekAgo) {
      return problem(400, {
        errors: [
          {
            parameters: { start_time: [startTime] },
            message: `Invalid 'start_time':'${startTime}'. 'start_time' must be on or after ${new Date(weekAgo).toISOString()}`,
          },
        ],
        title: 'Invalid Request',
        detail: 'One or more parameters to your request was invalid.',
        type: 'https://api.twitter.com/2/problems/invalid-request',
      });
    }
    // `a OR b` is either; each side's words (quotes dropped, -excluded ones ignored) are all required.
    const either = (url.searchParams.get('query') ?? '').split(' OR ').map((side) =>
      side
        .toLowerCase()
        .replaceAll('"', '')
        .split(/\s+/)
        .filter((w) => w && !w.startsWith('-')),
    );
    const found = source.posts
      .filter(
        (p) =>
          either.some((words) => words.every((w) => p.text.toLowerCase().includes(w))) &&
          Date.parse(p.created_at) >= weekAgo &&
          (!sinceId || older(sinceId, p.id)) &&
          (!startTime || Date.parse(p.created_at) >= Date.parse(startTime)),
      )
      .sort((a, b) => (older(a.id, b.id) ? 1 : -1));
    const max = Math.min(100, Number(url.searchParams.get('max_results') ?? 10));
    const start = Number(url.searchParams.get('next_token')?.replace('b26v89c19zqg8o3f', '') || 0);
    const page = found.slice(start, start + max);
    const next = start + max < found.length ? `b26v89c19zqg8o3f${start + max}` : undefined;
    const authors = [...new Set(page.map((p) => p.author_id))];
    const body =
      page.length === 0
        ? { meta: { result_count: 0 } }
        : {
            data: page,
            includes: { users: authors.map(xUser) },
            meta: {
              newest_id: page[0]!.id,
              oldest_id: page.at(-1)!.id,
              result_count: page.length,
              ...(next && { next_token: next }),
            },
          };
    return {
      body: JSON.stringify(body),
      headers: limits(),
      ...(options.delayMs && { delayMs: options.delayMs }),
    };
  };
  source.routes['/usage/tweets'] = (_url, _count, request) => {
    if (!authorised(request)) return unauthorised;
    return {
      body: JSON.stringify({
        data: {
          cap_reset_day: 19,
          project_id: '1650000000000000000',
          project_cap: '10000',
          project_usage: '1234',
        },
      }),
      headers: limits(),
    };
  };
  return source;
}
