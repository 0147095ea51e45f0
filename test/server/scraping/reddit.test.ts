// Reddit (application-only OAuth2) against a local stand-in of its API (test/support/reddit-replay.ts) and recorded
// answers (test/fixtures/scraping/reddit-*.json): the token asked with the client id and secret and never stored;
// posts and comments mapped (comments as replies, removed and deleted things taken out of the corpus, a malformed one
// refused); paging by `after` with each page's comments as child pages outside the page budget; a later run stopping
// at what it saw; edits updated; wrong credentials, a revoked token, the rate-limit headers, a 429, an empty
// subreddit, a time-out and a 500 mid-run resumed from the committed cursor with nothing lost or doubled.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { redditComments, redditPosts, redditReplay, type RedditSource } from '@test/support/reddit-replay';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import { RetryableRunError } from '@server/scraping/runner';
import { startScrapingHarness, type ScrapingHarness } from '@test/support/scraping-runs';
import { fixture, type Reply } from '@test/support/replay-server';

let h: ScrapingHarness;
let credentialId: string;

beforeAll(async () => {
  h = await startScrapingHarness();
  credentialId = await createCredential('murmur-app-id', 'murmur-app-secret');
});
afterAll(() => h.close());
beforeEach(() => h.reset('reddit'));

const createCredential = (client_id: string, client_secret: string) =>
  h.createCredential({
    kind: 'reddit',
    name: `Reddit ${client_id}`,
    secret: { client_id, client_secret, username: 'murmur_bot' },
  });
const serve = (source: RedditSource) => h.serve(source.refresh());
const createJob = (params: Record<string, unknown>, credential = credentialId) =>
  h.createJob('Reddit job', { credential_id: credential, ...params });

const stored = async () =>
  (
    await h.pool.query<{ external_id: string; text: string; kind: string; likes: number; comments: number }>(
      `SELECT external_id, text, kind::text, likes, comments FROM posts WHERE platform = 'reddit' ORDER BY external_id`,
    )
  ).rows;

describe('Reddit', () => {
  it('maps the recorded posts and comments; removed and deleted things leave the corpus, a malformed one is refused', async () => {
    const source = redditReplay([], []);
    serve(source);
    h.replay.routes.set('/r/Coffee/new', (_url, _count, request) =>
      request.headers.authorization === 'bearer token-1'
        ? {
            body: fixture('reddit-subreddit-new.json'),
            headers: { 'x-ratelimit-remaining': '598.0', 'x-ratelimit-reset': '240' },
          }
        : { status: 401, body: '{}' },
    );
    h.replay.routes.set('/comments/1h2abcd', () => ({ body: fixture('reddit-comments.json') }));
    // The removed post was collected before.
    const [author] = await insertProfiles(h.server.db, [
      { platform: 'reddit', externalId: 't2_old', handle: 'seller', displayName: 'Seller' },
    ]);
    await insertPosts(h.server.db, [
      {
        authorId: author!,
        platform: 'reddit',
        externalId: 't3_1h29aaa',
        text: 'Buy my beans',
        postedAt: new Date(),
      },
    ]);

    const runId = await h.run(
      await createJob({ source: 'reddit_subreddit', subreddit: 'r/Coffee', comment_depth: 2 }),
    );
    expect(await h.runRow(runId)).toMatchObject({
      status: 'succeeded',
      pages: 2,
      result_pages: 1,
      fetched: 6,
      inserted: 3,
      refused: 1,
      removed: 1,
    });
    expect(await stored()).toEqual([
      {
        external_id: 't1_m1a2b3c',
        text: 'Try going a touch finer too, it brightens the cup.',
        kind: 'reply',
        likes: 12,
        comments: 0,
      },
      {
        external_id: 't3_1h29xyz',
        text: "The Specialty Coffee Association's new water guide",
        kind: 'original',
        likes: 0,
        comments: 0,
      },
      {
        external_id: 't3_1h2abcd',
        text: 'Pour-over finally clicked for me\n\nSwitched to a 1:16 ratio and the cup is so much sweeter. Anyone else?',
        kind: 'original',
        likes: 231,
        comments: 2,
      },
    ]);
    const { rows } = await h.pool.query<{ url: string; domains: string[]; media: string; handle: string }>(
      `SELECT p.url, p.domains, p.media::text, a.handle FROM posts p JOIN profiles a ON a.id = p.author_id
        WHERE p.platform = 'reddit' AND p.external_id = 't3_1h29xyz'`,
    );
    expect(rows[0]).toEqual({
      url: 'https://www.reddit.com/r/Coffee/comments/1h29xyz/the_specialty_coffee_associations_new_water/',
      domains: ['sca.coffee'],
      media: 'link',
      handle: 'bean_counter',
    });
    const refusals = await h.pool.query('SELECT ref, reason FROM scrape_refusals WHERE run_id = $1', [runId]);
    expect(refusals.rows).toEqual([
      {
        ref: 'https://www.reddit.com/r/Coffee/comments/1h29bbb/a_post_without_its_name/',
        reason: 'not a post (kind t3 with a name)',
      },
    ]);
    const log = await h.logOf(runId);
    expect(log.some((l) => l.startsWith('r/Coffee new: 4 posts; comments of 1 next'))).toBe(true);
    expect(log.some((l) => l.startsWith('comments of t3_1h2abcd: 2 (4 more not followed)'))).toBe(true);
    // The token was asked with HTTP Basic and the app's User-Agent; nothing of the secret reached the log.
    expect(log.join('\n')).not.toContain('murmur-app-secret');
    expect(h.replay.requests.some((r) => r.startsWith('/r/Coffee/new?limit=100&raw_json=1'))).toBe(true);
    expect(h.replay.requests.some((r) => r.startsWith('/comments/1h2abcd?depth=2&limit=500&sort=new'))).toBe(
      true,
    );
  });

  it('pages by `after` with each page’s comments as child pages outside the budget, then a later run stops at what it saw', async () => {
    const posts = redditPosts(250, { commentsEvery: 50 });
    const source = redditReplay(posts, redditComments(posts));
    serve(source);
    const jobId = await createJob({
      source: 'reddit_subreddit',
      subreddit: 'coffee',
      comment_depth: 2,
      max_pages: 2,
    });
    const first = await h.run(jobId);
    // Two pages of 100 posts, and the comments of the four posts with comments among them (two each).
    expect(await h.runRow(first)).toMatchObject({
      status: 'succeeded',
      result_pages: 2,
      pages: 6,
      inserted: 208,
      refused: 0,
    });
    expect((await h.logOf(first)).at(-1)).toBe("Done: the run's 2-page budget is spent.");
    // (A token cached from an earlier stand-in is refused once: the same page is asked again with a new one.)
    expect(new Set(h.replay.requests.filter((r) => r.startsWith('/r/coffee/new')))).toHaveProperty('size', 2);

    // Three new posts later: the next run asks the first page only and keeps the three.
    h.replay.requests.length = 0;
    source.posts.unshift(...redditPosts(3, { newest: 1_767_226_000, prefix: 'n' }));
    serve(source);
    const second = await h.run(jobId);
    expect(await h.runRow(second)).toMatchObject({ status: 'succeeded', pages: 1, inserted: 3, fetched: 3 });
    expect(h.replay.requests.filter((r) => r.startsWith('/r/coffee/new'))).toHaveLength(1);
    expect(await h.postCount('reddit')).toEqual({ n: 211, distinct: 211 });
  });

  it('updates edited posts and removes deleted ones when they are seen again', async () => {
    const posts = redditPosts(30);
    const source = redditReplay(posts, []);
    serve(source);
    await h.run(await createJob({ source: 'reddit_search', query: 'pour-over', comment_depth: 0 }));
    expect((await stored()).length).toBe(30);
    source.posts[3]!.selftext = 'Edited: it was a medium roast after all.';
    source.posts[5]!.selftext = '[deleted]';
    source.posts[5]!.author = '[deleted]';
    // Another job on the same posts (a new cursor) sees them all again.
    const again = await h.run(
      await createJob({ source: 'reddit_search', query: 'pour-over', comment_depth: 0 }),
    );
    expect(await h.runRow(again)).toMatchObject({
      status: 'succeeded',
      inserted: 0,
      updated: 1,
      removed: 1,
      unchanged: 28,
    });
    expect((await stored()).find((p) => p.external_id === `t3_${posts[3]!.id}`)?.text).toContain(
      'Edited: it was',
    );
    expect((await stored()).some((p) => p.external_id === `t3_${posts[5]!.id}`)).toBe(false);
  });

  it('says in words when the client id or secret is wrong, and asks a new token once when Reddit revokes one', async () => {
    const source = redditReplay(redditPosts(5), []);
    serve(source);
    const wrong = await createCredential('murmur-app-id', 'not-the-secret');
    const failed = await h.run(await createJob({ source: 'reddit_subreddit', subreddit: 'coffee' }, wrong));
    expect(await h.runRow(failed)).toMatchObject({
      status: 'failed',
      error:
        'Reddit refused the client id or secret (401): check both, and that the app is a “script” or “web” app.',
    });
    const tested = await h.server.app.inject({
      method: 'POST',
      url: `/api/scraping/credentials/${wrong}/test`,
      headers: h.auth,
    });
    expect(tested.json()).toMatchObject({
      ok: false,
      message:
        'Reddit refused the client id or secret (401): check both, and that the app is a “script” or “web” app.',
    });
    const good = await h.server.app.inject({
      method: 'POST',
      url: `/api/scraping/credentials/${credentialId}/test`,
      headers: h.auth,
    });
    expect(good.json<{ ok: boolean; message: string }>()).toMatchObject({ ok: true });
    expect(good.json<{ message: string }>().message).toMatch(
      /^Reddit accepted the client id and secret; \d+ requests left in this window \(it resets in 300 s\)\.$/,
    );

    // The test's other answers, in words.
    for (const [reply, message] of [
      [
        { status: 403, body: '{"message": "Forbidden", "error": 403}' },
        'Reddit gave a token but refuses these credentials its API (403).',
      ],
      [
        { status: 404, body: '{"message": "Not Found", "error": 404}' },
        'Reddit answered 404 for r/popular: is SCRAPING_REDDIT_URL the OAuth API (https://oauth.reddit.com)?',
      ],
      [
        {
          status: 429,
          headers: { 'retry-after': '7' },
          body: '{"message": "Too Many Requests", "error": 429}',
        },
        'Reddit is rate-limiting these credentials: try again in 7 s.',
      ],
    ] as const) {
      h.replay.routes.set('/r/popular/new', () => reply);
      const answer = await h.server.app.inject({
        method: 'POST',
        url: `/api/scraping/credentials/${credentialId}/test`,
        headers: h.auth,
      });
      expect(answer.json()).toMatchObject({ ok: false, message });
    }

    const issued = source.tokensIssued;
    source.revoke();
    const revoked = await h.run(
      await createJob({ source: 'reddit_subreddit', subreddit: 'coffee', comment_depth: 0 }),
    );
    expect(await h.runRow(revoked)).toMatchObject({ status: 'succeeded', inserted: 5 });
    expect(source.tokensIssued).toBe(issued + 1);
  });

  it('waits for the rate-limit window when Reddit says none is left, and out a 429', async () => {
    const posts = redditPosts(250);
    const source = redditReplay(posts, [], {
      remaining: 2,
      resetSeconds: 1,
      before: (_url, count): Reply | undefined =>
        count === 3
          ? { status: 429, headers: { 'retry-after': '1' }, body: '{"message": "Too Many Requests"}' }
          : undefined,
    });
    serve(source);
    const runId = await h.run(
      await createJob({ source: 'reddit_subreddit', subreddit: 'coffee', comment_depth: 0 }),
    );
    expect(await h.runRow(runId)).toMatchObject({ status: 'succeeded', inserted: 250 });
    const log = await h.logOf(runId);
    expect(log.some((l) => /Reddit's rate-limit window is used up; it resets in 1 s: waiting/.test(l))).toBe(
      true,
    );
    expect(log.some((l) => /answered 429; Retry-After 1 s: waiting/.test(l))).toBe(true);

    h.replay.routes.set('/r/empty/new', () => ({
      body: JSON.stringify({ kind: 'Listing', data: { after: null, dist: 0, children: [], before: null } }),
    }));
    const empty = await h.run(await createJob({ source: 'reddit_subreddit', subreddit: 'empty' }));
    expect(await h.runRow(empty)).toMatchObject({ status: 'succeeded', pages: 1, fetched: 0 });
  });

  it('a time-out on a comments page and a 500 on a posts page: resumed from the cursor, nothing lost or doubled', async () => {
    const posts = redditPosts(230, { commentsEvery: 40 });
    const source = redditReplay(posts, redditComments(posts), {
      before: (url, count) =>
        url.pathname.startsWith('/comments/') && count === 3
          ? { hang: true }
          : url.pathname.endsWith('/new') && count === 7
            ? { status: 500, body: '{}' }
            : undefined,
    });
    serve(source);
    const runId = await h.newRun(
      await createJob({ source: 'reddit_subreddit', subreddit: 'coffee', comment_depth: 3 }),
    );
    await expect(h.attempt(runId, 0)).rejects.toBeInstanceOf(RetryableRunError);
    await expect(h.attempt(runId, 1)).rejects.toBeInstanceOf(RetryableRunError);
    await h.attempt(runId, 2);
    // 230 posts; 6 of them (every 40th) with two comments each.
    expect(await h.runRow(runId)).toMatchObject({
      status: 'succeeded',
      inserted: 242,
      refused: 0,
      attempts: 3,
    });
    expect(await h.postCount('reddit')).toEqual({ n: 242, distinct: 242 });
    const log = await h.logOf(runId);
    expect(log.some((l) => /no answer within 1 s/.test(l))).toBe(true);
    expect(log.some((l) => /answered 500/.test(l))).toBe(true);
  });
});
