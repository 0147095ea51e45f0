// Hacker News (Algolia search_by_date) against a local stand-in of the API (test/support/hacker-news-replay.ts, the
// recorded answer in test/fixtures/scraping/hackernews-search-by-date.json): the mapping of stories and comments,
// paging back by time to the end, a second of more items than a page, a later run asking only for what is newer and
// updating an edited item, a 429 waited out, an empty answer, a time-out and a 500 mid-run resumed from the
// committed cursor with nothing lost or doubled.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hackerNewsHits, hackerNewsReplay } from '@test/support/hacker-news-replay';
import { RetryableRunError } from '@server/scraping/runner';
import { startScrapingHarness, type ScrapingHarness } from '@test/support/scraping-runs';
import { fixture, type Reply } from '@test/support/replay-server';

let h: ScrapingHarness;

beforeAll(async () => {
  h = await startScrapingHarness();
});
afterAll(() => h.close());
beforeEach(() => h.reset('hackernews'));

const createJob = (query: string, items: 'all' | 'story' | 'comment' = 'all', maxPages = 20) =>
  h.createJob(`HN ${query}`, { source: 'hackernews_search', query, items, max_pages: maxPages });

const stored = async () =>
  (
    await h.pool.query<{ external_id: string; text: string; kind: string; likes: number; url: string }>(
      `SELECT external_id, text, kind::text, likes, url FROM posts WHERE platform = 'hackernews' ORDER BY external_id`,
    )
  ).rows;
const searches = () => h.replay.requests.filter((r) => r.startsWith('/search_by_date'));

describe('Hacker News search', () => {
  it('maps stories and comments from the recorded answer and refuses the deleted comment with its reason', async () => {
    h.replay.routes.set('/search_by_date', () => ({ body: fixture('hackernews-search-by-date.json') }));
    const runId = await h.run(await createJob('coffee'));
    expect(await h.runRow(runId)).toMatchObject({
      status: 'succeeded',
      pages: 1,
      fetched: 3,
      inserted: 2,
      refused: 1,
    });
    const posts = await stored();
    expect(posts).toEqual([
      {
        external_id: '46441001',
        text: 'Show HN: A coffee roaster controlled from the terminal',
        kind: 'original',
        likes: 128,
        url: 'https://news.ycombinator.com/item?id=46441001',
      },
      {
        external_id: '46441007',
        text: 'Lovely project. I roast on a popcorn machine & the first crack is so loud.\n\nHow do you log bean temperature?',
        kind: 'reply',
        likes: 0,
        url: 'https://news.ycombinator.com/item?id=46441007',
      },
    ]);
    const { rows } = await h.pool.query<{ domains: string[]; handle: string; language: string | null }>(
      `SELECT p.domains, a.handle, p.language FROM posts p JOIN profiles a ON a.id = p.author_id
        WHERE p.platform = 'hackernews' AND p.external_id = '46441001'`,
    );
    expect(rows[0]).toMatchObject({
      domains: ['example.com'],
      handle: 'beanhacker',
      language: 'en',
    });
    const refusals = await h.pool.query('SELECT ref, reason FROM scrape_refusals WHERE run_id = $1', [runId]);
    expect(refusals.rows).toEqual([
      {
        ref: 'https://news.ycombinator.com/item?id=46440990',
        reason: 'the item has no author (deleted or dead on Hacker News)',
      },
    ]);
    expect(searches()[0]).toContain('tags=%28story%2Ccomment%29');
    expect(searches()[0]).toContain('query=coffee');
  });

  it('pages back by time to the end, through a second holding more items than a page, then asks only for newer items', async () => {
    // 260 items a minute apart, and 150 more all in one second older than them.
    const hits = [
      ...hackerNewsHits(260, { newest: 1_767_225_600 }),
      ...hackerNewsHits(150, { newest: 1_767_000_000, stepSeconds: 0, idFrom: 30_000_000 }),
    ];
    const source = hackerNewsReplay(hits);
    h.replay.routes.set('/search_by_date', source.route);
    const jobId = await createJob('coffee');
    const first = await h.run(jobId);
    const row = await h.runRow(first);
    expect(row).toMatchObject({ status: 'succeeded', refused: 0, inserted: 410 });
    expect((await stored()).length).toBe(410);
    // Each request after the first asks for what is at or before the oldest second reached; inside the crowded second,
    // Algolia's page moves on.
    const asked = searches().map((r) => new URL(r, 'http://x').searchParams);
    expect(asked[0]!.get('numericFilters')).toBeNull();
    expect(asked[1]!.get('numericFilters')).toBe(`created_at_i<=${1_767_225_600 - 99 * 60}`);
    expect(
      asked.some((p) => p.get('page') === '1' && p.get('numericFilters') === 'created_at_i<=1767000000'),
    ).toBe(true);

    // Later: two new items and an edited one; the run asks from the newest second it saw, nothing older.
    h.replay.requests.length = 0;
    source.hits.unshift(...hackerNewsHits(2, { newest: 1_767_225_800, idFrom: 50_000_000, stepSeconds: 30 }));
    const edited = source.hits.find((h) => h.objectID === String(40_000_000 + 260))!;
    edited.title = 'Show HN: a coffee roaster I built (edited title)';
    edited.created_at_i = 1_767_225_600;
    const second = await h.run(jobId);
    expect(await h.runRow(second)).toMatchObject({ status: 'succeeded', pages: 1, inserted: 2, updated: 1 });
    expect(searches()).toHaveLength(1);
    expect(new URL(searches()[0]!, 'http://x').searchParams.get('numericFilters')).toBe(
      'created_at_i>=1767225600',
    );
    expect((await stored()).length).toBe(412);
    expect((await stored()).find((p) => p.external_id === edited.objectID)?.text).toBe(
      'Show HN: a coffee roaster I built (edited title)',
    );
  });

  it('waits out a 429, and an empty answer ends the run at once', async () => {
    const source = hackerNewsReplay(hackerNewsHits(120), {
      before: (_url, count): Reply | undefined =>
        count === 2
          ? { status: 429, headers: { 'retry-after': '1' }, body: '{"message":"rate limited"}' }
          : undefined,
    });
    h.replay.routes.set('/search_by_date', source.route);
    const runId = await h.run(await createJob('coffee'));
    expect(await h.runRow(runId)).toMatchObject({ status: 'succeeded', inserted: 120 });
    expect((await h.logOf(runId)).some((l) => /answered 429; Retry-After 1 s: waiting/.test(l))).toBe(true);

    h.replay.routes.set('/search_by_date', hackerNewsReplay([]).route);
    const empty = await h.run(await createJob('nothing matches'));
    expect(await h.runRow(empty)).toMatchObject({ status: 'succeeded', pages: 1, fetched: 0 });
  });

  it('a time-out and a 500 mid-run: the next attempts resume from the committed cursor, nothing lost or doubled', async () => {
    const source = hackerNewsReplay(hackerNewsHits(350), {
      before: (_url, count) =>
        count === 2 ? { hang: true } : count === 4 ? { status: 500, body: '{}' } : undefined,
    });
    h.replay.routes.set('/search_by_date', source.route);
    const runId = await h.newRun(await createJob('coffee'));
    await expect(h.attempt(runId, 0)).rejects.toBeInstanceOf(RetryableRunError);
    expect(await h.runRow(runId)).toMatchObject({ status: 'waiting', pages: 1 });
    await expect(h.attempt(runId, 1)).rejects.toBeInstanceOf(RetryableRunError);
    expect(await h.runRow(runId)).toMatchObject({ status: 'waiting', pages: 2 });
    await h.attempt(runId, 2);
    expect(await h.runRow(runId)).toMatchObject({
      status: 'succeeded',
      inserted: 350,
      refused: 0,
      attempts: 3,
    });
    const { rows } = await h.pool.query<{ n: number; distinct: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT external_id)::int AS distinct FROM posts WHERE platform = 'hackernews'`,
    );
    expect(rows[0]).toEqual({ n: 350, distinct: 350 });
    const log = await h.logOf(runId);
    expect(log.some((l) => /no answer within 1 s/.test(l))).toBe(true);
    expect(log.some((l) => l.startsWith('Resumed from the saved cursor after 2 pages'))).toBe(true);
  });
});
