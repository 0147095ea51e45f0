// Alert rules evaluated: the windows in the workspace's zone, each kind's condition and release level, one firing per
// episode (hysteresis), one event per rule and window whatever evaluates it (again, or two at once), and what a firing
// writes: the notifications of the recipients still members who did not mute it, and the deliveries.
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  alertDeliveries,
  alertEvents,
  alertMutes,
  alertRules,
  notifications,
} from '@server/db/alerts-schema';
import { memberships } from '@server/db/schema';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import { evaluateAlerts, judge, nextEpisode, windowAt, type WindowCount } from '@server/alerts/evaluate';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, type Team } from '@test/support/workspaces.fixtures';
import { insertSavedQuery } from '@test/support/insights.fixtures';

describe('windowAt', () => {
  it("takes the zone's current hour, also in a half-hour zone, with the 12 hours before it", () => {
    const w = windowAt(new Date('2026-11-20T14:10:00Z'), 'hour', 'Asia/Kolkata');
    // 19:40 in Kolkata: the hour from 19:00 local, 13:30 UTC.
    expect(w.start.toISOString()).toBe('2026-11-20T13:30:00.000Z');
    expect(w.end.toISOString()).toBe('2026-11-20T14:30:00.000Z');
    expect(w.previous.toISOString()).toBe('2026-11-20T12:30:00.000Z');
    expect(w.from.toISOString()).toBe('2026-11-20T01:30:00.000Z');
  });

  it("takes the zone's current day, its length across a change of the clocks, and the 14 days before it", () => {
    // 1 Nov 2026 in New York is 25 hours long (the clocks go back at 2:00).
    const w = windowAt(new Date('2026-11-01T18:00:00Z'), 'day', 'America/New_York');
    expect(w.start.toISOString()).toBe('2026-11-01T04:00:00.000Z');
    expect(w.end.toISOString()).toBe('2026-11-02T05:00:00.000Z');
    expect(w.previous.toISOString()).toBe('2026-10-31T04:00:00.000Z');
    expect(w.from.toISOString()).toBe('2026-10-18T04:00:00.000Z');
  });
});

const counts = (...mentions: number[]): WindowCount[] => mentions.map((n) => ({ mentions: n, negative: 0 }));

describe('judge', () => {
  it('calls a spike as the overview does (mean + 2 population standard deviations, at least 5), and keeps it above the mean', () => {
    const calm = counts(2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2);
    const spike = judge('spike', null, [...calm, { mentions: 9, negative: 0 }]);
    expect(spike.holds).toBe(true);
    expect(spike.figures).toMatchObject({ mentions: 9 });
    expect(judge('spike', null, [...calm, { mentions: 4, negative: 0 }]).holds).toBe(false); // fewer than 5
    const after = judge('spike', null, [
      ...counts(2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 30, 2),
      { mentions: 6, negative: 0 },
    ]);
    expect(after).toMatchObject({ holds: false, keeps: true }); // above the mean (4.6), below the threshold
  });

  it('reaches a volume at its threshold and keeps it at 80 %', () => {
    expect(judge('volume', 100, counts(0, 100))).toMatchObject({ holds: true, keeps: true });
    expect(judge('volume', 100, counts(0, 99))).toMatchObject({ holds: false, keeps: true });
    expect(judge('volume', 100, counts(0, 79))).toMatchObject({ holds: false, keeps: false });
  });

  it('shifts sentiment by the negative share in points against the window before, with at least 10 mentions', () => {
    const shift = judge('sentiment_shift', 20, [
      { mentions: 10, negative: 1 },
      { mentions: 10, negative: 4 },
    ]);
    expect(shift).toMatchObject({ holds: true, figures: { points: 30, negative_share: 40 } });
    expect(
      judge('sentiment_shift', 20, [
        { mentions: 10, negative: 1 },
        { mentions: 9, negative: 9 },
      ]).holds,
    ).toBe(false);
    expect(
      judge('sentiment_shift', 20, [
        { mentions: 0, negative: 0 },
        { mentions: 20, negative: 20 },
      ]).holds,
    ).toBe(false);
    expect(
      judge('sentiment_shift', 20, [
        { mentions: 10, negative: 1 },
        { mentions: 10, negative: 2 },
      ]),
    ).toMatchObject({
      holds: false,
      keeps: true, // 10 points: half the threshold
    });
  });
});

describe('nextEpisode', () => {
  const hour = (h: number) => ({
    start: new Date(Date.UTC(2026, 10, 20, h)),
    previous: new Date(Date.UTC(2026, 10, 20, h - 1)),
  });
  it('fires when the condition starts holding, not while the episode goes on, and again after a calm window', () => {
    const steps: Array<[number, boolean, boolean]> = [
      // hour, holds, keeps
      [10, false, false],
      [11, true, true], // fires
      [11, true, true], // the same window again: no
      [12, true, true], // the episode goes on
      [13, false, true], // kept above the release level
      [14, true, true], // still the same episode
      [15, false, false], // calm: the episode ends
      [16, true, true], // fires again
    ];
    let episode: Date | null = null;
    const fired: number[] = [];
    for (const [h, holds, keeps] of steps) {
      const next = nextEpisode(episode, hour(h), { holds, keeps });
      if (next.fire) fired.push(h);
      episode = next.episodeWindow;
    }
    expect(fired).toEqual([11, 16]);
  });
});

describe('evaluating rules on the corpus', () => {
  let server: TestServer;
  let team: Team;
  let queryId: string;
  let author: number;
  let ruleId: string;
  const NOW = new Date('2026-11-20T14:40:00Z');

  const post = (at: string, text: string, i: number, sentiment: 'negative' | 'neutral' = 'neutral') => ({
    authorId: author,
    platform: 'x' as const,
    externalId: `alert-${at}-${i}-${text.length}`,
    text,
    language: 'en',
    postedAt: new Date(at),
    kind: 'original' as const,
    media: 'text' as const,
    likes: 0,
    comments: 0,
    shares: 0,
    views: null,
    hashtags: [],
    mentions: [],
    domains: [],
    sentiment: sentiment === 'negative' ? -0.8 : 0,
    sentimentLabel: sentiment,
  });

  beforeAll(async () => {
    server = await createTestServer();
    team = await createTeam(server);
    author = (
      await insertProfiles(server.db, [
        {
          platform: 'x',
          externalId: 'alerts-author',
          handle: 'alerts',
          displayName: 'Alerts',
          followers: 10,
        },
      ])
    )[0]!;
    // One launch post an hour over the 12 hours before 14:00 UTC (the workspace's zone is UTC).
    await insertPosts(
      server.db,
      Array.from({ length: 12 }, (_, i) =>
        post(`2026-11-20T${String(2 + i).padStart(2, '0')}:15:00Z`, 'rocket launch today', i),
      ),
    );
    queryId = await insertSavedQuery(server, team.workspaceId, 'launch');
    const res = await as(server, team.owner, {
      method: 'POST',
      url: `/api/workspaces/${team.workspaceId}/alert-rules`,
      payload: {
        saved_query_id: queryId,
        kind: 'spike',
        period: 'hour',
        email: true,
        recipient_ids: [team.owner.id, team.viewer.id, team.manager.id],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    ruleId = res.json<{ id: string }>().id;
    // The manager muted it; the viewer is told.
    await server.db.insert(alertMutes).values({ ruleId, userId: team.manager.id });
  });
  afterAll(() => server?.close());

  const events = () => server.db.select().from(alertEvents).where(eq(alertEvents.ruleId, ruleId));

  it('does not fire on a calm hour', async () => {
    const result = await evaluateAlerts({
      db: server.db,
      analytics: server.analytics,
      now: NOW,
      log: () => {},
    });
    expect(result).toMatchObject({ rules: 1, overviews: 1, fired: 0, failed: 0 });
    expect(await events()).toHaveLength(0);
  });

  it('fires once for a spike in the current hour, however often and by however many it is evaluated', async () => {
    await insertPosts(
      server.db,
      Array.from({ length: 12 }, (_, i) =>
        post(`2026-11-20T14:${String(i + 1).padStart(2, '0')}:00Z`, 'launch day', i),
      ),
    );
    const runs = await Promise.all([
      evaluateAlerts({ db: server.db, analytics: server.analytics, now: NOW, log: () => {} }),
      evaluateAlerts({ db: server.db, analytics: server.analytics, now: NOW, log: () => {} }),
    ]);
    expect(runs.map((r) => r.fired).sort()).toEqual([0, 1]);
    expect(
      (
        await evaluateAlerts({
          db: server.db,
          analytics: server.analytics,
          now: new Date('2026-11-20T14:55:00Z'),
          log: () => {},
        })
      ).fired,
    ).toBe(0);
    const [event] = await events();
    expect(await events()).toHaveLength(1);
    expect(event!.windowStart.toISOString()).toBe('2026-11-20T14:00:00.000Z');
    expect(event!.figures).toMatchObject({ mentions: 12 });
    expect(event!.title).toBe('Spike in "Saved launch"');
    // Why: its drivers against the same 40 minutes of the 7 days before (none), in a sentence and in the figures.
    expect(event!.message).toMatch(
      / Why: \+12 posts against 0 expected: 100 % of them with day, 100 % from @alerts\.$/,
    );
    expect((event!.figures as { drivers: unknown[] }).drivers).toEqual(
      expect.arrayContaining([{ kind: 'author', label: '@alerts', posts: 12, expected: 0, share: 1 }]),
    );

    const told = await server.db
      .select({ userId: notifications.userId })
      .from(notifications)
      .where(eq(notifications.eventId, event!.id));
    expect(told.map((t) => t.userId).sort()).toEqual([team.owner.id, team.viewer.id].sort());
    const mails = await server.db
      .select({ userId: alertDeliveries.userId, channel: alertDeliveries.channel })
      .from(alertDeliveries)
      .where(eq(alertDeliveries.eventId, event!.id));
    expect(mails.map((m) => m.userId).sort()).toEqual([team.owner.id, team.viewer.id].sort());
  });

  it('does not fire again in the next hour while the spike goes on, nor tells one who left the workspace', async () => {
    await insertPosts(
      server.db,
      Array.from({ length: 14 }, (_, i) =>
        post(`2026-11-20T15:${String(i + 1).padStart(2, '0')}:00Z`, 'launch again', i),
      ),
    );
    const result = await evaluateAlerts({
      db: server.db,
      analytics: server.analytics,
      now: new Date('2026-11-20T15:30:00Z'),
      log: () => {},
    });
    expect(result.fired).toBe(0);
    expect(await events()).toHaveLength(1);

    // A calm hour ends the episode; the next spike fires again, without the viewer who left.
    await evaluateAlerts({
      db: server.db,
      analytics: server.analytics,
      now: new Date('2026-11-20T16:30:00Z'),
      log: () => {},
    });
    await server.db
      .delete(memberships)
      .where(and(eq(memberships.workspaceId, team.workspaceId), eq(memberships.userId, team.viewer.id)));
    await insertPosts(
      server.db,
      Array.from({ length: 30 }, (_, i) =>
        post(`2026-11-20T17:${String(i + 1).padStart(2, '0')}:00Z`, 'launch big', i),
      ),
    );
    const again = await evaluateAlerts({
      db: server.db,
      analytics: server.analytics,
      now: new Date('2026-11-20T17:45:00Z'),
      log: () => {},
    });
    expect(again.fired).toBe(1);
    const all = await events();
    expect(all.map((e) => e.windowStart.toISOString()).sort()).toEqual([
      '2026-11-20T14:00:00.000Z',
      '2026-11-20T17:00:00.000Z',
    ]);
    const latest = all.find((e) => e.windowStart.toISOString().startsWith('2026-11-20T17'))!;
    const told = await server.db
      .select({ userId: notifications.userId })
      .from(notifications)
      .where(eq(notifications.eventId, latest.id));
    expect(told.map((t) => t.userId)).toEqual([team.owner.id]);
  });

  it('skips a disabled rule', async () => {
    await server.db.update(alertRules).set({ enabled: false }).where(eq(alertRules.id, ruleId));
    const result = await evaluateAlerts({
      db: server.db,
      analytics: server.analytics,
      now: new Date('2026-11-20T17:50:00Z'),
      log: () => {},
    });
    expect(result.rules).toBe(0);
    await server.db.update(alertRules).set({ enabled: true }).where(eq(alertRules.id, ruleId));
  });
});
