// The performance and conversation dashboards against a brute force over every row: metrics per platform, media and
// kind, the engagement rate, day × hour in the workspace's zone; top hashtags, mentions, domains and words, their
// sentiment, and emerging words against the previous period.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConversationResponse, PerformanceResponse } from '../../src/api/contract/insights-responses';
import { resolveInsightScope } from '../../server/social/insights/context';
import { conversation } from '../../server/social/insights/conversation';
import { createTestServer, type TestServer } from '../support/server-harness';
import { as, createWorkspace, type Person } from './workspaces.fixtures';
import { allRows, insertCorpus, matchingIds, type Row } from './insights.fixtures';
import { byCodePoint, inScope, sum, topCounts, wall, wordStats } from './insights.expect';

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

describe('conversation words over a sample', () => {
  it('counts words in the hash sample of each period and scales the counts to the period', async () => {
    const [from, to] = RANGES[0];
    const cap = 40;
    const context = await resolveInsightScope(
      server.db,
      async () => ({ workspace: { timeZone: 'America/New_York' } }),
      { workspace_id: 'w', query: '', filters: { from, to } },
      viewer.id,
    );
    const body = await conversation(server.db, context, 8, cap);
    const [f, t] = [Date.parse(from), Date.parse(to)];
    const ids = new Set(rows.map((r) => r.id));
    const periods = [
      rows.filter(inScope({ ids, from: f, to: t })),
      rows.filter(inScope({ ids, from: f, to: t }, 2 * f - t, f)),
    ];
    const samples = periods.map((set) => {
      const cut = set.length <= cap ? 65536 : Math.ceil((65536 * cap) / set.length);
      return set.filter((r) => (r.id * 40503) % 65536 < cut);
    });
    expect(body.words_sample).toEqual({
      current: { posts: periods[0]!.length, sampled: samples[0]!.length },
      previous: { posts: periods[1]!.length, sampled: samples[1]!.length },
      cap,
    });
    expect(samples[0]!.length).toBeLessThan(periods[0]!.length);
    expect(body.counted).toContain(
      `a sample of ${samples[0]!.length} of the range's ${periods[0]!.length} posts`,
    );
    // Hashtags are still counted in every post.
    expect(body.hashtags).toEqual(topCounts(periods[0]!, (r) => r.hashtags, 8));

    const scale = (n: number, i: number) => (n * periods[i]!.length) / Math.max(samples[i]!.length, 1);
    const stats = wordStats(samples[0]!, samples[1]!).map((e) => ({
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
});
