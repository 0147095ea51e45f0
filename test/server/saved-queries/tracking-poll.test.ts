// Collection by polling for tracked saved queries, against the local stand-ins of Hacker News search and Reddit's API
// (no internet): only the posts the exact query accepts are stored, once, and counted for every tracked query they
// match; a second round counts nothing twice; a rate limit, missing credentials and a query with no words to search
// for are each the query's gap with its reason and span.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScrapingHarness, type ScrapingHarness } from '@test/support/scraping-runs';
import { hackerNewsHits, hackerNewsReplay } from '@test/support/hacker-news-replay';
import { redditPosts, redditReplay } from '@test/support/reddit-replay';
import { trackingSteps } from '@test/support/tracking-poll';
import { as, createTeam } from '@test/support/workspaces.fixtures';
import { pollTrackedQueries } from '@server/tracking/poll';
import type { PollDeps } from '@server/tracking/poll-sources';

let h: ScrapingHarness;
let deps: PollDeps;
let steps: ReturnType<typeof trackingSteps>;
beforeAll(async () => {
  h = await startScrapingHarness();
  steps = trackingSteps(h);
  deps = steps.deps;
});
afterAll(() => h.close());
beforeEach(async () => {
  await h.reset('hackernews');
  await h.reset('reddit');
  // Earlier tests' tracking off: each test polls its own queries.
  await h.pool.query('UPDATE saved_query_tracking SET enabled = false');
});

const track: ReturnType<typeof trackingSteps>['track'] = (...args) => steps.track(...args);
const coverage: ReturnType<typeof trackingSteps>['coverage'] = (...args) => steps.coverage(...args);
const stored = (platform: string) => steps.stored(platform);

describe('Hacker News', () => {
  it('stores only what the exact query accepts, once, counted for each tracked query it matches', async () => {
    // Stories say "a coffee roaster I built"; comments "I roast my own coffee". The stand-in ignores the words.
    const hits = [
      ...hackerNewsHits(30, { topic: 'coffee' }),
      ...hackerNewsHits(12, { topic: 'tea', idFrom: 41_000_000, newest: 1_767_225_000 }),
    ];
    const replay = hackerNewsReplay(hits);
    h.serve({ '/search_by_date': replay.route });
    const [a, b] = [await createTeam(h.server), await createTeam(h.server)];
    const roasters = await track(a, 'coffee AND roaster', ['hackernews']);
    const anyRoaster = await track(b, 'roaster AND NOT tea', ['hackernews']);

    await pollTrackedQueries(deps);

    const coffeeStories = hits.filter((hit) => hit._tags.includes('story') && hit.title?.includes('coffee'));
    expect((await stored('hackernews')).map((p) => p.external_id)).toEqual(
      coffeeStories.map((hit) => hit.objectID).sort(),
    );
    expect(await h.postCount('hackernews')).toEqual({
      n: coffeeStories.length,
      distinct: coffeeStories.length,
    });
    for (const [team, id] of [
      [a, roasters],
      [b, anyRoaster],
    ] as const) {
      const c = await coverage(team, id, 'hackernews');
      expect(c.posts_today).toBe(coffeeStories.length);
      expect(c.last_post_at).toBe(Math.max(...coffeeStories.map((hit) => hit.created_at_i)));
      expect(c.gap).toBeNull();
    }
    // The query's own searches reached back to the oldest item fetched, matching or not.
    expect((await coverage(a, roasters, 'hackernews')).backfilled_to).toBe(
      Math.min(...hits.map((x) => x.created_at_i)),
    );
    // Searched by the cover's words, loosely: "roaster" (the longest), the exact query applied here.
    expect(h.replay.requests.some((r) => r.includes('query=roaster'))).toBe(true);

    // A second round: the stand-in answers the newest second again; nothing is counted or stored twice.
    await pollTrackedQueries(deps);
    expect((await coverage(a, roasters, 'hackernews')).posts_today).toBe(coffeeStories.length);
    expect(await h.postCount('hackernews')).toEqual({
      n: coffeeStories.length,
      distinct: coffeeStories.length,
    });

    // A newer matching story arrives: collected and counted.
    replay.hits.unshift({
      ...hackerNewsHits(1, { topic: 'coffee', idFrom: 42_000_000, newest: 1_767_300_000 })[0]!,
    });
    await pollTrackedQueries(deps);
    const after = await coverage(a, roasters, 'hackernews');
    expect(after.posts_today).toBe(coffeeStories.length + 1);
    expect(after.last_post_at).toBe(1_767_300_000);
  });

  it('polls what is new before the backfill goes on, page by page, until the source has nothing older', async () => {
    const hits = hackerNewsHits(250, { topic: 'coffee', idFrom: 43_000_000 });
    const replay = hackerNewsReplay(hits);
    h.serve({ '/search_by_date': replay.route });
    const team = await createTeam(h.server);
    const id = await track(team, 'coffee', ['hackernews']);
    const onePage = { ...deps, pagesPerSearch: 1 };
    const times = hits.map((hit) => hit.created_at_i);

    await pollTrackedQueries(onePage);
    let c = await coverage(team, id, 'hackernews');
    expect([c.posts_today, c.last_post_at, c.backfilled_to]).toEqual([100, times[0], times[99]]);

    // A new post while the backfill is under way: the next round takes it first, then the backfill's next page.
    const fresh = hackerNewsHits(1, { topic: 'coffee', idFrom: 44_000_000, newest: times[0]! + 600 })[0]!;
    replay.hits.unshift(fresh);
    await pollTrackedQueries(onePage);
    c = await coverage(team, id, 'hackernews');
    expect([c.posts_today, c.last_post_at, c.backfilled_to]).toEqual([200, fresh.created_at_i, times[198]]);

    await pollTrackedQueries(onePage);
    await pollTrackedQueries(onePage);
    c = await coverage(team, id, 'hackernews');
    expect([c.posts_today, c.last_post_at, c.backfilled_to]).toEqual([251, fresh.created_at_i, times[249]]);
    expect(await h.postCount('hackernews')).toEqual({ n: 251, distinct: 251 });
    // Backfilled: the last round asked only for what is newer.
    const last = h.replay.requests.at(-1)!;
    expect(decodeURIComponent(last)).toContain(`created_at_i>=${fresh.created_at_i}`);
    expect(decodeURIComponent(last)).not.toContain('created_at_i<=');
  });

  it('a rate limit is the gap, with its reason and until when; the round after it ends collects', async () => {
    let limited = true;
    const replay = hackerNewsReplay(hackerNewsHits(6), {
      before: () =>
        limited
          ? { status: 429, headers: { 'retry-after': '900' }, body: '{"message":"Too many requests"}' }
          : undefined,
    });
    h.serve({ '/search_by_date': replay.route });
    const team = await createTeam(h.server);
    const id = await track(team, 'coffee', ['hackernews']);
    const before = Math.floor(Date.now() / 1000);
    await pollTrackedQueries(deps);
    const c = await coverage(team, id, 'hackernews');
    expect(c.gap).toMatchObject({
      reason: 'rate_limited',
      message: expect.stringMatching(/^Hacker News rate limited until \d\d:\d\d UTC\.$/),
    });
    expect(c.gap!.since).toBeGreaterThanOrEqual(before);
    expect(c.gap!.until! - c.gap!.since).toBeGreaterThanOrEqual(899);
    expect(c.posts_today).toBe(0);

    // While the limit lasts the source is not asked.
    const asked = h.replay.requests.length;
    await pollTrackedQueries(deps);
    expect(h.replay.requests.length).toBe(asked);

    // Past it, the next round collects and the gap closes.
    limited = false;
    await h.pool.query(
      `UPDATE tracking_coverage SET gap_until = now() - interval '1 second' WHERE saved_query_id = $1`,
      [id],
    );
    await pollTrackedQueries(deps);
    const after = await coverage(team, id, 'hackernews');
    expect(after.gap).toBeNull();
    expect(after.posts_today).toBe(6);
    // The gap that ended is kept, with its reason, sentence and span.
    expect(after.closed_gaps).toEqual([
      { reason: 'rate_limited', message: c.gap!.message, since: c.gap!.since, ended: expect.any(Number) },
    ]);
    expect(after.closed_gaps![0]!.ended).toBeGreaterThanOrEqual(c.gap!.since);
  });

  it('a query with no words to search for says so', async () => {
    h.serve({ '/search_by_date': hackerNewsReplay(hackerNewsHits(3)).route });
    const team = await createTeam(h.server);
    const id = await track(team, 'lang:en', ['hackernews']);
    await pollTrackedQueries(deps);
    expect((await coverage(team, id, 'hackernews')).gap).toMatchObject({
      reason: 'no_search_words',
      until: null,
    });
    expect(h.replay.requests).toEqual([]);
  });

  it('pauses a workspace past its month of collection with the sentence, keeps what it has, and resumes', async () => {
    h.serve({ '/search_by_date': hackerNewsReplay(hackerNewsHits(6, { topic: 'coffee' })).route });
    const [full, other] = [await createTeam(h.server), await createTeam(h.server)];
    const paused = await track(full, 'coffee', ['hackernews']);
    const going = await track(other, 'roaster', ['hackernews']);
    // The trial's 50,000 posts a month, collected already (counted per query, per UTC day).
    await h.pool.query(
      `INSERT INTO tracking_coverage_days (saved_query_id, source, day, posts)
       VALUES ($1, 'hackernews', (now() AT TIME ZONE 'UTC')::date, 50000)`,
      [paused],
    );
    await pollTrackedQueries(deps);
    const gap = (await coverage(full, paused, 'hackernews')).gap;
    expect(gap).toMatchObject({ reason: 'plan_limit', until: null });
    expect(gap!.message).toMatch(
      /^Collection paused: this workspace has collected its Trial plan's 50,000 posts this month\. Nothing collected is lost; collection resumes on 1 \w+, or with a larger plan\.$/,
    );
    expect((await coverage(full, paused, 'hackernews')).posts_today).toBe(50_000);
    // The other workspace collects as before.
    expect((await coverage(other, going, 'hackernews')).posts_today).toBeGreaterThan(0);
    const usage = await as(h.server, full.owner, {
      method: 'GET',
      url: `/api/workspaces/${full.workspaceId}/plan`,
    });
    expect(usage.json<{ usage: Array<{ key: string; used: number; limit: number }> }>().usage).toEqual(
      expect.arrayContaining([{ key: 'posts_collected_per_month', used: 50_000, limit: 50_000 }]),
    );
    // Room again (a larger plan, or a new month): the next round collects and the gap closes.
    await h.pool.query('DELETE FROM tracking_coverage_days WHERE saved_query_id = $1', [paused]);
    await pollTrackedQueries(deps);
    const after = await coverage(full, paused, 'hackernews');
    expect(after.gap).toBeNull();
    expect(after.posts_today).toBeGreaterThan(0);
    expect(after.closed_gaps).toEqual([
      { reason: 'plan_limit', message: gap!.message, since: gap!.since, ended: expect.any(Number) },
    ]);
  });
});

describe('Reddit', () => {
  it('searches with the stored credentials, and says when there are none', async () => {
    const source = redditReplay(redditPosts(8), []);
    h.serve(source.refresh());
    const credentialId = await h.createCredential({
      kind: 'reddit',
      name: 'Reddit app',
      secret: { ...source.credentials, username: 'murmur_bot' },
    });
    const team = await createTeam(h.server);
    const id = await track(team, 'roast AND NOT decaf', ['reddit']);
    await pollTrackedQueries(deps);
    // Every other post has "Light roast" in its text.
    expect(await stored('reddit')).toHaveLength(4);
    expect((await coverage(team, id, 'reddit')).posts_today).toBe(4);
    expect(h.replay.requests.some((r) => r.startsWith('/search?') && r.includes('q=roast'))).toBe(true);

    // Staff delete the credentials: the next round records the gap, in words.
    await h.server.app.inject({
      method: 'DELETE',
      url: `/api/scraping/credentials/${credentialId}`,
      headers: h.auth,
    });
    await pollTrackedQueries(deps);
    expect((await coverage(team, id, 'reddit')).gap).toMatchObject({
      reason: 'credentials_missing',
      message: 'No Reddit credentials are set up: staff add them in the internal area.',
    });
  });
});
