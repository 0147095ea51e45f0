// Digests e-mail only people who want them: an outside address (not a member's) gets one confirmation e-mail, with a
// random single-use link (kept hashed) and an unsubscribe link, and nothing else until it confirms; confirming again
// says so and changes nothing; refusing takes it off the workspace's digests. A trial schedules none and sends none;
// a workspace's digests stay within DIGEST_DAILY_CAP e-mails a day, refused in words when scheduled and held back
// when sent.
import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DIGEST_DAILY_CAP, type Digest } from '@contract/digests';
import { digestConfirmations, digests, digestSends } from '@server/db/alerts-schema';
import { workspaces } from '@server/db/schema';
import { runDigests } from '@server/digests/send';
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
const NOW = new Date('2026-11-04T09:30:00Z');

beforeAll(async () => {
  server = await createTestServer();
  team = await createTeam(server);
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
  await server.db.delete(digestConfirmations);
});

const path = (workspaceId = team.workspaceId) => `/api/workspaces/${workspaceId}/digests`;

async function schedule(body: Record<string, unknown>, workspaceId = team.workspaceId) {
  return as(server, team.owner, {
    method: 'POST',
    url: path(workspaceId),
    payload: { saved_query_id: savedQueryId, frequency: 'weekly', ...body },
  });
}

/** Scheduled, and made long enough ago that NOW's last week is due. */
async function scheduled(body: Record<string, unknown>) {
  const res = await schedule(body);
  expect(res.statusCode, res.body).toBe(201);
  const digest = res.json<Digest>();
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

const list = async () =>
  (await as(server, team.viewer, { method: 'GET', url: path() })).json<{
    digests: Digest[];
    daily_cap: number;
    unavailable: string | null;
  }>();

const confirm = (token: string) =>
  server.app.inject({ method: 'POST', url: '/api/digests/confirm', payload: { token } });

const DIGEST_SUBJECT = /^Weekly digest of /;

describe('an outside address', () => {
  it('gets one confirmation e-mail and nothing else until it confirms, then the digest', async () => {
    await scheduled({
      recipient_ids: [team.owner.id],
      addresses: ['Outside@Example.com', team.viewer.email],
    });
    // A member's e-mail needs no confirmation; the outside address does.
    expect((await list()).digests[0]!.unconfirmed_addresses).toEqual(['outside@example.com']);

    await round();
    const first = mailbox.messages();
    const toOutside = first.filter((m) => m.to === 'outside@example.com');
    expect(toOutside).toHaveLength(1);
    expect(toOutside[0]!.subject).toBe('Confirm that you want a Murmur digest');
    expect(
      first
        .filter((m) => DIGEST_SUBJECT.test(m.subject))
        .map((m) => m.to)
        .sort(),
    ).toEqual([team.owner.email, team.viewer.email].sort());
    const link = /Nothing will be sent to you unless you confirm: (\S+)/.exec(toOutside[0]!.text)![1]!;
    expect(link).toMatch(/^https:\/\/murmur\.example\/unsubscribe#confirm=[\w-]{43}$/);
    // It carries the unsubscribe link too.
    expect(toOutside[0]!.listUnsubscribe).toMatch(/^<https:\/\/murmur\.example\/unsubscribe#digest=/);
    const token = link.split('#confirm=')[1]!;
    // Kept hashed, never as it is.
    const [row] = await server.db.select().from(digestConfirmations);
    expect(row!.tokenHash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(token);

    // Another round (the next week): still nothing for it, and no second confirmation.
    mailbox.clear();
    const nextWeek = new Date(NOW.getTime() + 7 * 86_400_000);
    await round(nextWeek);
    expect(mailbox.messages().filter((m) => m.to === 'outside@example.com')).toEqual([]);

    const wrong = await confirm(`${token.slice(0, -2)}xx`);
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({
      error: 'invalid_token',
      message: 'This confirmation link is not valid.',
    });
    const yes = await confirm(token);
    expect(yes.statusCode, yes.body).toBe(200);
    expect(yes.json()).toEqual({
      address: 'outside@example.com',
      workspace_name: expect.any(String),
      already_confirmed: false,
    });
    // Confirming again changes nothing, and says so.
    expect((await confirm(token)).json()).toMatchObject({ already_confirmed: true });
    expect((await list()).digests[0]!.unconfirmed_addresses).toEqual([]);

    mailbox.clear();
    await round(new Date(NOW.getTime() + 14 * 86_400_000));
    expect(
      mailbox
        .messages()
        .filter((m) => m.to === 'outside@example.com')
        .map((m) => m.subject),
    ).toEqual([expect.stringMatching(DIGEST_SUBJECT)]);
  });

  it('refuses with the unsubscribe link of its confirmation e-mail: off every digest of the workspace', async () => {
    await scheduled({ recipient_ids: [team.owner.id], addresses: ['stranger@example.com'] });
    await scheduled({
      frequency: 'daily',
      recipient_ids: [team.owner.id],
      addresses: ['stranger@example.com'],
    });
    await round();
    const toStranger = mailbox.messages().filter((m) => m.to === 'stranger@example.com');
    expect(toStranger.map((m) => m.subject)).toEqual(['Confirm that you want a Murmur digest']);
    const token = /#digest=(\S+)>$/.exec(toStranger[0]!.listUnsubscribe!)![1]!;
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/digests/unsubscribe',
      payload: { token },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await list()).digests.map((d) => d.addresses)).toEqual([[], []]);
  });
});

describe('trials', () => {
  it('cannot schedule digests, are told why, and send none that exist', async () => {
    const trial = await createTeam(server);
    const query = await insertSavedQuery(server, trial.workspaceId, 'coffee');
    const refused = await as(server, trial.owner, {
      method: 'POST',
      url: path(trial.workspaceId),
      payload: { saved_query_id: query, frequency: 'daily', recipient_ids: [trial.owner.id] },
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({
      error: 'digests_need_plan',
      message: expect.stringContaining('Digests are not available during a trial'),
    });
    const listed = await as(server, trial.owner, { method: 'GET', url: path(trial.workspaceId) });
    expect(listed.json().unavailable).toMatch(/^Digests are not available during a trial/);
    expect((await list()).unavailable).toBeNull();
    // One made before (or on a plan since ended in a trial) is not sent.
    await server.db.insert(digests).values({
      workspaceId: trial.workspaceId,
      savedQueryId: query,
      frequency: 'daily',
      recipientIds: [trial.owner.id],
      createdAt: new Date('2026-10-01T00:00:00Z'),
    });
    await round();
    expect(mailbox.messages().filter((m) => m.to === trial.owner.email)).toEqual([]);
  });
});

describe('the daily cap', () => {
  const addresses = (prefix: string, n: number) =>
    Array.from({ length: n }, (_, i) => `${prefix}${i}@example.com`);

  it(`refuses a digest that would take the workspace's recipients past ${DIGEST_DAILY_CAP} a day, in words`, async () => {
    expect((await list()).daily_cap).toBe(DIGEST_DAILY_CAP);
    for (let i = 0; i < DIGEST_DAILY_CAP / 50; i += 1) {
      expect((await schedule({ addresses: addresses(`d${i}-`, 50) })).statusCode).toBe(201);
    }
    const over = await schedule({ recipient_ids: [team.owner.id] });
    expect(over.statusCode).toBe(409);
    expect(over.json()).toEqual({
      error: 'digest_daily_cap',
      message:
        `A workspace's digests can send at most ${DIGEST_DAILY_CAP} e-mails a day. Its digests already have ` +
        `${DIGEST_DAILY_CAP} recipients; this one would add 1. Remove recipients or stop a digest.`,
    });
  });

  it('holds back a period that would send past the cap within 24 hours, with the reason', async () => {
    const digest = await scheduled({ recipient_ids: [team.owner.id, team.viewer.id] });
    // Another digest (not due now) sent all but one of the day's e-mails an hour ago.
    const other = (await schedule({ recipient_ids: [team.manager.id] })).json<Digest>();
    await server.db.update(digests).set({ createdAt: NOW }).where(eq(digests.id, other.id));
    await server.db.insert(digestSends).values({
      digestId: other.id,
      periodStart: new Date('2026-09-01T00:00:00Z'),
      periodEnd: new Date('2026-09-08T00:00:00Z'),
      sentAt: new Date(NOW.getTime() - 3_600_000),
      messages: DIGEST_DAILY_CAP - 1,
    });
    await round();
    const [held] = await server.db.select().from(digestSends).where(eq(digestSends.digestId, digest.id));
    expect(held!.sentAt).toBeNull();
    expect(held!.lastError).toMatch(
      `sent ${DIGEST_DAILY_CAP - 1} of their ${DIGEST_DAILY_CAP} e-mails a day`,
    );
    expect(mailbox.messages().filter((m) => m.to === team.owner.email)).toEqual([]);
    // A day later the cap allows it.
    await round(new Date(NOW.getTime() + 86_400_000));
    expect(
      mailbox
        .messages()
        .map((m) => m.to)
        .sort(),
    ).toEqual([team.owner.email, team.viewer.email].sort());
  });
});
