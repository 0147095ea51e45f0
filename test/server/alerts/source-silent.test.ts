// Source-silent alert rules (issue 54, item 4): made only on a tracked saved query, with 1 to 168 hours (the API and
// the database's CHECK); evaluated on tracking's coverage: a source whose open gap is older than the threshold fires
// once (not again on the next evaluation, nor on two at once), again for a new gap after the source answered; a
// younger gap, or a source that collected recently, does not; a source that collected nothing that long fires
// without a reason; another workspace's rules see nothing of it; a stream that stopped committing fires with the
// coverage panel's sentence. The message says the source, since when in the workspace's zone and why; the
// notification opens the overview over the silence.
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertRule, AppNotification } from '@contract/alerts';
import { evaluateAlerts } from '@server/alerts/evaluate';
import { alertDeliveries, alertEvents, alertRules } from '@server/db/alerts-schema';
import { workspaces } from '@server/db/schema';
import { recordCoverage, recordGap } from '@server/tracking/coverage';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, type Team } from '@test/support/workspaces.fixtures';
import { insertSavedQuery } from '@test/support/insights.fixtures';

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer();
});
afterAll(() => server?.close());

const at = (iso: string) => new Date(`2026-11-20T${iso}:00Z`);
const T0 = new Date('2026-11-20T00:00:00Z');

/**
 * A saved query of the team tracked on the sources, tracking (and each source's coverage) begun at T0; written as
 * writeTracking writes it (the API checks the sources are set up here: Reddit needs a credential).
 */
async function trackedQuery(team: Team, name: string, sources: string[]) {
  const id = await insertSavedQuery(server, team.workspaceId, name);
  await server.pool.query(
    `INSERT INTO saved_query_tracking (saved_query_id, enabled, sources, tracking_since) VALUES ($1, true, $2, $3)`,
    [id, sources, T0],
  );
  for (const source of sources)
    await server.pool.query(
      'INSERT INTO tracking_coverage (saved_query_id, source, tracking_since) VALUES ($1, $2, $3)',
      [id, source, T0],
    );
  return id;
}

async function makeRule(team: Team, savedQueryId: string, fields: Record<string, unknown> = {}) {
  return as(server, team.owner, {
    method: 'POST',
    url: `/api/workspaces/${team.workspaceId}/alert-rules`,
    payload: {
      saved_query_id: savedQueryId,
      kind: 'source_silent',
      period: 'hour',
      threshold: 6,
      recipient_ids: [team.owner.id],
      ...fields,
    },
  });
}

const evaluate = (now: Date) =>
  evaluateAlerts({ db: server.db, analytics: server.analytics, now, log: () => {} });

describe('making a source-silent rule', () => {
  it('refuses a saved query that is not tracked, and a threshold outside 1 to 168 hours', async () => {
    const team = await createTeam(server);
    const untracked = await insertSavedQuery(server, team.workspaceId, 'untracked');
    const refused = await makeRule(team, untracked);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({
      error: 'invalid_alert_rule',
      message:
        'A source-silent rule needs a tracked saved query: track this one on at least one source first (Saved queries, Track).',
    });
    const tracked = await trackedQuery(team, 'tracked', ['hackernews']);
    for (const threshold of [0, 169, null]) {
      const res = await makeRule(team, tracked, { threshold });
      expect(res.statusCode).toBe(400);
      expect(res.json<{ message: string }>().message).toBe(
        threshold === null
          ? 'This rule needs a threshold.'
          : 'The silence is a number of hours from 1 to 168.',
      );
    }
    const made = await makeRule(team, tracked, { threshold: 168 });
    expect(made.statusCode, made.body).toBe(201);
    expect(made.json<AlertRule>()).toMatchObject({
      kind: 'source_silent',
      threshold: 168,
      summary: 'Source silent: A tracked source silent for 168 hours or more',
    });
    // Changing a volume rule on an untracked query into a silent-source one is refused as well.
    const volume = await makeRule(team, untracked, { kind: 'volume', threshold: 10 });
    expect(volume.statusCode, volume.body).toBe(201);
    const changed = await as(server, team.owner, {
      method: 'PATCH',
      url: `/api/workspaces/${team.workspaceId}/alert-rules/${volume.json<AlertRule>().id}`,
      payload: { kind: 'source_silent', threshold: 6 },
    });
    expect(changed.statusCode).toBe(400);
  });

  it("has the database's CHECK hold hours from 1 to 168 (the migration's), whatever writes the rule", async () => {
    const team = await createTeam(server);
    const tracked = await trackedQuery(team, 'checked', ['hackernews']);
    const row = (threshold: number | null) => ({
      workspaceId: team.workspaceId,
      savedQueryId: tracked,
      kind: 'source_silent' as const,
      period: 'hour' as const,
      threshold,
      webhookSecret: 'test',
    });
    // A null threshold passes a CHECK (as for volume): the API refuses it (above).
    for (const threshold of [169, 0])
      await expect(server.db.insert(alertRules).values(row(threshold))).rejects.toThrow();
    await expect(server.db.insert(alertRules).values(row(1))).resolves.toBeDefined();
  });
});

describe('evaluating source-silent rules', () => {
  let team: Team;
  let other: Team;
  let queryId: string;
  let ruleId: string;
  let otherRuleId: string;

  beforeAll(async () => {
    // The rules made above are not this story's.
    await server.pool.query('UPDATE alert_rules SET enabled = false');
    team = await createTeam(server);
    other = await createTeam(server);
    // Paris is UTC+1 in November: the message's times are the workspace's.
    await server.db
      .update(workspaces)
      .set({ timeZone: 'Europe/Paris' })
      .where(eq(workspaces.id, team.workspaceId));
    queryId = await trackedQuery(team, 'brand', ['hackernews', 'reddit']);
    const res = await makeRule(team, queryId);
    expect(res.statusCode, res.body).toBe(201);
    ruleId = res.json<AlertRule>().id;
    // The other workspace's rule on its own tracked query, whose source collects all along.
    const otherQuery = await trackedQuery(other, 'other', ['hackernews']);
    const made = await makeRule(other, otherQuery, { recipient_ids: [other.owner.id] });
    expect(made.statusCode, made.body).toBe(201);
    otherRuleId = made.json<AlertRule>().id;
    collecting.push(otherQuery);
  });

  /** Saved queries whose Reddit or Hacker News collects a post just before each evaluation. */
  const collecting: string[] = [];
  let redditCollects = true;
  const evaluateAt = async (now: Date) => {
    const justBefore = new Date(now.getTime() - 5 * 60_000);
    if (redditCollects)
      await recordCoverage(server.pool, queryId, 'reddit', { postedAt: [justBefore] }, justBefore);
    for (const id of collecting)
      await recordCoverage(server.pool, id, 'hackernews', { postedAt: [justBefore] }, justBefore);
    return evaluate(now);
  };
  const events = (rule = ruleId) =>
    server.db.select().from(alertEvents).where(eq(alertEvents.ruleId, rule)).orderBy(alertEvents.id);

  it('does not fire for a gap younger than the threshold, nor for a source that collected recently', async () => {
    await recordCoverage(server.pool, queryId, 'hackernews', { postedAt: [at('09:00')] }, at('09:05'));
    await recordGap(
      server.pool,
      queryId,
      'hackernews',
      { reason: 'unreachable', message: 'Hacker News did not answer: timeout', until: null },
      at('09:12'),
    );
    const result = await evaluateAt(at('15:10'));
    expect(result).toMatchObject({ fired: 0, failed: 0 });
    expect(await events()).toHaveLength(0);
  });

  it('fires once when the gap reaches the threshold, however often and by however many it is evaluated', async () => {
    const runs = await Promise.all([evaluateAt(at('15:20')), evaluateAt(at('15:20'))]);
    expect(runs.map((r) => r.fired).sort()).toEqual([0, 1]);
    expect((await evaluateAt(at('15:40'))).fired).toBe(0);
    expect((await evaluateAt(at('20:00'))).fired).toBe(0);
    const [event, ...more] = await events();
    expect(more).toHaveLength(0);
    expect(event).toMatchObject({
      source: 'hackernews',
      title: 'Hacker News silent for "Saved brand"',
      message:
        'Hacker News has been silent for "Saved brand" since 10:12 (6 hours): Hacker News did not answer: timeout.',
      figures: { source: 'hackernews', silent_hours: 6, threshold: 6, gap_reason: 'unreachable' },
    });
    expect(event!.windowStart.toISOString()).toBe('2026-11-20T09:12:00.000Z');
    expect(event!.windowEnd.toISOString()).toBe('2026-11-20T15:20:00.000Z');

    // The owner's notification opens the overview over the silence, where its gap is marked.
    const list = await as(server, team.owner, { method: 'GET', url: '/api/notifications' });
    const [notice] = list.json<{ notifications: AppNotification[] }>().notifications;
    expect(notice).toMatchObject({ kind: 'source_silent', message: event!.message });
    expect(notice!.path).toBe(
      `/workspace/${team.workspaceId}/insight/overview?query=${queryId}&range=24h&end=2026-11-20T15%3A20%3A00.000Z`,
    );
  });

  it('fires again for a new gap once the source has answered, not while it collects', async () => {
    await recordCoverage(server.pool, queryId, 'hackernews', { postedAt: [at('20:30')] }, at('20:35'));
    expect((await evaluateAt(at('21:00'))).fired).toBe(0);
    await recordGap(
      server.pool,
      queryId,
      'hackernews',
      { reason: 'rate_limited', message: 'Hacker News rate limited until 21:30 UTC.', until: at('21:30') },
      at('21:00'),
    );
    expect((await evaluateAt(at('23:59'))).fired).toBe(0);
    const later = new Date('2026-11-21T03:05:00Z');
    expect((await evaluateAt(later)).fired).toBe(1);
    const latest = (await events()).at(-1)!;
    expect(latest.windowStart.toISOString()).toBe('2026-11-20T21:00:00.000Z');
    expect(latest.message).toBe(
      'Hacker News has been silent for "Saved brand" since 20 Nov 22:00 (6 hours): Hacker News rate limited until 21:30 UTC.',
    );
    expect(await events()).toHaveLength(2);
  });

  it('fires without a reason for a source that collected nothing for the threshold, once', async () => {
    redditCollects = false;
    // Reddit's last post was 5 minutes before the last evaluation (03:00 UTC); Hacker News's gap stays told.
    expect((await evaluateAt(new Date('2026-11-21T08:59:00Z'))).fired).toBe(0);
    expect((await evaluateAt(new Date('2026-11-21T09:01:00Z'))).fired).toBe(1);
    expect((await evaluateAt(new Date('2026-11-21T12:00:00Z'))).fired).toBe(0);
    const reddit = (await events()).filter((e) => e.source === 'reddit');
    expect(reddit).toHaveLength(1);
    expect(reddit[0]!.message).toBe(
      'Reddit has been silent for "Saved brand" since 04:00 (6 hours): no new post collected for it.',
    );
    expect(reddit[0]!.figures).toMatchObject({ gap_reason: null });
  });

  it("leaves another workspace's rules out of it, and skips a rule whose query is no longer tracked", async () => {
    expect(await events(otherRuleId)).toHaveLength(0);
    await server.pool.query('UPDATE saved_query_tracking SET enabled = false WHERE saved_query_id = $1', [
      queryId,
    ]);
    await server.pool.query('DELETE FROM alert_events WHERE rule_id = $1', [ruleId]);
    expect((await evaluateAt(new Date('2026-11-22T12:00:00Z'))).fired).toBe(0);
    expect(
      await server.db
        .select()
        .from(alertEvents)
        .where(and(eq(alertEvents.ruleId, ruleId), eq(alertEvents.source, 'hackernews'))),
    ).toHaveLength(0);
  });
});

describe('a streamed source whose stream stopped', () => {
  it('fires with the sentence the coverage panel derives, and e-mails the recipients', async () => {
    await server.pool.query('UPDATE alert_rules SET enabled = false');
    const team = await createTeam(server);
    const queryId = await trackedQuery(team, 'streamed', ['bluesky']);
    // Bluesky's Jetstream last committed at 08:30 UTC and has been silent since.
    await server.pool.query(
      `INSERT INTO stream_cursors (name, cursor_us, updated_at) VALUES ('bluesky-jetstream', 1, $1)
       ON CONFLICT (name) DO UPDATE SET updated_at = excluded.updated_at`,
      [at('08:30')],
    );
    const made = await makeRule(team, queryId, { threshold: 2, email: true });
    expect(made.statusCode, made.body).toBe(201);
    const ruleId = made.json<AlertRule>().id;
    expect((await evaluate(at('10:29'))).fired).toBe(0);
    expect((await evaluate(at('10:31'))).fired).toBe(1);
    expect((await evaluate(at('12:00'))).fired).toBe(0);
    const [event, ...more] = await server.db.select().from(alertEvents).where(eq(alertEvents.ruleId, ruleId));
    expect(more).toHaveLength(0);
    expect(event).toMatchObject({
      source: 'bluesky',
      message:
        'Bluesky has been silent for "Saved streamed" since 08:30 (2 hours): The Bluesky stream has been silent ' +
        'since 08:30 UTC.',
      figures: { gap_reason: 'unreachable' },
    });
    const mails = await server.db
      .select()
      .from(alertDeliveries)
      .where(eq(alertDeliveries.eventId, event!.id));
    expect(mails.map((m) => [m.channel, m.userId])).toEqual([['email', team.owner.id]]);
  });
});
