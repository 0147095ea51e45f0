// YouTube Data API v3 against a local stand-in of the API (test/support/youtube-replay.ts; a recorded video in
// test/fixtures/scraping/youtube-video.json): videos by keyword and of a channel with their comment threads as child
// pages, every request charged to the credentials' daily quota before it is sent (and the charges equal the API's
// published costs), a run stopping before the budget and resuming on the next quota day with nothing fetched twice,
// YouTube's own quotaExceeded, a wrong key in words, comments disabled, a video gone from the API leaving the corpus,
// a later run only asking for newer videos, and a time-out resumed from the cursor.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  youtubeComments,
  youtubeReplay,
  youtubeVideos,
  type YouTubeSource,
} from '@test/support/youtube-replay';
import { msUntilQuotaReset } from '@server/scraping/credentials';
import { RetryableRunError } from '@server/scraping/runner';
import { startScrapingHarness, type ScrapingHarness } from '@test/support/scraping-runs';
import { fixture } from '@test/support/replay-server';

let h: ScrapingHarness;
const requeued: Date[] = [];

beforeAll(async () => {
  h = await startScrapingHarness({
    requeue: async (_client, _runId, at) => {
      requeued.push(at);
      return 'requeued';
    },
  });
});
afterAll(() => h.close());
beforeEach(async () => {
  requeued.length = 0;
  await h.reset('youtube');
});

const createCredential = (api_key: string, daily_quota = 10_000) =>
  h.createCredential({ kind: 'youtube', name: `YouTube ${api_key}`, secret: { api_key }, daily_quota });
const serve = (source: YouTubeSource) => h.serve(source.routes);
const createJob = (params: Record<string, unknown>, credential_id: string) =>
  h.createJob('YouTube job', { credential_id, ...params });

const spent = async (credentialId: string) =>
  (
    await h.pool.query<{ units: number }>(
      'SELECT coalesce(sum(units), 0)::int AS units FROM source_quota_usage WHERE credential_id = $1',
      [credentialId],
    )
  ).rows[0]!.units;
const paths = () => h.replay.requests.map((r) => r.split('?')[0]);

describe('YouTube', () => {
  it('maps a recorded video resource', async () => {
    const key = await createCredential('AIzaRecorded');
    h.replay.routes.set('/search', () => ({
      body: JSON.stringify({
        kind: 'youtube#searchListResponse',
        pageInfo: { totalResults: 1, resultsPerPage: 50 },
        items: [{ kind: 'youtube#searchResult', id: { kind: 'youtube#video', videoId: 'Ks-_Mh1QhMc' } }],
      }),
    }));
    h.replay.routes.set('/videos', () => ({ body: fixture('youtube-video.json') }));
    const runId = await h.run(
      await createJob({ source: 'youtube_search', query: 'espresso', comment_pages: 0 }, key),
    );
    expect(await h.runRow(runId)).toMatchObject({ status: 'succeeded', inserted: 1, refused: 0 });
    const { rows } = await h.pool.query(
      `SELECT p.external_id, p.text, p.language, p.views::int AS views, p.likes, p.comments, p.media::text, p.url,
              a.handle, a.external_id AS channel
         FROM posts p JOIN profiles a ON a.id = p.author_id WHERE p.platform = 'youtube'`,
    );
    expect(rows[0]).toEqual({
      external_id: 'Ks-_Mh1QhMc',
      text: 'Espresso at home: dialling in a new bag\n\nWe pull six shots to find the grind for a light roast.',
      language: 'en',
      views: 48_213,
      likes: 2_104,
      comments: 187,
      media: 'video',
      url: 'https://www.youtube.com/watch?v=Ks-_Mh1QhMc',
      handle: 'Murmur Coffee Lab',
      channel: 'UCmurmurCoffeeLab00000001',
    });
    // The key is a query parameter of each request and nowhere in the log.
    expect(h.replay.requests[0]).toContain('key=AIzaRecorded');
    expect((await h.logOf(runId)).join('\n')).not.toContain('AIzaRecorded');
  });

  it('searches page by page with each video’s comments as child pages, charging the published cost of each request', async () => {
    const key = await createCredential('AIzaMurmurTestKey');
    const videos = youtubeVideos(120, { everyCommented: 20 });
    videos[20]!.commentsDisabled = true;
    const source = youtubeReplay(videos, youtubeComments(videos));
    serve(source);
    const jobId = await createJob(
      { source: 'youtube_search', query: 'V60', comment_pages: 2, max_pages: 5 },
      key,
    );
    const runId = await h.run(jobId);
    // 120 videos on 3 pages; 6 commented videos, 3 threads each, one of them with comments disabled.
    expect(await h.runRow(runId)).toMatchObject({
      status: 'succeeded',
      result_pages: 3,
      pages: 9,
      inserted: 135,
      refused: 0,
    });
    const searches = paths().filter((p) => p === '/search').length;
    const lists = paths().filter((p) => p !== '/search').length;
    expect(searches).toBe(3);
    expect(await spent(key)).toBe(searches * 100 + lists);
    expect(
      (await h.logOf(runId)).some((l) => /comments of vid00000100: disabled on this video/.test(l)),
    ).toBe(true);

    // A later run asks only for what was published since the newest video it saw.
    h.replay.requests.length = 0;
    const newest = videos[0]!.publishedAt;
    source.videos.unshift(...youtubeVideos(2, { newest: Date.UTC(2026, 0, 1, 5), prefix: 'new' }));
    const later = await h.run(jobId);
    expect(await h.runRow(later)).toMatchObject({ status: 'succeeded', inserted: 2 });
    expect(h.replay.requests[0]).toContain(`publishedAfter=${encodeURIComponent(newest)}`);
    expect(await h.postCount('youtube')).toEqual({ n: 137, distinct: 137 });
  });

  it('stops before the day’s budget, waits for the next Pacific midnight, and resumes there with nothing fetched twice', async () => {
    const key = await createCredential('AIzaMurmurTestKey', 250);
    const videos = youtubeVideos(150);
    serve(youtubeReplay(videos, []));
    const runId = await h.newRun(
      await createJob({ source: 'youtube_search', query: 'V60', comment_pages: 0 }, key),
    );
    const before = Date.now();
    await h.attempt(runId);
    // Two pages (2 × 101 units); the third search (100) would pass 250.
    expect(await h.runRow(runId)).toMatchObject({ status: 'waiting', pages: 2, inserted: 100 });
    expect(await spent(key)).toBe(202);
    expect(requeued).toHaveLength(1);
    const expected = before + msUntilQuotaReset(new Date(before));
    expect(Math.abs(requeued[0]!.getTime() - expected)).toBeLessThan(5_000);
    const log = await h.logOf(runId);
    expect(log.at(-1)).toMatch(
      /^The day's quota \(250 units\) would be passed by the next request \(100 units\)/,
    );

    // The next quota day: yesterday's units are yesterday's.
    await h.pool.query(`UPDATE source_quota_usage SET day = day - 1 WHERE credential_id = $1`, [key]);
    const asked = h.replay.requests.length;
    await h.attempt(runId);
    expect(await h.runRow(runId)).toMatchObject({ status: 'succeeded', inserted: 150 });
    expect(h.replay.requests.slice(asked).filter((r) => r.startsWith('/search'))[0]).toContain(
      'pageToken=page100',
    );
    expect(await h.postCount('youtube')).toEqual({ n: 150, distinct: 150 });
  });

  it('a channel’s uploads: looked up once, paged, a gone video removed, YouTube’s quotaExceeded waited for', async () => {
    const key = await createCredential('AIzaMurmurTestKey');
    const videos = youtubeVideos(60);
    const source = youtubeReplay(videos, []);
    serve(source);
    const jobId = await createJob(
      { source: 'youtube_channel', channel_id: 'UCmurmurCoffeeChannel001', comment_pages: 0 },
      key,
    );
    expect(await h.runRow(await h.run(jobId))).toMatchObject({ status: 'succeeded', inserted: 60 });
    expect(paths().filter((p) => p === '/channels')).toHaveLength(1);

    // A new upload, and a video that is gone: a new job over the channel sees the playlist still list it.
    h.replay.requests.length = 0;
    source.videos.unshift(...youtubeVideos(1, { newest: Date.UTC(2026, 0, 2), prefix: 'up' }));
    const gone = source.videos.splice(5, 1)[0]!;
    h.replay.routes.set('/playlistItems', (url, count, request) => {
      const answer = source.routes['/playlistItems']!(url, count, request);
      const body = JSON.parse(String(answer.body)) as { items: unknown[] };
      if (!body.items) return answer;
      body.items.splice(5, 0, {
        kind: 'youtube#playlistItem',
        contentDetails: { videoId: gone.id, videoPublishedAt: gone.publishedAt },
      });
      return { ...answer, body: JSON.stringify(body) };
    });
    const again = await h.run(
      await createJob(
        { source: 'youtube_channel', channel_id: 'UCmurmurCoffeeChannel001', comment_pages: 0 },
        key,
      ),
    );
    expect(await h.runRow(again)).toMatchObject({ status: 'succeeded', inserted: 1, removed: 1 });

    // The later run of the first job stops at what it saw; then YouTube's own quota is spent.
    source.quotaExceeded = true;
    const waiting = await h.newRun(jobId);
    await h.attempt(waiting);
    expect(await h.runRow(waiting)).toMatchObject({ status: 'waiting' });
    expect(requeued.length).toBeGreaterThan(0);
    expect((await h.logOf(waiting)).at(-1)).toMatch(
      /YouTube says the project's quota for today is spent \(quotaExceeded\)/,
    );
  });

  it('waits out a 429, refuses a malformed video while the rest land, and an empty search ends at once', async () => {
    const key = await createCredential('AIzaMurmurTestKey');
    const source = youtubeReplay(youtubeVideos(5), [], {
      before: (_url, count) =>
        count === 1
          ? { status: 429, headers: { 'retry-after': '1' }, body: '{"error":{"code":429}}' }
          : undefined,
    });
    serve(source);
    h.replay.routes.set('/videos', (url, count, request) => {
      const answer = source.routes['/videos']!(url, count, request);
      const body = JSON.parse(String(answer.body)) as { items?: Record<string, unknown>[] };
      if (body.items?.[0]) delete body.items[0].snippet;
      return { ...answer, body: JSON.stringify(body) };
    });
    const runId = await h.run(
      await createJob({ source: 'youtube_search', query: 'V60', comment_pages: 0 }, key),
    );
    expect(await h.runRow(runId)).toMatchObject({ status: 'succeeded', fetched: 5, inserted: 4, refused: 1 });
    expect((await h.logOf(runId)).some((l) => /answered 429; Retry-After 1 s: waiting/.test(l))).toBe(true);
    const refusals = await h.pool.query('SELECT ref, reason FROM scrape_refusals WHERE run_id = $1', [runId]);
    expect(refusals.rows).toEqual([
      { ref: 'https://www.youtube.com/watch?v=vid00000005', reason: 'not a video resource (id and snippet)' },
    ]);

    const empty = await h.run(
      await createJob({ source: 'youtube_search', query: 'nothing matches this' }, key),
    );
    expect(await h.runRow(empty)).toMatchObject({ status: 'succeeded', pages: 1, fetched: 0 });
  });

  it('says in words when the key is wrong, and the test connection spends one unit', async () => {
    const good = await createCredential('AIzaMurmurTestKey');
    const bad = await createCredential('AIzaWrongKey');
    serve(youtubeReplay(youtubeVideos(3), []));
    const failed = await h.run(await createJob({ source: 'youtube_search', query: 'V60' }, bad));
    expect(await h.runRow(failed)).toMatchObject({ status: 'failed', error: 'The API key is not valid.' });
    const tested = await h.server.app.inject({
      method: 'POST',
      url: `/api/scraping/credentials/${bad}/test`,
      headers: h.auth,
    });
    expect(tested.json()).toMatchObject({ ok: false, message: 'The API key is not valid.' });
    const ok = await h.server.app.inject({
      method: 'POST',
      url: `/api/scraping/credentials/${good}/test`,
      headers: h.auth,
    });
    expect(ok.json()).toMatchObject({
      ok: true,
      message: 'The API key works: the YouTube Data API answered (1 quota unit spent).',
    });
    expect(await spent(good)).toBe(1);
  });

  it('a time-out on a comments page: the next attempt resumes there, nothing lost or doubled', async () => {
    const key = await createCredential('AIzaMurmurTestKey');
    const videos = youtubeVideos(60, { everyCommented: 10 });
    serve(
      youtubeReplay(videos, youtubeComments(videos), {
        before: (url, count) =>
          url.pathname === '/commentThreads' && count === 6 ? { hang: true } : undefined,
      }),
    );
    const runId = await h.newRun(
      await createJob({ source: 'youtube_search', query: 'V60', comment_pages: 1 }, key),
    );
    await expect(h.attempt(runId, 0)).rejects.toBeInstanceOf(RetryableRunError);
    await h.attempt(runId, 1);
    expect(await h.runRow(runId)).toMatchObject({ status: 'succeeded', inserted: 60 + 6 * 3, attempts: 2 });
    expect(await h.postCount('youtube')).toEqual({ n: 78, distinct: 78 });
    expect((await h.logOf(runId)).some((l) => l.startsWith('Resumed from the saved cursor'))).toBe(true);
  });
});
