// The performance and conversation dashboards against a brute force over every row: metrics per platform, media and
// kind, the engagement rate, day × hour in the workspace's zone; top hashtags, mentions, domains and words, their
// sentiment, and emerging words against the previous period.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConversationResponse, PerformanceResponse } from '@contract/insights-responses';
import { resolveInsightScope } from '@server/social/insights/request';
import {
  conversation,
  MAX_SAMPLE_LEVEL,
  WORD_SAMPLE_CAP,
  type WordSampling,
} from '@server/social/insights/conversation';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createWorkspace, type Person } from '@test/support/workspaces.fixtures';
import { allRows, insertCorpus, matchingIds, type Row } from '@test/support/insights.fixtures';
import { byCodePoint, inScope, sum, topCounts, wall, wordStats } from '@test/support/insights-brute-force';

let server: TestServer;
let viewer: Person;
const workspaces = new Map<string, string>();
let rows: Row[];
const ZONES = ['America/New_York', 'Asia/Seoul'];

beforeAll(async () => {
  server = await createTestServer();
  viewer = await server.createUser();
  for (const zone of ZONES) {
    workspaces.set(zone, (await createWorkspace(server, [[viewer, 'viewer']], { timeZone: zone })).id);
  }
  await insertCorpus(server);
  rows = await allRows(server);
});
afterAll(() => server.close());

const RANGES = [
  ['2026-10-25T04:00:00Z', '2026-11-08T05:00:00Z'],
  ['2026-03-07T17:00:00Z', '2026-03-09T04:00:00Z'],
] as const;
const QUERIES = ['', 'coffee OR tea', '#novax'];

const call = (zone: string, url: string, body: Record<string, unknown>) =>
  as(server, viewer, {
    method: 'POST',
    url: `/social/insights/${url}`,
    payload: { workspace_id: workspaces.get(zone), ...body },
  });

function metrics(set: Row[]) {
  const rated = set.filter((r) => r.followers > 0);
  return {
    posts: set.length,
    likes: sum(set.map((r) => r.likes)),
    comments: sum(set.map((r) => r.comments)),
    shares: sum(set.map((r) => r.shares)),
    views: sum(set.map((r) => r.views ?? 0)),
    engagement: sum(set.map((r) => r.engagement)),
    average_engagement: set.length ? sum(set.map((r) => r.engagement)) / set.length : null,
    engagement_rate: rated.length ? sum(rated.map((r) => r.engagement / r.followers)) / rated.length : null,
  };
}

function expectMetrics(actual: Record<string, unknown>, set: Row[]) {
  const { average_engagement, engagement_rate, ...counts } = metrics(set);
  expect(actual).toMatchObject(counts);
  for (const [key, value] of Object.entries({ average_engagement, engagement_rate })) {
    if (value === null) expect(actual[key]).toBeNull();
    else expect(actual[key]).toBeCloseTo(value, 9);
  }
}

describe('performance matches a brute force', () => {
  const cases = ZONES.flatMap((zone) =>
    RANGES.flatMap((range) => QUERIES.map((q) => [zone, q, range] as const)),
  );
  it.each(cases)('%s, query %j, %j', async (zone, query, [from, to]) => {
    const res = await call(zone, 'performance', { query, filters: { from, to } });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<PerformanceResponse>();
    const ids = await matchingIds(server, query);
    const current = rows.filter(inScope({ ids, from: Date.parse(from), to: Date.parse(to) }));
    expect(current.length).toBeGreaterThan(0);

    expectMetrics(body.totals, current);
    expect(body.totals.average_sentiment).toBeCloseTo(
      sum(current.map((r) => r.sentiment)) / current.length,
      6,
    );
    for (const entry of body.by_platform)
      expectMetrics(
        entry,
        current.filter((r) => r.platform === entry.platform),
      );
    for (const entry of body.by_media)
      expectMetrics(
        entry,
        current.filter((r) => r.media === entry.media),
      );
    for (const entry of body.by_kind)
      expectMetrics(
        entry,
        current.filter((r) => r.kind === entry.kind),
      );
    expect(body.by_platform.map((p) => p.platform)).toEqual([
      'x',
      'instagram',
      'tiktok',
      'youtube',
      'facebook',
      'reddit',
      'mastodon',
      'bluesky',
      'rss',
      'hackernews',
    ]);

    expect(body.best_time).toHaveLength(7 * 24);
    for (const cell of body.best_time) {
      const set = current.filter((r) => {
        const w = wall(r.at, zone);
        return w.weekday === cell.day && w.h === cell.hour;
      });
      expect(cell.posts, `${cell.day} ${cell.hour}`).toBe(set.length);
      if (set.length)
        expect(cell.average_engagement).toBeCloseTo(sum(set.map((r) => r.engagement)) / set.length, 9);
      else expect(cell.average_engagement).toBeNull();
    }
    expect(sum(body.best_time.map((c) => c.posts))).toBe(current.length);
    expect(body.counted).toContain(zone);
  });
});

describe('conversation matches a brute force', () => {
  const cases = RANGES.flatMap((range) => QUERIES.map((q) => [q, range] as const));
  it.each(cases)('query %j, %j', async (query, [from, to]) => {
    const res = await call('America/New_York', 'conversation', { query, filters: { from, to }, limit: 8 });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<ConversationResponse>();
    const ids = await matchingIds(server, query);
    const [f, t] = [Date.parse(from), Date.parse(to)];
    const current = rows.filter(inScope({ ids, from: f, to: t }));
    const previous = rows.filter(inScope({ ids, from: f, to: t }, 2 * f - t, f));

    expect(body.hashtags).toEqual(topCounts(current, (r) => r.hashtags, 8));
    expect(body.mentions).toEqual(topCounts(current, (r) => r.mentions, 8));
    expect(body.domains).toEqual(topCounts(current, (r) => r.domains, 8));

    const stats = wordStats(current, previous);
    const terms = [...stats].sort((a, b) => b.n - a.n || byCodePoint(a.value, b.value)).slice(0, 8);
    expect(body.terms.map((x) => [x.value, x.posts])).toEqual(terms.map((x) => [x.value, x.n]));
    body.terms.forEach((x, i) => expect(x.average_sentiment).toBeCloseTo(terms[i]!.s / terms[i]!.n, 6));

    const ratio = (e: { n: number; prev: number }) => e.n / Math.max(e.prev, 1);
    const emerging = stats
      .filter((e) => e.n >= 5 && ratio(e) >= 2)
      .sort((a, b) => ratio(b) - ratio(a) || b.n - a.n || byCodePoint(a.value, b.value))
      .slice(0, 8);
    expect(body.emerging).toEqual(
      emerging.map((e) => ({ value: e.value, posts: e.n, previous_posts: e.prev, ratio: ratio(e) })),
    );
  });

  it('finds the late word "outage" emerging and leaves out stop words, links, numbers and short words', async () => {
    const [from, to] = RANGES[0];
    const res = await call('America/New_York', 'conversation', {
      query: '',
      filters: { from, to },
      limit: 50,
    });
    const body = res.json<ConversationResponse>();
    expect(body.emerging.map((e) => e.value)).toContain('outage');
    const words = body.terms.map((x) => x.value);
    expect(words).toContain('coffee');
    for (const left of ['the', 'and', 'que', '진짜', 'これ', 'ok', 'x', '2026', 'example.com']) {
      expect(words).not.toContain(left);
    }
    expect(words).toEqual(expect.arrayContaining(['커피', 'café']));
  });
});

/** The brute force of SAMPLE_RULE for one period's matching posts. */
function sampleOf(set: Row[], { cap, pilotLevel }: WordSampling) {
  const hash = (r: Row) => (r.id * 40503) % 65536;
  const pilot = set.filter((r) => hash(r) < 65536 >> pilotLevel).length;
  const estimate = pilot * 2 ** pilotLevel;
  const estimated = estimate >= 2 * cap;
  const cut = estimated ? Math.ceil((65536 * cap) / estimate) : 65536;
  const rows = set.filter((r) => hash(r) < cut);
  return { rows, cut, estimate, estimated, posts: Math.round((rows.length * 65536) / cut) };
}

describe('conversation words over a sample', () => {
  const scopeOf = async (from: string, to: string, query = '') =>
    resolveInsightScope(
      server.db,
      { timeZone: 'America/New_York' },
      { workspace_id: 'w', query, filters: { from, to } },
    );
  const periodsOf = (from: string, to: string, ids = new Set(rows.map((r) => r.id))) => {
    const [f, t] = [Date.parse(from), Date.parse(to)];
    return [
      rows.filter(inScope({ ids, from: f, to: t })),
      rows.filter(inScope({ ids, from: f, to: t }, 2 * f - t, f)),
    ];
  };

  it('estimates each period from a pilot slice, counts words in its hash sample and scales them', async () => {
    const [from, to] = RANGES[0];
    const sampling = { cap: 20, pilotLevel: 2 };
    const body = await conversation(server.db, await scopeOf(from, to), 8, sampling, server.analytics);
    const periods = periodsOf(from, to);
    const samples = periods.map((set) => sampleOf(set, sampling));
    // Both periods are large enough to be sampled, and the samples are smaller than the periods.
    expect(samples.map((s) => s.estimated)).toEqual([true, true]);
    expect(samples[0]!.rows.length).toBeLessThan(periods[0]!.length);
    expect(body.words_sample).toEqual({
      current: { posts: samples[0]!.posts, sampled: samples[0]!.rows.length, estimated: true },
      previous: { posts: samples[1]!.posts, sampled: samples[1]!.rows.length, estimated: true },
      cap: 20,
    });
    expect(body.counted).toContain(
      `a sample of ${samples[0]!.rows.length} of the range's about ${samples[0]!.posts} posts`,
    );
    // Hashtags are still counted in every post.
    expect(body.hashtags).toEqual(topCounts(periods[0]!, (r) => r.hashtags, 8));

    const scale = (n: number, i: number) => (n * 65536) / samples[i]!.cut;
    const stats = wordStats(samples[0]!.rows, samples[1]!.rows).map((e) => ({
      ...e,
      est: scale(e.n, 0),
      prevEst: scale(e.prev, 1),
    }));
    const terms = [...stats].sort((a, b) => b.n - a.n || byCodePoint(a.value, b.value)).slice(0, 8);
    expect(body.terms.map((x) => [x.value, x.posts])).toEqual(terms.map((x) => [x.value, Math.round(x.est)]));
    const ratio = (e: (typeof stats)[number]) => e.est / Math.max(e.prevEst, 1);
    const emerging = stats
      .filter((e) => e.est >= 5 && ratio(e) >= 2)
      .sort((a, b) => ratio(b) - ratio(a) || b.est - a.est || byCodePoint(a.value, b.value))
      .slice(0, 8);
    expect(body.emerging.map((e) => [e.value, e.posts, e.previous_posts, e.ratio])).toEqual(
      emerging.map((e) => [e.value, Math.round(e.est), Math.round(e.prevEst), ratio(e)]),
    );
  });

  it('reads a period whole when its pilot estimate is under twice the cap, while sampling the other', async () => {
    const [from, to] = RANGES[0];
    const periods = periodsOf(from, to);
    // A cap between the two periods' estimates: the larger one is sampled, the smaller one read whole.
    const pilotLevel = 1;
    const [big, small] = periods.map((set) => sampleOf(set, { cap: 1, pilotLevel }).estimate);
    expect(big).not.toEqual(small);
    const cap = Math.floor((big! + small!) / 4);
    const sampling = { cap, pilotLevel };
    const samples = periods.map((set) => sampleOf(set, sampling));
    expect(samples.map((s) => s.estimated).sort()).toEqual([false, true]);
    const body = await conversation(server.db, await scopeOf(from, to), 8, sampling, server.analytics);
    const [current, previous] = samples.map((s) => ({
      posts: s.posts,
      sampled: s.rows.length,
      estimated: s.estimated,
    }));
    expect(body.words_sample).toEqual({ current, previous, cap });
    // The period read whole reports its exact count.
    const whole = samples.findIndex((s) => !s.estimated);
    expect(samples[whole]!.posts).toBe(periods[whole]!.length);
    const stats = wordStats(samples[0]!.rows, samples[1]!.rows);
    const scale = (n: number, i: number) => Math.round((n * 65536) / samples[i]!.cut);
    const terms = [...stats].sort((a, b) => b.n - a.n || byCodePoint(a.value, b.value)).slice(0, 8);
    expect(body.terms.map((x) => [x.value, x.posts])).toEqual(terms.map((x) => [x.value, scale(x.n, 0)]));
  });

  const levelOf = (cut: number) =>
    [...Array(MAX_SAMPLE_LEVEL).keys()].filter((l) => 65536 >> (l + 1) >= cut).length;

  it('finds the same sample at every level, for a condition in the search index or not', async () => {
    const [from, to] = RANGES[0];
    // '' and '#novax' are not in the search index.
    for (const query of QUERIES) {
      const periods = periodsOf(from, to, await matchingIds(server, query));
      const levels = new Set<number>();
      for (const cap of [1, 2, 3, 5, 8, 13, 21]) {
        const sampling = { cap, pilotLevel: 1 };
        const samples = periods.map((set) => sampleOf(set, sampling));
        const cuts = samples.filter((x) => x.estimated).map((x) => x.cut);
        if (!cuts.length) continue;
        levels.add(levelOf(Math.max(...cuts)));
        const body = await conversation(
          server.db,
          await scopeOf(from, to, query),
          8,
          sampling,
          server.analytics,
        );
        const [current, previous] = samples.map((x) => ({
          posts: x.posts,
          sampled: x.rows.length,
          estimated: x.estimated,
        }));
        expect(body.words_sample, `${query} with cap ${cap}`).toEqual({ current, previous, cap });
      }
      // The caps reach samples at several levels.
      expect(levels.size, query).toBeGreaterThan(1);
    }
  });

  it('reads both samples from one slice when the two periods need different levels', async () => {
    const [from, to] = RANGES[0];
    const periods = periodsOf(from, to);
    // A cap at which both periods are sampled but their cuts fall in different levels: the slice read must be the
    // lower level's, or the period with the higher cut loses posts of its sample.
    const cap =
      [...Array(200).keys()].find((c) => {
        const samples = periods.map((set) => sampleOf(set, { cap: c + 1, pilotLevel: 1 }));
        return samples.every((x) => x.estimated) && levelOf(samples[0]!.cut) !== levelOf(samples[1]!.cut);
      })! + 1;
    expect(cap).toBeGreaterThan(0);
    const sampling = { cap, pilotLevel: 1 };
    const samples = periods.map((set) => sampleOf(set, sampling));
    const body = await conversation(server.db, await scopeOf(from, to), 8, sampling, server.analytics);
    const [current, previous] = samples.map((x) => ({
      posts: x.posts,
      sampled: x.rows.length,
      estimated: true,
    }));
    expect(body.words_sample).toEqual({ current, previous, cap });
  });

  it('reads every post when no period reaches twice the cap', async () => {
    const [from, to] = RANGES[0];
    const periods = periodsOf(from, to);
    const body = await conversation(server.db, await scopeOf(from, to), 8, undefined, server.analytics);
    expect(body.words_sample).toEqual({
      current: { posts: periods[0]!.length, sampled: periods[0]!.length, estimated: false },
      previous: { posts: periods[1]!.length, sampled: periods[1]!.length, estimated: false },
      cap: WORD_SAMPLE_CAP,
    });
    expect(body.counted).toContain('Words were counted in every post.');
  });
});
