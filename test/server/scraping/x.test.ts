// X API v2 recent search against a local stand-in of the API (test/support/x-replay.ts) and a recorded answer
// (test/fixtures/scraping/x-search-recent.json): the mapping (replies, reposts, quotes, media, entities, X's
// non-language codes, an author missing from includes refused), an edit updating the post it edits, paging by
// next_token, a later run from since_id and, once that post is older than the 7-day window, from start_time; the
// rate-limit headers and a 429 without Retry-After waited for; a wrong token and an app without access in words; a
// time-out and a 500 resumed from the cursor with nothing lost or doubled.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { xPosts, xReplay, type XSource } from '@test/support/x-replay';
import { RetryableRunError } from '@server/scraping/runner';
import { startScrapingHarness, type ScrapingHarness } from '@test/support/scraping-runs';
import { fixture } from '@test/support/replay-server';

let h: ScrapingHarness;
let credentialId: string;

beforeAll(async () => {
  h = await startScrapingHarness();
  credentialId = await createCredential('AAAAMurmurBearer');
});
afterAll(() => h.close());
beforeEach(() => h.reset('x'));

const createCredential = (bearer_token: string) =>
  h.createCredential({ kind: 'x', name: `X ${bearer_token.slice(0, 8)}`, secret: { bearer_token } });
const serve = (source: XSource) => h.serve(source.routes);
const createJob = (query: string, credential = credentialId) =>
  h.createJob(`X ${query}`, { source: 'x_search', credential_id: credential, query });

const searches = () =>
  h.replay.requests
    .filter((r) => r.startsWith('/tweets/search/recent'))
    .map((r) => new URL(r, 'http://x').searchParams);

describe('X recent search', () => {
  it('maps the recorded answer: kinds, media, entities, edits keyed by the original, an author missing refused', async () => {
    h.replay.routes.set('/tweets/search/recent', () => ({ body: fixture('x-search-recent.json') }));
    const runId = await h.run(await createJob('coffee'));
    expect(await h.runRow(runId)).toMatchObject({ status: 'succeeded', fetched: 4, inserted: 3, refused: 1 });
    const { rows } = await h.pool.query(
      `SELECT p.external_id, p.kind::text, p.media::text, p.language, p.likes, p.comments, p.shares, p.views::int AS views,
              p.hashtags, p.mentions, p.domains, p.url, a.handle, a.followers
         FROM posts p JOIN profiles a ON a.id = p.author_id WHERE p.platform = 'x' ORDER BY p.external_id`,
    );
    expect(rows).toEqual([
      {
        // The edited post is keyed by the first id of its edit history.
        external_id: '1861000000000000001',
        kind: 'reply',
        media: 'image',
        language: 'en',
        likes: 41,
        comments: 2,
        shares: 4,
        views: 1890,
        hashtags: ['coffee'],
        mentions: ['beanery'],
        domains: ['x.com'],
        url: 'https://x.com/coffee_lover/status/1861000000000000005',
        handle: 'coffee_lover',
        followers: 812,
      },
      expect.objectContaining({
        external_id: '1861000000000000003',
        kind: 'original',
        media: 'link',
        domains: ['roastworks.example'],
      }),
      expect.objectContaining({
        external_id: '1861000000000000004',
        kind: 'repost',
        shares: 12,
        handle: 'roastworks',
      }),
    ]);
    // X's "qme" (media only) is not a language.
    expect(rows[1].language).toBeNull();
    const refusals = await h.pool.query('SELECT ref, reason FROM scrape_refusals WHERE run_id = $1', [runId]);
    expect(refusals.rows).toEqual([
      { ref: '1861000000000000002', reason: "the post's author is not in the answer's includes.users" },
    ]);
    const log = await h.logOf(runId);
    expect(log.some((l) => l.includes('1 partial errors (withheld or deleted referenced posts)'))).toBe(true);
    expect(log.join('\n')).not.toContain('AAAAMurmurBearer');
  });

  it('pages by next_token, then a later run asks since_id and an edit updates the post it edits', async () => {
    const posts = xPosts(230);
    const source = xReplay(posts);
    serve(source);
    const jobId = await createJob('flat white');
    expect(await h.runRow(await h.run(jobId))).toMatchObject({
      status: 'succeeded',
      pages: 3,
      inserted: 230,
    });
    expect(searches()[1]!.get('next_token')).toBe('b26v89c19zqg8o3f100');
    expect(searches()[0]!.get('since_id')).toBeNull();

    // Later: one new post, and an edit of the newest one (a new id whose history starts with the original's).
    h.replay.requests.length = 0;
    const [newest] = posts;
    const fresh = xPosts(1, { newest: Date.now() - 60_000, top: BigInt(newest!.id) + 10n })[0]!;
    const edit = {
      ...newest!,
      id: String(BigInt(newest!.id) + 20n),
      text: 'Lovely flat white this morning at the corner café #coffee (edited: it was a cortado)',
      edit_history_tweet_ids: [newest!.id, String(BigInt(newest!.id) + 20n)],
    };
    source.posts.unshift(edit, fresh);
    const later = await h.run(jobId);
    expect(await h.runRow(later)).toMatchObject({ status: 'succeeded', inserted: 1, updated: 1 });
    expect(searches()[0]!.get('since_id')).toBe(newest!.id);
    expect(await h.postCount('x')).toEqual({ n: 231, distinct: 231 });
    const { rows } = await h.pool.query(`SELECT text FROM posts WHERE platform = 'x' AND external_id = $1`, [
      newest!.id,
    ]);
    expect(rows[0].text).toContain('edited: it was a cortado');
  });

  it('asks from 7 days ago when the last post seen is older than the window', async () => {
    serve(xReplay(xPosts(5)));
    const jobId = await createJob('flat white');
    await h.pool.query(`UPDATE scrape_jobs SET cursor = $2::jsonb WHERE id = $1`, [
      jobId,
      JSON.stringify({
        since_id: '1500000000000000000',
        since_at: new Date(Date.now() - 8 * 86_400_000).toISOString(),
      }),
    ]);
    const runId = await h.run(jobId);
    expect(await h.runRow(runId)).toMatchObject({ status: 'succeeded', inserted: 5 });
    const asked = searches()[0]!;
    expect(asked.get('since_id')).toBeNull();
    expect(Date.parse(asked.get('start_time')!)).toBeGreaterThan(Date.now() - 7 * 86_400_000);
    expect(
      (await h.logOf(runId)).some((l) =>
        l.includes('from 7 days ago (the last post seen is older than the window)'),
      ),
    ).toBe(true);
  });

  it('waits for the rate-limit window when none is left, and for a 429’s reset', async () => {
    const source = xReplay(xPosts(250), {
      remaining: 2,
      // A few seconds: a busy machine may take more than one between the page that used the window up and the next.
      resetInSeconds: 3,
      before: (_url, count) =>
        count === 3
          ? {
              status: 429,
              headers: { 'x-rate-limit-reset': String(Math.floor(Date.now() / 1000) + 1) },
              body: '{"title":"Too Many Requests","detail":"Too Many Requests","type":"about:blank","status":429}',
            }
          : undefined,
    });
    serve(source);
    const runId = await h.run(await createJob('flat white'));
    expect(await h.runRow(runId)).toMatchObject({ status: 'succeeded', inserted: 250 });
    const log = await h.logOf(runId);
    expect(log.some((l) => /X's rate-limit window is used up; it resets in [1-3] s: waiting/.test(l))).toBe(
      true,
    );
    expect(log.some((l) => /answered 429; Retry-After [12] s: waiting/.test(l))).toBe(true);

    serve(xReplay([]));
    const empty = await h.run(await createJob('nothing'));
    expect(await h.runRow(empty)).toMatchObject({ status: 'succeeded', pages: 1, fetched: 0 });
  });

  it('says in words when the token is wrong or the app has no access, and the test connection reads the usage', async () => {
    serve(xReplay(xPosts(3)));
    const wrong = await createCredential('AAAAWrongToken');
    const failed = await h.run(await createJob('coffee', wrong));
    expect(await h.runRow(failed)).toMatchObject({
      status: 'failed',
      error: 'X refused the bearer token (401): it is wrong or was revoked.',
    });
    const tested = await h.server.app.inject({
      method: 'POST',
      url: `/api/scraping/credentials/${wrong}/test`,
      headers: h.auth,
    });
    expect(tested.json()).toMatchObject({
      ok: false,
      message: 'X refused the bearer token (401): it is wrong or was revoked.',
    });
    const good = await h.server.app.inject({
      method: 'POST',
      url: `/api/scraping/credentials/${credentialId}/test`,
      headers: h.auth,
    });
    expect(good.json()).toMatchObject({
      ok: true,
      message:
        'The bearer token works; this month the project has read 1,234 of 10,000 posts (the cap resets on day 19).',
    });

    h.replay.routes.set('/tweets/search/recent', () => ({
      status: 403,
      body: JSON.stringify({
        client_id: '123',
        detail:
          'When authenticating requests to the Twitter API v2 endpoints, you must use keys and tokens from a Twitter developer App that is attached to a Project.',
        registration_url: 'https://developer.twitter.com/en/docs/projects/overview',
        title: 'Client Forbidden',
        required_enrollment: 'Appropriate Level of API Access',
        reason: 'client-not-enrolled',
        type: 'https://api.twitter.com/2/problems/client-forbidden',
      }),
    }));
    const forbidden = await h.run(await createJob('coffee'));
    expect((await h.runRow(forbidden)).error).toMatch(/^X refused the app \(403 client-not-enrolled\)/);
  });

  it('a time-out and a 500 mid-run: resumed from the cursor, nothing lost or doubled', async () => {
    serve(
      xReplay(xPosts(330), {
        before: (_url, count) =>
          count === 2 ? { hang: true } : count === 4 ? { status: 500, body: '{}' } : undefined,
      }),
    );
    const runId = await h.newRun(await createJob('flat white'));
    await expect(h.attempt(runId, 0)).rejects.toBeInstanceOf(RetryableRunError);
    await expect(h.attempt(runId, 1)).rejects.toBeInstanceOf(RetryableRunError);
    await h.attempt(runId, 2);
    expect(await h.runRow(runId)).toMatchObject({ status: 'succeeded', inserted: 330, attempts: 3 });
    expect(await h.postCount('x')).toEqual({ n: 330, distinct: 330 });
  });
});
