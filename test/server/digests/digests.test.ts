// Scheduled digests: owners and managers schedule them, viewers cannot; a weekly digest arrives in the development
// mailbox once per week — whether the round runs again, in another process at the same time, or after a restart —
// with the figures the overview dashboard gives for that week, to the members and addresses chosen; a daily one covers
// the day before in the workspace's zone; a period that ended before the digest was made is not sent.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Digest } from '@contract/digests';
import type { OverviewResponse } from '@contract/insights-responses';
import { digestConfirmations, digests, digestSends } from '@server/db/alerts-schema';
import { workspaces } from '@server/db/schema';
import { lastPeriod, runDigests } from '@server/digests/send';
import { startDevMailbox, type DevMailbox } from '@server/mail/dev-mailbox';
import { createMailer, type Mailer } from '@server/mail/mailer';
import { insertCorpus, insertSavedQuery } from '@test/support/insights.fixtures';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, type Team } from '@test/support/workspaces.fixtures';

let server: TestServer;
let team: Team;
let mailbox: DevMailbox;
let mailer: Mailer;
let savedQueryId: string;
/** A Wednesday: the week before is Monday 26 October to Sunday 1 November 2026 (UTC, the team's zone). */
const NOW = new Date('2026-11-04T09:30:00Z');

beforeAll(async () => {
  server = await createTestServer();
  team = await createTeam(server);
  // Digests are not for trials (consent.test.ts).
  await server.db.update(workspaces).set({ plan: 'team' }).where(eq(workspaces.id, team.workspaceId));
  await insertCorpus(server);
  savedQueryId = await insertSavedQuery(server, team.workspaceId, 'coffee OR tea');
  mailbox = await startDevMailbox({ port: 0 });
  mailer = createMailer({ SMTP_URL: mailbox.url, MAIL_FROM: 'Murmur <digests@murmur.test>' });
});
afterAll(async () => {
  await mailer?.close();
  await mailbox?.stop();
  await server?.close();
});
beforeEach(async () => {
  mailbox.clear();
  await server.db.delete(digests);
});

const path = () => `/api/workspaces/${team.workspaceId}/digests`;

async function schedule(body: Record<string, unknown>, person = team.owner) {
  return as(server, person, { method: 'POST', url: path(), payload: body });
}

/** A digest made before `NOW`'s last period, so that period is due. */
async function scheduled(frequency: 'daily' | 'weekly') {
  const res = await schedule({
    saved_query_id: savedQueryId,
    frequency,
    recipient_ids: [team.owner.id, team.viewer.id],
    addresses: ['client@example.com'],
  });
  expect(res.statusCode, res.body).toBe(201);
  const digest = res.json<Digest>();
  // The outside address has confirmed (the confirmation itself: consent.test.ts).
  await server.db
    .update(digestConfirmations)
    .set({ confirmedAt: new Date() })
    .where(eq(digestConfirmations.workspaceId, team.workspaceId));
  await server.db
    .update(digests)
    .set({ createdAt: new Date('2026-10-01T00:00:00Z') })
    .where(eq(digests.id, digest.id));
  return digest;
}

const round = (now = NOW) =>
  runDigests({
    db: server.db,
    analytics: server.analytics,
    mailer,
    appUrl: 'https://murmur.example',
    unsubscribeKey: server.app.keys.digestUnsubscribe,
    now: () => now,
  });

describe('scheduling digests', () => {
  it('is for owners and managers; viewers see them; someone must receive one; recipients are members', async () => {
    const viewer = await schedule(
      { saved_query_id: savedQueryId, frequency: 'weekly', recipient_ids: [] },
      team.viewer,
    );
    expect(viewer.statusCode).toBe(403);
    const nobody = await schedule({ saved_query_id: savedQueryId, frequency: 'weekly' });
    expect(nobody.statusCode).toBe(400);
    expect(nobody.json().error).toBe('invalid_digest');
    const outsider = await schedule({
      saved_query_id: savedQueryId,
      frequency: 'weekly',
      recipient_ids: [team.outsider.id],
    });
    expect(outsider.statusCode).toBe(400);
    const badAddress = await schedule({
      saved_query_id: savedQueryId,
      frequency: 'weekly',
      addresses: ['nope'],
    });
    expect(badAddress.statusCode).toBe(400);
    const made = await scheduled('weekly');
    const list = await as(server, team.viewer, { method: 'GET', url: path() });
    expect(list.json()).toMatchObject({ can_edit: false, digests: [{ id: made.id, frequency: 'weekly' }] });
    const gone = await as(server, team.viewer, { method: 'DELETE', url: `${path()}/${made.id}` });
    expect(gone.statusCode).toBe(403);
  });
});

describe('sending digests', () => {
  it('sends the last week once, with the overview’s figures for that week, to the members and addresses', async () => {
    await scheduled('weekly');
    // Two processes at once, then a later round and a "restarted" one: one digest for the week.
    const [a, b] = await Promise.all([round(), round()]);
    expect(a.sent + b.sent).toBe(1);
    expect((await round(new Date(NOW.getTime() + 3_600_000))).sent).toBe(0);
    expect((await round()).sent).toBe(0);
    const messages = mailbox.messages();
    expect(messages.map((m) => m.to).sort()).toEqual(
      [team.owner.email, team.viewer.email, 'client@example.com'].sort(),
    );
    const [message] = messages;
    expect(message!.subject).toBe('Weekly digest of "Saved coffee OR tea": 2026-10-26 to 2026-11-01');

    // The dashboard's figures for the same week.
    const week = lastPeriod(NOW, 'weekly', 'UTC');
    const res = await as(server, team.viewer, {
      method: 'POST',
      url: '/social/insights/overview',
      payload: {
        workspace_id: team.workspaceId,
        saved_query_id: savedQueryId,
        filters: { from: week.start.toISOString(), to: week.end.toISOString() },
      },
    });
    const overview = res.json<OverviewResponse>();
    expect(overview.totals.mentions.value).toBeGreaterThan(0);
    const text = message!.text;
    const n = (value: number) => value.toLocaleString('en-US');
    expect(text).toContain(`Mentions: ${n(overview.totals.mentions.value)} (`);
    expect(text).toContain(`against ${n(overview.totals.mentions.previous)} the week before`);
    expect(text).toContain(`Unique authors: ${n(overview.totals.unique_authors.value)} (`);
    expect(text).toContain(`Engagement: ${n(overview.totals.engagement.value)} (`);
    expect(text).toContain(
      `Sentiment: ${n(overview.sentiment.positive)} positive, ${n(overview.sentiment.neutral)} neutral, ` +
        `${n(overview.sentiment.negative)} negative`,
    );
    for (const post of overview.top_posts) expect(text).toContain(`@${post.author.handle} (`);
    for (const person of overview.top_people)
      expect(text).toContain(`(@${person.handle}): ${n(person.mentions)} mentions`);
    expect(text).toContain(
      `Open the dashboard: https://murmur.example/workspace/${team.workspaceId}/insight/overview?query=${savedQueryId}` +
        '&range=custom&from=2026-10-26&to=2026-11-01',
    );
    expect(text).toContain(`What is counted: ${overview.counted}`);
    expect(message!.html).toContain('Open the dashboard');
    const [row] = await server.db.select().from(digestSends);
    expect(row).toMatchObject({ attempts: 1, lastError: null });
    expect(row!.sentAt).not.toBeNull();
  });

  it('sends the day before in the zone for a daily digest, and nothing for a period that ended before it was made', async () => {
    const digest = await scheduled('daily');
    expect((await round()).sent).toBe(1);
    expect(mailbox.messages()[0]!.subject).toBe('Daily digest of "Saved coffee OR tea": 2026-11-03');
    // Made after the day ended: nothing until the next day ends.
    mailbox.clear();
    await server.db.delete(digestSends);
    await server.db.update(digests).set({ createdAt: NOW }).where(eq(digests.id, digest.id));
    expect(await round()).toMatchObject({ due: 0, sent: 0 });
    expect(mailbox.messages()).toEqual([]);
  });

  it('is sent again by the next round after a process died while sending it (its lease ran out)', async () => {
    await scheduled('weekly');
    // A round that wrote the period and leased it, then died.
    await runDigests({
      db: server.db,
      analytics: server.analytics,
      mailer: undefined,
      appUrl: 'https://murmur.example',
      unsubscribeKey: server.app.keys.digestUnsubscribe,
      now: () => NOW,
    });
    await server.db.update(digestSends).set({ leaseUntil: new Date(NOW.getTime() + 60_000), attempts: 1 });
    expect((await round()).sent).toBe(0);
    expect((await round(new Date(NOW.getTime() + 6 * 60_000))).sent).toBe(1);
    expect(mailbox.messages()).toHaveLength(3);
  });
});

describe('the unsubscribe link', () => {
  it('takes its one recipient off the digest, signed out, and the next week is not sent to them', async () => {
    const digest = await scheduled('weekly');
    await round();
    const toClient = mailbox.messages().find((m) => m.to === 'client@example.com')!;
    const link = /To stop receiving this digest: (\S+)/.exec(toClient.text)![1]!;
    expect(link).toMatch(/^https:\/\/murmur\.example\/unsubscribe#digest=/);
    expect(toClient.listUnsubscribe).toBe(`<${link}>`);
    const token = link.split('#digest=')[1]!;
    const bad = await server.app.inject({
      method: 'POST',
      url: '/api/digests/unsubscribe',
      payload: { token: `${token.slice(0, -2)}xx` },
    });
    expect(bad.statusCode).toBe(400);
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/digests/unsubscribe',
      payload: { token },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ saved_query_name: 'Saved coffee OR tea', frequency: 'weekly' });
    const [row] = await server.db.select().from(digests).where(eq(digests.id, digest.id));
    expect(row!.addresses).toEqual([]);
    expect(row!.recipientIds.sort()).toEqual([team.owner.id, team.viewer.id].sort());
    mailbox.clear();
    await round(new Date(NOW.getTime() + 7 * 86_400_000));
    expect(
      mailbox
        .messages()
        .map((m) => m.to)
        .sort(),
    ).toEqual([team.owner.email, team.viewer.email].sort());
  });
});
