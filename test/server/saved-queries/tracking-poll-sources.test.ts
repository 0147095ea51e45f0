// Collection by polling for tracked queries on YouTube, X and RSS/Atom feeds, against the local stand-ins of YouTube's
// Data API, X's recent search and a feed (no internet): per source only the posts the exact query accepts are stored,
// once, and counted for every tracked query they match; a second round goes on from the cursor and counts nothing
// twice; a spent quota, a rate limit, missing credentials and a feed that does not answer are the query's gap, with
// its sentence.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScrapingHarness, type ScrapingHarness } from '@test/support/scraping-runs';
import { trackingSteps } from '@test/support/tracking-poll';
import { xPosts, xReplay, type XPost } from '@test/support/x-replay';
import { youtubeReplay, youtubeVideos, type YouTubeVideo } from '@test/support/youtube-replay';
import { createTeam } from '@test/support/workspaces.fixtures';
import { pollTrackedQueries } from '@server/tracking/poll';
import type { Route } from '@test/support/replay-server';

let h: ScrapingHarness;
let steps: ReturnType<typeof trackingSteps>;
beforeAll(async () => {
  h = await startScrapingHarness();
  steps = trackingSteps(h);
});
afterAll(() => h.close());
beforeEach(async () => {
  for (const platform of ['youtube', 'x', 'rss']) await h.reset(platform);
  await h.pool.query('UPDATE saved_query_tracking SET enabled = false');
  await h.pool.query(`UPDATE scrape_jobs SET state = 'cancelled' WHERE source = 'feed'`);
  await h.pool.query('DELETE FROM source_quota_usage');
  await h.pool.query('DELETE FROM source_credentials');
});

const poll = () => pollTrackedQueries(steps.deps);
const ids = async (platform: string) => (await steps.stored(platform)).map((p) => p.external_id);
const requests = (path: string) =>
  h.replay.requests.filter((r) => r.startsWith(path)).map((r) => decodeURIComponent(r.replaceAll('+', ' ')));

const titled = (videos: YouTubeVideo[], title: (i: number) => string) =>
  videos.map((v, i) => ({ ...v, title: title(i), description: 'Filmed in our kitchen.' }));
// Espresso (one of them decaf), ristretto and tea videos, interleaved in time.
const videos = () => [
  ...titled(youtubeVideos(4, { prefix: 'esp', newest: Date.UTC(2026, 0, 2) }), (i) =>
    i === 1 ? 'Decaf espresso at home' : `Espresso at home, part ${i}`,
  ),
  ...titled(
    youtubeVideos(3, { prefix: 'ris', newest: Date.UTC(2026, 0, 2, 0, 30) }),
    (i) => `Ristretto ${i}`,
  ),
  ...titled(
    youtubeVideos(5, { prefix: 'tea', newest: Date.UTC(2026, 0, 2, 0, 10) }),
    (i) => `Green tea ${i}`,
  ),
];

describe('YouTube', () => {
  it('searches q with a|b, stores what the exact queries accept once, counts it for both, and goes on hourly', async () => {
    const source = youtubeReplay(videos(), []);
    h.serve(source.routes);
    await h.createCredential({ kind: 'youtube', name: 'YouTube key', secret: { api_key: source.apiKey } });
    const [a, b] = [await createTeam(h.server), await createTeam(h.server)];
    const plain = await steps.track(a, 'espresso AND NOT decaf', ['youtube']);
    const either = await steps.track(b, '(ristretto OR espresso) AND NOT decaf', ['youtube']);

    await poll();
    const espresso = ['esp00000001', 'esp00000002', 'esp00000004'];
    const ristretto = ['ris00000001', 'ris00000002', 'ris00000003'];
    // The decaf video came back from both searches and neither query kept it; tea was never asked for.
    expect(await ids('youtube')).toEqual([...espresso, ...ristretto].sort());
    expect(requests('/search')).toEqual([
      expect.stringContaining('q=espresso&'),
      expect.stringContaining('q=ristretto|espresso&'),
    ]);
    expect((await steps.coverage(a, plain, 'youtube')).posts_today).toBe(3);
    const both = await steps.coverage(b, either, 'youtube');
    expect([both.posts_today, both.gap]).toEqual([6, null]);
    expect(both.backfilled_to).toBe(Date.UTC(2026, 0, 2) / 1000 - 3 * 3_600);
    // The key's quota is charged: a search and a videos.list each, per query.
    const { rows } = await h.pool.query<{ units: number }>('SELECT units FROM source_quota_usage');
    expect(rows[0]!.units).toBe(2 * 101);

    // Within the hour nothing is asked again.
    const asked = h.replay.requests.length;
    await poll();
    expect(h.replay.requests.length).toBe(asked);

    // An hour on, the next round asks for what is newer and collects the new video once, for both queries.
    source.videos.unshift(
      ...titled(youtubeVideos(1, { prefix: 'new', newest: Date.UTC(2026, 0, 3) }), () => 'Espresso, new'),
    );
    await steps.due('youtube');
    await poll();
    // From the newest video each search saw.
    expect(requests('/search').slice(2)).toEqual([
      expect.stringContaining('publishedAfter=2026-01-02T00:00:00.000Z'),
      expect.stringContaining('publishedAfter=2026-01-02T00:30:00.000Z'),
    ]);
    expect(await h.postCount('youtube')).toEqual({ n: 7, distinct: 7 });
    expect((await steps.coverage(a, plain, 'youtube')).posts_today).toBe(4);
    expect((await steps.coverage(b, either, 'youtube')).posts_today).toBe(7);
  });

  it("says a spent quota until YouTube's next day, and missing credentials, as the query's gap", async () => {
    const source = youtubeReplay(videos(), []);
    h.serve(source.routes);
    // Tracked while a key was set up; then staff delete it.
    await h.createCredential({ kind: 'youtube', name: 'YouTube key', secret: { api_key: source.apiKey } });
    const team = await createTeam(h.server);
    const id = await steps.track(team, 'espresso', ['youtube']);
    await h.pool.query('DELETE FROM source_credentials');
    await poll();
    expect((await steps.coverage(team, id, 'youtube')).gap).toMatchObject({
      reason: 'credentials_missing',
      message: 'No YouTube API key is set up: staff add one in the internal area.',
      until: null,
    });

    await h.createCredential({ kind: 'youtube', name: 'YouTube key', secret: { api_key: source.apiKey } });
    source.quotaExceeded = true;
    const before = Math.floor(Date.now() / 1000);
    await poll();
    const { gap } = await steps.coverage(team, id, 'youtube');
    expect(gap).toMatchObject({
      reason: 'quota_spent',
      message: expect.stringMatching(/^YouTube’s quota is spent until \d\d:\d\d UTC\.$/),
    });
    // Midnight Pacific time: within the next 25 hours.
    expect(gap!.until! - before).toBeGreaterThan(0);
    expect(gap!.until! - before).toBeLessThanOrEqual(25 * 3_600);
    expect(await ids('youtube')).toEqual([]);
  });
});

describe('YouTube budget', () => {
  it("stops at the key's daily budget: the search that would pass it is not sent, and it is the gap", async () => {
    const source = youtubeReplay(videos(), []);
    h.serve(source.routes);
    await h.createCredential({
      kind: 'youtube',
      name: 'Small key',
      secret: { api_key: source.apiKey },
      daily_quota: 150,
    });
    const team = await createTeam(h.server);
    const first = await steps.track(team, 'espresso', ['youtube']);
    const second = await steps.track(team, 'ristretto', ['youtube']);
    await poll();
    // 101 units for the first query's search and videos; the second's search (100 more) was not sent.
    expect((await steps.coverage(team, first, 'youtube')).posts_today).toBe(4);
    expect((await steps.coverage(team, second, 'youtube')).gap).toMatchObject({
      reason: 'quota_spent',
      message: expect.stringMatching(/^YouTube’s quota is spent until \d\d:\d\d UTC\.$/),
    });
    expect(requests('/search')).toHaveLength(1);
  });
});

describe('X', () => {
  const worded = (posts: XPost[], text: (i: number) => string) =>
    posts.map((p, i) => ({ ...p, text: text(i) }));
  const posts = () => [
    ...worded(xPosts(4, { top: 1_900_000_000_000_000_400n }), (i) =>
      i === 2 ? 'An oat cortado, fine' : `A cortado before work (${i})`,
    ),
    ...worded(xPosts(3, { top: 1_900_000_000_000_000_300n }), (i) => `Macchiato time (${i})`),
    ...worded(xPosts(5, { top: 1_900_000_000_000_000_200n }), (i) => `Tea again (${i})`),
  ];

  it('searches with OR, stores what the exact queries accept once, and the next round from since_id', async () => {
    const source = xReplay(posts());
    h.serve(source.routes);
    await h.createCredential({ kind: 'x', name: 'X app', secret: { bearer_token: source.token } });
    const [a, b] = [await createTeam(h.server), await createTeam(h.server)];
    const plain = await steps.track(a, 'cortado AND NOT oat', ['x']);
    const either = await steps.track(b, '(cortado OR macchiato) AND NOT oat', ['x']);

    await poll();
    const cortado = ['1900000000000000400', '1900000000000000399', '1900000000000000397'];
    const macchiato = ['1900000000000000300', '1900000000000000299', '1900000000000000298'];
    expect(await ids('x')).toEqual([...cortado, ...macchiato].sort());
    expect(requests('/tweets/search/recent')).toEqual([
      expect.stringContaining('query=cortado&'),
      expect.stringContaining('query=macchiato OR cortado&'),
    ]);
    expect((await steps.coverage(a, plain, 'x')).posts_today).toBe(3);
    expect((await steps.coverage(b, either, 'x')).posts_today).toBe(6);

    source.posts.unshift(...worded(xPosts(1, { top: 1_900_000_000_000_000_500n }), () => 'Cortado no. 2'));
    await steps.due('x');
    await poll();
    expect(requests('/tweets/search/recent').slice(2)).toEqual([
      expect.stringContaining('since_id=1900000000000000400'),
      expect.stringContaining('since_id=1900000000000000400'),
    ]);
    expect(await h.postCount('x')).toEqual({ n: 7, distinct: 7 });
    expect((await steps.coverage(a, plain, 'x')).posts_today).toBe(4);
    expect((await steps.coverage(b, either, 'x')).posts_today).toBe(7);
  });

  it("is rate limited until X's reset, every query waiting; and says when no bearer token is set up", async () => {
    await h.createCredential({ kind: 'x', name: 'X app', secret: { bearer_token: 'AAAAGone' } });
    const team = await createTeam(h.server);
    const id = await steps.track(team, 'cortado', ['x']);
    await h.pool.query('DELETE FROM source_credentials');
    await poll();
    expect((await steps.coverage(team, id, 'x')).gap).toMatchObject({
      reason: 'credentials_missing',
      message: 'No X bearer token is set up: staff add one in the internal area.',
    });

    const reset = Math.floor(Date.now() / 1000) + 600;
    const source = xReplay(posts(), {
      before: () => ({
        status: 429,
        headers: { 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': String(reset) },
        body: '{"title":"Too Many Requests","detail":"Too Many Requests","type":"about:blank","status":429}',
      }),
    });
    h.serve(source.routes);
    await h.createCredential({ kind: 'x', name: 'X app', secret: { bearer_token: source.token } });
    const other = await steps.track(team, 'macchiato', ['x']);
    await poll();
    for (const query of [id, other]) {
      const { gap } = await steps.coverage(team, query, 'x');
      expect(gap).toMatchObject({ reason: 'rate_limited', until: reset });
      expect(gap!.message).toBe(
        `X rate limited until ${new Date(reset * 1000).toISOString().slice(11, 16)} UTC.`,
      );
    }
    // One request: the second query waited with the first.
    expect(requests('/tweets/search/recent')).toHaveLength(1);
  });
});

describe('X window', () => {
  it('waits for the reset once x-rate-limit-remaining reaches 0, without asking into a 429', async () => {
    const source = xReplay(xPosts(3), { remaining: 1, resetInSeconds: 600 });
    h.serve(source.routes);
    await h.createCredential({ kind: 'x', name: 'X app', secret: { bearer_token: source.token } });
    const team = await createTeam(h.server);
    const id = await steps.track(team, 'flat white', ['x']);
    await poll();
    expect((await steps.coverage(team, id, 'x')).posts_today).toBe(3);
    const reset = Math.floor(Date.now() / 1000) + 600;
    await steps.due('x');
    await poll();
    const { gap } = await steps.coverage(team, id, 'x');
    expect(gap).toMatchObject({
      reason: 'rate_limited',
      message: expect.stringMatching(/^X rate limited until/),
    });
    expect(Math.abs(gap!.until! - reset)).toBeLessThanOrEqual(2);
    expect(requests('/tweets/search/recent')).toHaveLength(1);
  });
});

describe('RSS and Atom feeds', () => {
  interface Item {
    guid: string;
    title: string;
    at: string;
  }
  /** A feed answering 304 to its own ETag; the ETag changes with its items. */
  const feed = (items: Item[]) => {
    const etag = () => `"v${items.length}"`;
    const route: Route = (_url, _count, request) => {
      if (request.headers['if-none-match'] === etag()) return { status: 304 };
      const entries = items
        .map(
          (item) =>
            `<item><title>${item.title}</title><guid>${item.guid}</guid><link>https://blog.example/${item.guid}</link>` +
            `<pubDate>${new Date(item.at).toUTCString()}</pubDate><description>From the roastery.</description></item>`,
        )
        .join('');
      return {
        headers: { 'content-type': 'application/rss+xml', etag: etag() },
        body: `<?xml version="1.0"?><rss version="2.0"><channel><title>Roastery</title>${entries}</channel></rss>`,
      };
    };
    return { items, route };
  };
  const follow = (url: string) =>
    h.pool.query(`INSERT INTO scrape_jobs (name, source, params) VALUES ('feed', 'feed', $1)`, [
      JSON.stringify({ source: 'feed', url, max_pages: 1 }),
    ]);

  it('reads the feeds followed, keeps what each query matches once, and a changed feed adds only the new', async () => {
    const blog = feed([
      { guid: 'e1', title: 'Espresso week', at: '2026-01-02T10:00:00Z' },
      { guid: 't1', title: 'Tea week', at: '2026-01-02T09:00:00Z' },
      { guid: 'm1', title: 'Mugs for sale', at: '2026-01-02T08:00:00Z' },
      { guid: 'e0', title: 'Espresso, decaf', at: '2026-01-01T08:00:00Z' },
    ]);
    h.serve({ '/blog.xml': blog.route, '/down.xml': () => ({ status: 500, body: 'down' }) });
    await follow(`${h.replay.url}/blog.xml`);
    const [a, b] = [await createTeam(h.server), await createTeam(h.server)];
    const plain = await steps.track(a, 'espresso AND NOT decaf', ['feeds']);
    const either = await steps.track(b, 'espresso OR tea', ['feeds']);

    await poll();
    // Read once for both queries; the mugs are no query's.
    expect(requests('/blog.xml')).toHaveLength(1);
    expect(await ids('rss')).toEqual(['e0', 'e1', 't1']);
    expect((await steps.coverage(a, plain, 'feeds')).posts_today).toBe(1);
    const both = await steps.coverage(b, either, 'feeds');
    expect([both.posts_today, both.gap, both.backfilled_to]).toEqual([
      3,
      null,
      Date.parse('2026-01-01T08:00Z') / 1000,
    ]);

    // Unchanged: one 304, nothing counted again. Then a new item, and a second feed that does not answer.
    await steps.due('feeds');
    await poll();
    expect((await steps.coverage(b, either, 'feeds')).posts_today).toBe(3);
    blog.items.unshift({ guid: 'e2', title: 'Espresso again', at: '2026-01-03T10:00:00Z' });
    await follow(`${h.replay.url}/down.xml`);
    await steps.due('feeds');
    await poll();
    expect(await h.postCount('rss')).toEqual({ n: 4, distinct: 4 });
    const after = await steps.coverage(a, plain, 'feeds');
    expect(after.posts_today).toBe(2);
    expect(after.gap).toMatchObject({
      reason: 'unreachable',
      message: expect.stringMatching(/^RSS and Atom feeds did not answer: 127\.0\.0\.1:\d+ answered 500$/),
    });
    expect((await steps.coverage(b, either, 'feeds')).posts_today).toBe(4);

    // Still down at the next round: the same gap goes on from when it began, while the blog is read (a 304).
    await steps.due('feeds');
    await poll();
    const still = await steps.coverage(a, plain, 'feeds');
    expect([still.gap?.since, still.closed_gaps]).toEqual([after.gap!.since, []]);
    expect(requests('/down.xml')).toHaveLength(2);
    // Back: the gap ends, kept with its span.
    h.serve({ '/down.xml': feed([]).route });
    await steps.due('feeds');
    await poll();
    const back = await steps.coverage(a, plain, 'feeds');
    expect(back.gap).toBeNull();
    expect(back.closed_gaps).toEqual([
      {
        reason: 'unreachable',
        message: after.gap!.message,
        since: after.gap!.since,
        ended: expect.any(Number),
      },
    ]);
  });
});
