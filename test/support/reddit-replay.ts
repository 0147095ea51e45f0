// A local stand-in for Reddit's API (https://www.reddit.com/dev/api) over in-memory posts and comments, answering as
// Reddit does for an application-only client: POST /api/v1/access_token (HTTP Basic client id and secret →
// {access_token, token_type, expires_in, scope}, 401 for wrong ones), and with `Authorization: bearer <token>`
// GET /r/{sub}/new, /search and /r/{sub}/search (Listings of t3 things, newest first, `limit` and `after` paging) and
// /comments/{id} ([the post's Listing, its comments' Listing] with nested `replies` to `depth`, "more" stubs beyond),
// each with X-Ratelimit-Used / -Remaining / -Reset headers. Things are shaped like
// test/fixtures/scraping/reddit-*.json.
import type { Reply, Route } from './replay-server';

export interface RedditPost {
  id: string;
  subreddit: string;
  title: string;
  selftext: string;
  author: string;
  created_utc: number;
  score: number;
  num_comments: number;
  url?: string;
  domain?: string;
  is_self?: boolean;
  removed_by_category?: string | null;
  [field: string]: unknown;
}

export interface RedditComment {
  id: string;
  link_id: string;
  parent_id: string;
  author: string;
  body: string;
  created_utc: number;
  score: number;
  [field: string]: unknown;
}

export interface RedditSource {
  posts: RedditPost[];
  comments: RedditComment[];
  credentials: { client_id: string; client_secret: string };
  /** Requests remaining in the window, sent as X-Ratelimit-Remaining (counting down). */
  remaining: number;
  tokensIssued: number;
  routes: Record<string, Route>;
  /** Reddit revokes the tokens it issued: the next API call is a 401. */
  revoke(): void;
  /** Routes for posts added since (their comments pages). */
  refresh(): Record<string, Route>;
}

const thing = (kind: 't1' | 't3', data: Record<string, unknown>) => ({ kind, data });
const listing = (children: unknown[], after: string | null) => ({
  kind: 'Listing',
  data: { after, dist: children.length, modhash: '', geo_filter: '', children, before: null },
});

function postThing(post: RedditPost) {
  const isSelf = post.is_self ?? !post.url;
  return thing('t3', {
    approved_at_utc: null,
    subreddit: post.subreddit,
    selftext: post.selftext,
    author_fullname: post.author === '[deleted]' ? undefined : `t2_${post.author.toLowerCase()}`,
    title: post.title,
    subreddit_name_prefixed: `r/${post.subreddit}`,
    name: `t3_${post.id}`,
    score: post.score,
    ups: post.score,
    domain: post.domain ?? (isSelf ? `self.${post.subreddit}` : 'example.com'),
    is_self: isSelf,
    is_video: false,
    post_hint: isSelf ? 'self' : 'link',
    over_18: false,
    removed_by_category: post.removed_by_category ?? null,
    id: post.id,
    author: post.author,
    num_comments: post.num_comments,
    permalink: `/r/${post.subreddit}/comments/${post.id}/post_${post.id}/`,
    url: post.url ?? `https://www.reddit.com/r/${post.subreddit}/comments/${post.id}/post_${post.id}/`,
    created_utc: post.created_utc,
    edited: false,
  });
}

function commentThing(
  comment: RedditComment,
  all: RedditComment[],
  depth: number,
  maxDepth: number,
): unknown {
  const children = all.filter((c) => c.parent_id === `t1_${comment.id}`);
  const replies =
    children.length === 0
      ? ''
      : depth + 1 >= maxDepth
        ? listing(
            [
              {
                kind: 'more',
                data: {
                  count: children.length,
                  name: `t1_${children[0]!.id}`,
                  id: children[0]!.id,
                  parent_id: `t1_${comment.id}`,
                  depth: depth + 1,
                  children: children.map((c) => c.id),
                },
              },
            ],
            null,
          )
        : listing(
            children.map((c) => commentThing(c, all, depth + 1, maxDepth)),
            null,
          );
  const post = comment.link_id.replace(/^t3_/, '');
  return thing('t1', {
    subreddit_id: 't5_2qh1i',
    link_id: comment.link_id,
    replies,
    id: comment.id,
    author: comment.author,
    author_fullname: comment.author === '[deleted]' ? undefined : `t2_${comment.author.toLowerCase()}`,
    parent_id: comment.parent_id,
    score: comment.score,
    body: comment.body,
    body_html: `&lt;div class="md"&gt;&lt;p&gt;${comment.body}&lt;/p&gt;&lt;/div&gt;`,
    name: `t1_${comment.id}`,
    permalink: `/r/coffee/comments/${post}/post_${post}/${comment.id}/`,
    created_utc: comment.created_utc,
    depth,
  });
}

/** `count` posts in r/{subreddit}, newest first from `newest` (Unix seconds), a minute apart, ids `p…`. */
export function redditPosts(
  count: number,
  { subreddit = 'coffee', newest = 1_767_225_600, prefix = 'p', commentsEvery = 0 } = {},
): RedditPost[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `${prefix}${String(count - i).padStart(5, '0')}`,
    subreddit,
    title: `My pour-over this morning was wonderful, cup ${count - i}`,
    selftext: i % 2 === 0 ? `Light roast, 15 g to 250 g of water. Lovely and sweet, cup ${count - i}.` : '',
    author: `brewer_${i % 13}`,
    created_utc: newest - i * 60,
    score: (i * 11) % 500,
    num_comments: commentsEvery > 0 && i % commentsEvery === 0 ? 2 : 0,
    ...(i % 4 === 3 && {
      url: `https://beans${i % 3}.example.org/article/${i}`,
      domain: `beans${i % 3}.example.org`,
      is_self: false,
    }),
  }));
}

/** Two comments (one a reply to the other) under each post that says it has comments. */
export function redditComments(posts: RedditPost[]): RedditComment[] {
  return posts
    .filter((p) => p.num_comments > 0)
    .flatMap((p) => [
      {
        id: `c${p.id}a`,
        link_id: `t3_${p.id}`,
        parent_id: `t3_${p.id}`,
        author: 'roaster_rita',
        body: `That cup sounds great. What grinder do you use for ${p.id}?`,
        created_utc: p.created_utc + 30,
        score: 4,
      },
      {
        id: `c${p.id}b`,
        link_id: `t3_${p.id}`,
        parent_id: `t1_c${p.id}a`,
        author: 'brewer_0',
        body: 'A hand grinder, nothing fancy, but it makes a lovely difference.',
        created_utc: p.created_utc + 90,
        score: 2,
      },
    ]);
}

/**
 * The routes of a Reddit stand-in over `posts` and `comments`. `before(url, count)` may answer a request of the API
 * instead (a 429, a hang, a 500); `delayMs` slows every API answer.
 */
export function redditReplay(
  posts: RedditPost[],
  comments: RedditComment[],
  options: {
    credentials?: { client_id: string; client_secret: string };
    before?: (url: URL, count: number) => Reply | undefined;
    delayMs?: number;
    remaining?: number;
    resetSeconds?: number;
  } = {},
): RedditSource {
  let count = 0;
  const issued = new Set<string>();
  const source: RedditSource = {
    posts,
    comments,
    credentials: options.credentials ?? { client_id: 'murmur-app-id', client_secret: 'murmur-app-secret' },
    remaining: options.remaining ?? 600,
    tokensIssued: 0,
    routes: {},
    revoke: () => issued.clear(),
    refresh: () => {
      addRoutes();
      return source.routes;
    },
  };
  const headers = () => {
    source.remaining = Math.max(0, source.remaining - 1);
    return {
      'x-ratelimit-used': String(600 - source.remaining),
      'x-ratelimit-remaining': `${source.remaining}.0`,
      'x-ratelimit-reset': String(options.resetSeconds ?? 300),
    };
  };
  const authorised = (request: { headers: Record<string, string | string[] | undefined> }) => {
    const header = String(request.headers.authorization ?? '');
    return header.startsWith('bearer ') && issued.has(header.slice(7));
  };
  const api =
    (answer: (url: URL) => unknown): Route =>
    (url, _count, request) => {
      count += 1;
      const early = options.before?.(url, count);
      if (early) return early;
      if (!authorised(request)) return { status: 401, body: '{"message": "Unauthorized", "error": 401}' };
      const body = answer(url);
      if (body === undefined) return { status: 404, body: '{"message": "Not Found", "error": 404}' };
      return {
        body: JSON.stringify(body),
        headers: headers(),
        ...(options.delayMs && { delayMs: options.delayMs }),
      };
    };
  const page = (found: RedditPost[], url: URL) => {
    const sorted = [...found].sort((a, b) => b.created_utc - a.created_utc);
    const limit = Math.min(100, Number(url.searchParams.get('limit') ?? 25));
    const after = url.searchParams.get('after');
    const start = after ? sorted.findIndex((p) => `t3_${p.id}` === after) + 1 : 0;
    const slice = sorted.slice(start, start + limit);
    const more = start + limit < sorted.length;
    return listing(slice.map(postThing), more ? `t3_${slice.at(-1)!.id}` : null);
  };
  const search = (url: URL, subreddit?: string) => {
    const words = (url.searchParams.get('q') ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    return page(
      source.posts.filter(
        (p) =>
          (!subreddit || p.subreddit.toLowerCase() === subreddit.toLowerCase()) &&
          words.every((w) => `${p.title} ${p.selftext}`.toLowerCase().includes(w)),
      ),
      url,
    );
  };
  source.routes['/api/v1/access_token'] = (_url, _count, request) => {
    const expected = Buffer.from(
      `${source.credentials.client_id}:${source.credentials.client_secret}`,
    ).toString('base64');
    if (request.headers.authorization !== `Basic ${expected}`)
      return { status: 401, body: '{"message": "Unauthorized", "error": 401}' };
    source.tokensIssued += 1;
    const token = `token-${source.tokensIssued}`;
    issued.add(token);
    return {
      body: JSON.stringify({ access_token: token, token_type: 'bearer', expires_in: 86400, scope: '*' }),
    };
  };
  source.routes['/search'] = api((url) => search(url));
  source.routes['/r/popular/new'] = api((url) => page(source.posts.slice(0, 1), url));
  const addRoutes = () => {
    for (const subreddit of new Set(source.posts.map((p) => p.subreddit))) {
      source.routes[`/r/${subreddit}/new`] ??= api((url) =>
        page(
          source.posts.filter((p) => p.subreddit === subreddit),
          url,
        ),
      );
      source.routes[`/r/${subreddit}/search`] ??= api((url) => search(url, subreddit));
    }
    for (const post of source.posts) addCommentsRoute(post);
  };
  const addCommentsRoute = (post: RedditPost) => {
    source.routes[`/comments/${post.id}`] ??= api((url) => {
      const current = source.posts.find((p) => p.id === post.id);
      if (!current) return undefined;
      const depth = Number(url.searchParams.get('depth') ?? 10);
      const top = source.comments.filter((c) => c.parent_id === `t3_${post.id}`);
      return [
        listing([postThing(current)], null),
        listing(
          top.map((c) => commentThing(c, source.comments, 0, depth)),
          null,
        ),
      ];
    });
  };
  addRoutes();
  return source;
}
