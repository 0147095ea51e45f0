// The backfill of a newly tracked query on the streamed sources, against local stand-ins of Bluesky's searchPosts and
// a Mastodon instance's tag timelines (no internet): the poll goes back page by page until the source has nothing
// older (reachedBack in coverage) and then asks no more (the stream takes what is new); only what the exact query
// accepts is stored, once, counted for every query it matches; a post made after tracking began is the stream's to
// count; a search that does not answer is the query's gap, in words.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScrapingHarness, type ScrapingHarness } from '@test/support/scraping-runs';
import { trackingSteps } from '@test/support/tracking-poll';
import { createTeam } from '@test/support/workspaces.fixtures';
import type { Route } from '@test/support/replay-server';
import { pollTrackedQueries } from '@server/tracking/poll';

let h: ScrapingHarness;
let steps: ReturnType<typeof trackingSteps>;
beforeAll(async () => {
  h = await startScrapingHarness();
  steps = trackingSteps(h);
});
afterAll(() => h.close());
beforeEach(async () => {
  for (const platform of ['bluesky', 'mastodon']) await h.reset(platform);
  await h.pool.query('UPDATE saved_query_tracking SET enabled = false');
});

const poll = () => pollTrackedQueries(steps.deps);
const requests = (path: string) => h.replay.requests.filter((r) => r.startsWith(path));
const unix = (iso: string) => Date.parse(iso) / 1000;

interface Said {
  id: string;
  text: string;
  at: string;
  tags?: string[];
}

/** Espresso (one decaf, one posted after tracking began) and tea, newest first. */
const said = (): Said[] => [
  {
    id: 'efut',
    text: 'Espresso right now',
    at: new Date(Date.now() + 60_000).toISOString(),
    tags: ['espresso'],
  },
  { id: 'e2', text: 'Espresso at dawn', at: '2026-01-05T08:00:00.000Z', tags: ['espresso'] },
  { id: 't1', text: 'Tea at noon', at: '2026-01-04T12:00:00.000Z', tags: ['tea'] },
  { id: 'e3', text: 'Espresso, decaf', at: '2026-01-04T08:00:00.000Z', tags: ['espresso'] },
  { id: 'e4', text: 'Espresso at lunch', at: '2026-01-03T08:00:00.000Z', tags: ['espresso'] },
  { id: 'e5', text: 'Espresso at dusk', at: '2026-01-02T08:00:00.000Z', tags: ['espresso'] },
  { id: 't2', text: 'Tea at night', at: '2026-01-01T08:00:00.000Z', tags: ['tea'] },
];

describe('Bluesky', () => {
  /** searchPosts over `posts`: those whose text has q, newest first, two a page (the AppView may answer fewer). */
  const searchPosts =
    (posts: Said[]): Route =>
    (url) => {
      const q = (url.searchParams.get('q') ?? '').toLowerCase();
      const found = posts.filter((p) => p.text.toLowerCase().includes(q));
      const start = Number(url.searchParams.get('cursor') ?? 0);
      const page = found.slice(start, start + 2);
      return {
        body: JSON.stringify({
          ...(start + 2 < found.length && { cursor: String(start + 2) }),
          posts: page.map((p) => ({
            uri: `at://did:plc:ana/app.bsky.feed.post/${p.id}`,
            cid: `bafy${p.id}`,
            author: { did: 'did:plc:ana', handle: 'ana.bsky.social', displayName: 'Ana' },
            record: { $type: 'app.bsky.feed.post', text: p.text, createdAt: p.at, langs: ['en'] },
            replyCount: 0,
            repostCount: 0,
            likeCount: 1,
            quoteCount: 0,
            indexedAt: p.at,
          })),
        }),
      };
    };
  const uri = (id: string) => `at://did:plc:ana/app.bsky.feed.post/${id}`;

  it('goes back through searchPosts until nothing is older, then asks no more', async () => {
    h.serve({ '/xrpc/app.bsky.feed.searchPosts': searchPosts(said()) });
    const [a, b] = [await createTeam(h.server), await createTeam(h.server)];
    const plain = await steps.track(a, 'espresso AND NOT decaf', ['bluesky']);
    const either = await steps.track(b, 'espresso OR tea', ['bluesky']);

    await poll();
    // The espresso search paged once for both queries (three pages of two); tea once, for the second.
    const asked = requests('/xrpc/app.bsky.feed.searchPosts').map(
      (r) => new URL(r, 'http://replay').searchParams,
    );
    expect(asked.map((p) => [p.get('q'), p.get('cursor'), p.get('sort')])).toEqual([
      ['espresso', null, 'latest'],
      ['espresso', '2', 'latest'],
      ['espresso', '4', 'latest'],
      ['tea', null, 'latest'],
    ]);
    expect((await steps.stored('bluesky')).map((p) => p.external_id)).toEqual(
      ['efut', 'e2', 't1', 'e3', 'e4', 'e5', 't2'].map(uri).sort(),
    );
    // Counted: what was posted before tracking began (the post after it is the stream's to count).
    const c = await steps.coverage(a, plain, 'bluesky');
    expect([c.posts_today, c.backfilled_to]).toEqual([3, unix('2026-01-02T08:00:00Z')]);
    const d = await steps.coverage(b, either, 'bluesky');
    expect([d.posts_today, d.backfilled_to]).toEqual([6, unix('2026-01-01T08:00:00Z')]);

    // Backfilled: nothing more is asked, and nothing counted twice.
    const before = h.replay.requests.length;
    await poll();
    expect(h.replay.requests.length).toBe(before);
    expect(await h.postCount('bluesky')).toEqual({ n: 7, distinct: 7 });
    expect((await steps.coverage(b, either, 'bluesky')).posts_today).toBe(6);
  });

  it('says a search that does not answer as the gap, asked again; one that refuses, once', async () => {
    let status = 500;
    h.serve({ '/xrpc/app.bsky.feed.searchPosts': () => ({ status, body: '{"error":"AuthMissing"}' }) });
    const team = await createTeam(h.server);
    const id = await steps.track(team, 'espresso', ['bluesky']);
    await poll();
    expect((await steps.coverage(team, id, 'bluesky')).gap).toMatchObject({
      reason: 'unreachable',
      message: expect.stringMatching(/^Bluesky post search did not answer: 127\.0\.0\.1:\d+ answered 500$/),
    });
    status = 403;
    await poll();
    expect((await steps.coverage(team, id, 'bluesky')).gap).toMatchObject({
      reason: 'unreachable',
      message: expect.stringMatching(
        /^Bluesky post search refused the backfill: 127\.0\.0\.1:\d+ answered 403 for \/xrpc\/app\.bsky\.feed\.searchPosts$/,
      ),
    });
    // Not asked again: the backfill ends where the source refused it (the stream goes on).
    await poll();
    expect(requests('/xrpc/app.bsky.feed.searchPosts')).toHaveLength(2);
  });
});

describe('Mastodon', () => {
  /** The instance's tag timelines: statuses carrying the tag, newest first, two a page (rel="next" by max_id). */
  const tagTimelines = (statuses: Said[], base: string): Record<string, Route> => {
    const routes: Record<string, Route> = {};
    for (const tag of ['espresso', 'tea']) {
      routes[`/api/v1/timelines/tag/${tag}`] = (url) => {
        const maxId = url.searchParams.get('max_id');
        const tagged = statuses
          .map((s, i) => ({ ...s, n: String(100 - i) }))
          .filter((s) => s.tags?.includes(tag) && (!maxId || Number(s.n) < Number(maxId)));
        const page = tagged.slice(0, 2);
        const next = tagged.length > 2 ? page.at(-1)!.n : undefined;
        return {
          ...(next && {
            headers: { link: `<${base}/api/v1/timelines/tag/${tag}?max_id=${next}>; rel="next"` },
          }),
          body: JSON.stringify(
            page.map((s) => ({
              id: s.n,
              uri: `https://social.example/users/ana/statuses/${s.id}`,
              created_at: s.at,
              language: 'en',
              content: `<p>${s.text}</p>`,
              account: {
                id: '1',
                username: 'ana',
                acct: 'ana',
                display_name: 'Ana',
                url: 'https://social.example/@ana',
              },
              tags: (s.tags ?? []).map((name) => ({ name })),
              mentions: [],
              media_attachments: [],
            })),
          ),
        };
      };
    }
    return routes;
  };

  it("backfills the tag timelines of the query's hashtags until nothing is older", async () => {
    const instance = h.replay.url;
    const source = `mastodon:${instance}`;
    h.serve(tagTimelines(said(), instance));
    await h.pool.query(
      `INSERT INTO scrape_jobs (name, source, params) VALUES ('tag', 'mastodon_hashtag', $1)`,
      [JSON.stringify({ source: 'mastodon_hashtag', instance, hashtag: 'espresso', max_pages: 1 })],
    );
    const [a, b] = [await createTeam(h.server), await createTeam(h.server)];
    const plain = await steps.track(a, '#espresso AND NOT decaf', [source]);
    const either = await steps.track(b, '#espresso OR #tea', [source]);

    await poll();
    expect(requests('/api/v1/timelines/tag/')).toEqual([
      expect.stringMatching(/^\/api\/v1\/timelines\/tag\/espresso\?limit=40$/),
      expect.stringMatching(/^\/api\/v1\/timelines\/tag\/espresso\?limit=40&max_id=99$/),
      expect.stringMatching(/^\/api\/v1\/timelines\/tag\/espresso\?limit=40&max_id=96$/),
      expect.stringMatching(/^\/api\/v1\/timelines\/tag\/tea\?limit=40$/),
    ]);
    const statusUri = (id: string) => `https://social.example/users/ana/statuses/${id}`;
    expect((await steps.stored('mastodon')).map((p) => p.external_id)).toEqual(
      ['efut', 'e2', 't1', 'e3', 'e4', 'e5', 't2'].map(statusUri).sort(),
    );
    const c = await steps.coverage(a, plain, source);
    expect([c.posts_today, c.backfilled_to]).toEqual([3, unix('2026-01-02T08:00:00Z')]);
    const d = await steps.coverage(b, either, source);
    expect([d.posts_today, d.backfilled_to]).toEqual([6, unix('2026-01-01T08:00:00Z')]);

    const asked = h.replay.requests.length;
    await poll();
    expect(h.replay.requests.length).toBe(asked);
    expect(await h.postCount('mastodon')).toEqual({ n: 7, distinct: 7 });
  });
});
