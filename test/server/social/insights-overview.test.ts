// POST /social/insights/overview against a brute force over every row: buckets in the workspace's zone across both
// DST changes (and a half-hour zone), zero-filled; totals against the previous period; spikes; sentiment; platforms;
// top posts and people with their tie-breaks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OverviewResponse } from '@contract/insights-responses';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createWorkspace, type Person } from '@test/support/workspaces.fixtures';
import { allRows, insertCorpus, matchingIds, type Row } from '@test/support/insights.fixtures';
import {
  bucketKey,
  bucketKeys,
  byCodePoint,
  byEngagement,
  changePct,
  inScope,
  PERSON_ORDER,
  perAuthor,
  sum,
  wall,
  type Scope,
} from '@test/support/insights-brute-force';

let server: TestServer;
let viewer: Person;
let rows: Row[];
const workspaces = new Map<string, string>();
const ZONES = ['America/New_York', 'Asia/Kolkata'];

beforeAll(async () => {
  server = await createTestServer();
  viewer = await server.createUser();
  for (const zone of ZONES) {
    const workspace = await createWorkspace(server, [[viewer, 'viewer']], { timeZone: zone });
    workspaces.set(zone, workspace.id);
  }
  await insertCorpus(server);
  rows = await allRows(server);
});
afterAll(() => server.close());

export const RANGES = {
  'two weeks over the clocks going back': ['2026-10-25T04:00:00Z', '2026-11-08T05:00:00Z'],
  'hours over the clocks going back': ['2026-10-31T16:00:00Z', '2026-11-02T05:00:00Z'],
  'hours over the clocks going forward': ['2026-03-07T17:00:00Z', '2026-03-09T04:00:00Z'],
  'weeks from March to November': ['2026-03-02T05:00:00Z', '2026-11-09T05:00:00Z'],
} as const;

async function overview(zone: string, query: string, [from, to]: readonly [string, string], extra = {}) {
  const res = await as(server, viewer, {
    method: 'POST',
    url: '/social/insights/overview',
    payload: { workspace_id: workspaces.get(zone), query, filters: { from, to }, ...extra },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<OverviewResponse>();
}

function expectOverview(body: OverviewResponse, scope: Scope, zone: string) {
  const { from, to } = scope;
  const length = to - from;
  const current = rows.filter(inScope(scope));
  const previous = rows.filter(inScope(scope, from - length, from));
  const bucket = length <= 2 * 86_400_000 ? 'hour' : length <= 90 * 86_400_000 ? 'day' : 'week';
  expect(body.bucket).toBe(bucket);
  expect(body.time_zone).toBe(zone);
  expect(body.range).toEqual({ from: new Date(from).toISOString(), to: new Date(to).toISOString() });
  expect(body.previous_range).toEqual({
    from: new Date(from - length).toISOString(),
    to: new Date(from).toISOString(),
  });

  const totals = (set: Row[]) => {
    const authors = perAuthor(set);
    return {
      mentions: set.length,
      unique_authors: authors.length,
      engagement: sum(set.map((r) => r.engagement)),
      reach: sum(authors.map((a) => a.followers)),
    };
  };
  const [now, before] = [totals(current), totals(previous)];
  for (const key of ['mentions', 'unique_authors', 'engagement', 'reach'] as const) {
    expect(body.totals[key], key).toEqual({
      value: now[key],
      previous: before[key],
      change_pct: changePct(now[key], before[key]),
    });
  }
  expect(body.totals.mentions_per_day).toBe(Math.round((current.length / (length / 86_400_000)) * 100) / 100);

  // Buckets: every one the range touches, in order, zero-filled, counted by wall-clock time.
  const keys = bucketKeys(from, to, zone, bucket);
  expect(body.over_time.map((b) => b.local)).toEqual(keys);
  const counts = keys.map((key) => current.filter((r) => bucketKey(r.at, zone, bucket) === key));
  const n = counts.map((c) => c.length);
  const mean = sum(n) / n.length;
  const stddev = Math.sqrt(sum(n.map((x) => (x - mean) ** 2)) / n.length);
  expect(body.spikes.mean).toBeCloseTo(mean, 9);
  expect(body.spikes.stddev).toBeCloseTo(stddev, 9);
  expect(body.spikes.threshold).toBeCloseTo(mean + 2 * stddev, 9);
  body.over_time.forEach((b, i) => {
    const set = counts[i]!;
    expect(b.mentions).toBe(set.length);
    expect(b.engagement).toBe(sum(set.map((r) => r.engagement)));
    for (const label of ['positive', 'neutral', 'negative'] as const) {
      expect(b[label]).toBe(set.filter((r) => r.label === label).length);
    }
    if (set.length) expect(b.average_sentiment).toBeCloseTo(sum(set.map((r) => r.sentiment)) / set.length, 6);
    else expect(b.average_sentiment).toBeNull();
    expect(b.spike).toBe(set.length > mean + 2 * stddev && set.length >= body.spikes.min_count);
    // `start` is the first instant of the bucket: its wall clock is the bucket's, the millisecond before is not.
    const start = Date.parse(b.start);
    expect(bucketKey(start, zone, bucket)).toBe(b.local);
    const w = wall(start, zone);
    expect([w.mi, bucket === 'hour' ? 0 : w.h]).toEqual([0, 0]);
    expect(bucketKey(start - 1, zone, bucket)).not.toBe(b.local);
  });

  expect(body.sentiment).toMatchObject({
    positive: current.filter((r) => r.label === 'positive').length,
    neutral: current.filter((r) => r.label === 'neutral').length,
    negative: current.filter((r) => r.label === 'negative').length,
  });
  if (current.length) {
    expect(body.sentiment.average).toBeCloseTo(sum(current.map((r) => r.sentiment)) / current.length, 6);
  }

  const platforms = [...new Set(current.map((r) => r.platform))]
    .map((platform) => ({ platform, mentions: current.filter((r) => r.platform === platform).length }))
    .sort((a, b) => b.mentions - a.mentions || byCodePoint(a.platform, b.platform));
  expect(body.platforms.map(({ platform, mentions }) => ({ platform, mentions }))).toEqual(platforms);
  for (const p of body.platforms) expect(p.share).toBeCloseTo(p.mentions / current.length, 12);

  expect(body.top_posts.map((p) => p.id)).toEqual(
    [...current]
      .sort(byEngagement)
      .slice(0, 5)
      .map((r) => r.id),
  );
  expect(body.top_people.map((p) => [p.id, p.mentions, p.engagement, p.followers])).toEqual(
    perAuthor(current)
      .sort(PERSON_ORDER.mentions)
      .slice(0, 5)
      .map((a) => [a.id, a.mentions, a.engagement, a.followers]),
  );
  return { current, previous };
}

describe('overview matches a brute force over every row', () => {
  const cases = ZONES.flatMap((zone) =>
    Object.entries(RANGES).flatMap(([name, range]) =>
      ['', 'coffee OR tea', '#launch'].map((query) => [zone, name, query, range] as const),
    ),
  );
  it.each(cases)('%s, %s, query %j', async (zone, _name, query, range) => {
    const body = await overview(zone, query, range);
    const ids = await matchingIds(server, query);
    const { current } = expectOverview(
      body,
      { ids, from: Date.parse(range[0]), to: Date.parse(range[1]) },
      zone,
    );
    expect(current.length).toBeGreaterThan(0);
  });

  it('marks the spike of 3 November (New York) and only buckets above the threshold', async () => {
    const body = await overview('America/New_York', '', RANGES['two weeks over the clocks going back']);
    expect(body.over_time.filter((b) => b.spike).map((b) => b.local)).toEqual(['2026-11-03T00:00:00']);
  });

  it('counts the repeated hour of 1 November as one bucket that starts at 01:00 EDT', async () => {
    const body = await overview('America/New_York', '', RANGES['hours over the clocks going back']);
    const repeated = body.over_time.find((b) => b.local === '2026-11-01T01:00:00')!;
    expect(repeated.start).toBe('2026-11-01T05:00:00.000Z');
    const inside = rows.filter(
      (r) => r.at >= Date.parse('2026-11-01T05:00:00Z') && r.at < Date.parse('2026-11-01T07:00:00Z'),
    );
    expect(repeated.mentions).toBe(inside.length);
    expect(body.over_time.filter((b) => b.local.startsWith('2026-11-01T01'))).toHaveLength(1);
  });

  it('has no bucket for the skipped hour of 8 March', async () => {
    const body = await overview('America/New_York', '', RANGES['hours over the clocks going forward']);
    const locals = body.over_time.map((b) => b.local);
    expect(locals).toContain('2026-03-08T01:00:00');
    expect(locals).not.toContain('2026-03-08T02:00:00');
    expect(locals).toContain('2026-03-08T03:00:00');
  });

  it('applies filters and refinements to both periods', async () => {
    const range = RANGES['two weeks over the clocks going back'];
    const refine = [
      { field: 'platform', values: ['x', 'tiktok'] },
      { field: 'sentiment', values: ['negative'], exclude: true },
    ];
    const body = await overview('America/New_York', 'coffee OR tea', range, {
      filters: { from: range[0], to: range[1], languages: ['en', 'es'] },
      refine,
    });
    const ids = await matchingIds(server, 'coffee OR tea');
    expectOverview(
      body,
      {
        ids,
        from: Date.parse(range[0]),
        to: Date.parse(range[1]),
        languages: ['en', 'es'],
        refine: (r) => ['x', 'tiktok'].includes(r.platform) && r.label !== 'negative',
      },
      'America/New_York',
    );
    expect(body.counted).toContain('not sentiment negative');
  });
});
