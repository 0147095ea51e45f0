// "Why this spike" across a daylight-saving change: the baseline of a window of a day or less is the same wall-clock
// hours of the 7 days before in the workspace's zone, not the window moved back 24 hours at a time. The rule's cases
// (baselineOf): the hours after a change, a start the clocks repeat (the earlier instant) or skip (the jump), a day on
// the clock of 25 or 23 hours; and through POST /social/insights/drivers, a spike planted the hour after New York's
// clocks go back, with posts planted an hour later on the days before (where a UTC step would look) that must not
// count.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriversResponse } from '@contract/insights-drivers';
import { baselineOf } from '@server/social/insights/drivers';
import { writeCorpus, type GeneratedPost } from '@test/support/reference/corpus';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createWorkspace, type Person } from '@test/support/workspaces.fixtures';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NEW_YORK = 'America/New_York';

const iso = (ms: number) => new Date(ms).toISOString();
const windowsOf = (from: string, to: string, zone: string) => {
  const found = baselineOf(new Date(from), new Date(to), zone);
  return { kind: found.kind, windows: found.baseline.map((w) => [w.from.toISOString(), w.to.toISOString()]) };
};
/** `count` windows of [from, to) moved back a day at a time from `first` (ISO instants of the newest). */
const daily = (first: [string, string], count: number) =>
  Array.from({ length: count }, (_, i) => [
    iso(Date.parse(first[0]) - i * DAY),
    iso(Date.parse(first[1]) - i * DAY),
  ]);

describe('the same wall-clock hours of the 7 days before', () => {
  it('keeps the local hours across the change (14:00–15:00 in New York on the Monday after the clocks go back)', () => {
    // 2 November 14:00 EST = 19:00 UTC; 1 November is EST too (the change was at 02:00), the days before EDT (18:00).
    expect(windowsOf('2026-11-02T19:00:00Z', '2026-11-02T20:00:00Z', NEW_YORK)).toEqual({
      kind: 'same_hours',
      windows: [
        ['2026-11-01T19:00:00.000Z', '2026-11-01T20:00:00.000Z'],
        ...daily(['2026-10-31T18:00:00.000Z', '2026-10-31T19:00:00.000Z'], 6),
      ],
    });
    // Berlin's clocks go forward on 29 March: 09:00 CEST = 07:00 UTC after, 09:00 CET = 08:00 UTC before.
    expect(windowsOf('2026-03-30T07:00:00Z', '2026-03-30T07:30:00Z', 'Europe/Berlin').windows).toEqual([
      ['2026-03-29T07:00:00.000Z', '2026-03-29T07:30:00.000Z'],
      ...daily(['2026-03-28T08:00:00.000Z', '2026-03-28T08:30:00.000Z'], 6),
    ]);
    // In UTC it is the window moved back 24 hours at a time, to the millisecond.
    expect(windowsOf('2026-11-02T19:00:00.250Z', '2026-11-02T20:00:00Z', 'UTC').windows).toEqual(
      daily(['2026-11-01T19:00:00.250Z', '2026-11-01T20:00:00.000Z'], 7),
    );
  });

  it('starts a repeated hour at its earlier instant, and a skipped one at the jump', () => {
    // 1:30–2:30 on 8 November (EST); on 1 November 1:30 is read twice (05:30 EDT first) and 2:30 once (07:30 EST).
    const back = windowsOf('2026-11-08T06:30:00Z', '2026-11-08T07:30:00Z', NEW_YORK).windows;
    expect(back[6]).toEqual(['2026-11-01T05:30:00.000Z', '2026-11-01T07:30:00.000Z']);
    expect(back[5]).toEqual(['2026-11-02T06:30:00.000Z', '2026-11-02T07:30:00.000Z']);
    // 2:00–3:00 on 9 March (EDT): on 8 March the clocks skip it whole (an empty window at the jump, 07:00 UTC).
    const skipped = windowsOf('2026-03-09T06:00:00Z', '2026-03-09T07:00:00Z', NEW_YORK).windows;
    expect(skipped[0]).toEqual(['2026-03-08T07:00:00.000Z', '2026-03-08T07:00:00.000Z']);
    expect(skipped[1]).toEqual(['2026-03-07T07:00:00.000Z', '2026-03-07T08:00:00.000Z']);
    // 2:30–3:30: on 8 March only 3:00–3:30 is read.
    const half = windowsOf('2026-03-09T06:30:00Z', '2026-03-09T07:30:00Z', NEW_YORK).windows;
    expect(half[0]).toEqual(['2026-03-08T07:00:00.000Z', '2026-03-08T07:30:00.000Z']);
  });

  it('takes a day on the clock as a day (25 or 23 hours), and more on the clock as the range before', () => {
    // 1 November in New York: 25 hours, a day on the clock.
    const long = windowsOf('2026-11-01T04:00:00Z', '2026-11-02T05:00:00Z', NEW_YORK);
    expect(long.kind).toBe('same_hours');
    expect(long.windows[0]).toEqual(['2026-10-31T04:00:00.000Z', '2026-11-01T04:00:00.000Z']);
    // 24 hours from noon on 7 March end at 13:00 on 8 March (the clocks went forward): 25 hours on the clock.
    expect(windowsOf('2026-03-07T17:00:00Z', '2026-03-08T17:00:00Z', NEW_YORK)).toEqual({
      kind: 'previous',
      windows: [['2026-03-06T17:00:00.000Z', '2026-03-07T17:00:00.000Z']],
    });
  });
});

// The hour after the clocks go back in New York (1 November 2026 at 02:00 EDT = 06:00 UTC, to 01:00 EST): 02:00–03:00
// EST is 07:00–08:00 UTC; on the days before, 02:00–03:00 EDT is 06:00–07:00 UTC, and 07:00–08:00 UTC is 03:00 EDT.
const SPIKE = Date.parse('2026-11-01T07:00:00Z');
const post = (at: number, text: string, author: number): GeneratedPost => ({
  author,
  at,
  text,
  language: 'en',
  kind: 'original',
  media: 'text',
  likes: 1,
  comments: 0,
  shares: 0,
  views: null,
  sentiment: 0.4,
});
const corpus: GeneratedPost[] = [
  // 30 posts by dave in the spike's hour: "outage" and #down.
  ...Array.from({ length: 30 }, (_, i) => post(SPIKE + i * 90_000, 'the outage again #down', 5)),
  ...Array.from({ length: 7 }, (_, d) => d + 1).flatMap((d) => [
    // The same local hour on each day before: 3 posts about coffee.
    ...[0, 1, 2].map((i) => post(SPIKE - d * DAY - HOUR + i * 600_000, 'oat milk latte today', i)),
    // An hour later on the clock (the spike's UTC hour moved back 24 hours): 4 posts with the spike's word.
    ...[0, 1, 2, 3].map((i) => post(SPIKE - d * DAY + i * 600_000, 'an outage somewhere #down', 1)),
  ]),
];

let server: TestServer;
let viewer: Person;
let workspaceId: string;

beforeAll(async () => {
  server = await createTestServer();
  viewer = await server.createUser();
  workspaceId = (await createWorkspace(server, [[viewer, 'viewer']], { timeZone: NEW_YORK })).id;
  await writeCorpus(server, corpus, 'dst');
}, 120_000);
afterAll(() => server?.close());

describe('a spike the hour after the clocks go back', () => {
  it('is compared with the same local hour of the 7 days before', async () => {
    const res = await as(server, viewer, {
      method: 'POST',
      url: '/social/insights/drivers',
      payload: {
        workspace_id: workspaceId,
        query: '',
        filters: { from: iso(SPIKE), to: iso(SPIKE + HOUR) },
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const answer = res.json<DriversResponse>();
    expect(answer.time_zone).toBe(NEW_YORK);
    expect(answer.baseline.kind).toBe('same_hours');
    // 02:00–03:00 EDT of 31 October back to 25 October.
    expect(answer.baseline.windows).toEqual(
      daily(['2026-10-31T06:00:00.000Z', '2026-10-31T07:00:00.000Z'], 7).map(([from, to]) => ({ from, to })),
    );
    expect(answer.baseline.rule).toMatch(/same wall-clock hours of the 7 days before in America\/New_York/);
    expect(answer.baseline.rule).not.toMatch(/24 hours at a time/);
    // The coffee posts of those hours, none of the posts an hour later.
    expect(answer.posts).toEqual({ window: 30, baseline: 21, expected: 3, excess: 27 });
    const first = answer.drivers.slice(0, 3).map((d) => `${d.kind}:${d.value}`);
    expect(first).toEqual(expect.arrayContaining(['term:outage', 'hashtag:down']));
    const outage = answer.drivers.find((d) => d.kind === 'term' && d.value === 'outage')!;
    expect(outage).toMatchObject({
      posts: 30,
      baseline_posts: 0,
      expected: 0,
      lift: null,
      excess_share: 30 / 27,
    });
  });
});
