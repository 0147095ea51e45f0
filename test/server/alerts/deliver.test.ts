// An alert's deliveries: the webhook gets one signed POST (Slack's shape plus the event), none more on later rounds or
// from another "process"; a failing receiver is retried with backoff and given up after its attempts; each recipient
// gets one e-mail with the dashboard's link and an unsubscribe link whose token mutes that rule for them.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertDeliveries, alertEvents, alertRules } from '@server/db/alerts-schema';
import { deliverDue } from '@server/alerts/deliver';
import { readUnsubscribeToken } from '@server/alerts/unsubscribe';
import { verifyWebhookSignature, WEBHOOK_MAX_ATTEMPTS } from '@server/alerts/webhook';
import { createMailer, type MailMessage, type Mailer } from '@server/mail/mailer';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { createTeam, type Team } from '@test/support/workspaces.fixtures';
import { insertSavedQuery } from '@test/support/insights.fixtures';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

let server: TestServer;
let team: Team;
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];
let status = 200;
const mails: MailMessage[] = [];
const mailer: Mailer = {
  send: async (message) => {
    mails.push(message);
    return { messageId: `<m${mails.length}@test>` };
  },
  close: async () => {},
};
const KEY = new Uint8Array(32).fill(7);

beforeAll(async () => {
  server = await createTestServer();
  team = await createTeam(server);
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = status;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  receiverUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hook`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  await server?.close();
});

/** A rule that fired once: its event and the deliveries evaluate.ts writes with it. */
async function fired(channels: { email?: string[]; webhook?: boolean }) {
  const queryId = await insertSavedQuery(server, team.workspaceId, `q${Math.random()}`);
  const [rule] = await server.db
    .insert(alertRules)
    .values({
      workspaceId: team.workspaceId,
      savedQueryId: queryId,
      kind: 'volume',
      period: 'hour',
      threshold: 10,
      email: Boolean(channels.email),
      recipientIds: channels.email ?? [],
      webhookUrl: channels.webhook ? receiverUrl : null,
      webhookSecret: 'whsec_test',
    })
    .returning();
  const [event] = await server.db
    .insert(alertEvents)
    .values({
      ruleId: rule!.id,
      workspaceId: team.workspaceId,
      windowStart: new Date('2026-11-20T14:00:00Z'),
      windowEnd: new Date('2026-11-20T15:00:00Z'),
      figures: { mentions: 12, threshold: 10 },
      title: 'Launch reached 10 mentions',
      message: '12 mentions this hour, at least the threshold of 10.',
    })
    .returning();
  await server.db.insert(alertDeliveries).values([
    ...(channels.email ?? []).map((userId) => ({
      eventId: event!.id,
      channel: 'email' as const,
      userId,
      nextAttemptAt: new Date(0),
    })),
    ...(channels.webhook
      ? [{ eventId: event!.id, channel: 'webhook' as const, nextAttemptAt: new Date(0) }]
      : []),
  ]);
  return { rule: rule!, event: event! };
}

const deps = (now = () => new Date()) => ({
  db: server.db,
  mailer,
  appUrl: 'https://murmur.example',
  unsubscribeKey: KEY,
  allowPrivateHosts: true,
  now,
});

describe('the webhook', () => {
  it('gets one signed delivery, and none more from later rounds or another process', async () => {
    received.length = 0;
    status = 200;
    const { rule } = await fired({ webhook: true });
    const rounds = await Promise.all([deliverDue(deps()), deliverDue(deps())]);
    expect(rounds.reduce((n, r) => n + r.sent, 0)).toBe(1);
    expect(await deliverDue(deps())).toEqual({ sent: 0, failed: 0, gaveUp: 0 });
    expect(received).toHaveLength(1);
    const [delivery] = received;
    const now = Math.floor(Date.now() / 1000);
    expect(
      verifyWebhookSignature(
        'whsec_test',
        delivery!.headers['x-murmur-signature'] as string,
        delivery!.body,
        now,
      ),
    ).toBe(true);
    const body = JSON.parse(delivery!.body);
    expect(body.text).toContain('Launch reached 10 mentions');
    expect(body.blocks.length).toBeGreaterThan(0);
    expect(body.murmur).toMatchObject({
      rule_id: rule.id,
      window: { from: '2026-11-20T14:00:00.000Z', to: '2026-11-20T15:00:00.000Z' },
      figures: { mentions: 12, threshold: 10 },
    });
    expect(body.murmur.url).toBe(
      `https://murmur.example/workspace/${team.workspaceId}/insight/overview?query=${rule.savedQueryId}&range=24h&end=2026-11-20T15%3A00%3A00.000Z`,
    );
    expect(delivery!.headers['x-murmur-delivery']).toBe(body.murmur.delivery_id);
  });

  it('is retried with backoff while the receiver fails, and given up after its attempts', async () => {
    received.length = 0;
    status = 503;
    const { event } = await fired({ webhook: true });
    let clock = Date.now();
    const now = () => new Date(clock);
    for (let attempt = 1; attempt <= WEBHOOK_MAX_ATTEMPTS; attempt += 1) {
      const round = await deliverDue(deps(now));
      expect(round.failed, `attempt ${attempt}`).toBe(1);
      const [row] = await server.db
        .select()
        .from(alertDeliveries)
        .where(eq(alertDeliveries.eventId, event.id));
      expect(row!.attempts).toBe(attempt);
      expect(row!.lastError).toContain('503');
      if (attempt < WEBHOOK_MAX_ATTEMPTS) {
        // Not due again before its backoff.
        expect((await deliverDue(deps(now))).failed).toBe(0);
        clock = row!.nextAttemptAt!.getTime();
      } else expect(row!.nextAttemptAt).toBeNull();
    }
    expect(received).toHaveLength(WEBHOOK_MAX_ATTEMPTS);
    expect(new Set(received.map((r) => r.headers['x-murmur-delivery'])).size).toBe(1);
    status = 200;
  });
});

describe('e-mail', () => {
  it('sends each recipient one message with the dashboard link and an unsubscribe link for them', async () => {
    mails.length = 0;
    const { rule } = await fired({ email: [team.owner.id, team.viewer.id] });
    expect((await deliverDue(deps())).sent).toBe(2);
    expect(await deliverDue(deps())).toEqual({ sent: 0, failed: 0, gaveUp: 0 });
    expect(mails.map((m) => m.to).sort()).toEqual([team.owner.email, team.viewer.email].sort());
    const toViewer = mails.find((m) => m.to === team.viewer.email)!;
    expect(toViewer.subject).toBe('Launch reached 10 mentions');
    expect(toViewer.text).toContain(`https://murmur.example/workspace/${team.workspaceId}/insight/overview?`);
    const link = /https:\/\/murmur\.example\/unsubscribe#token=(\S+)/.exec(toViewer.text)![1]!;
    expect(readUnsubscribeToken(KEY, link)).toEqual({ ruleId: rule.id, userId: team.viewer.id });
    expect(toViewer.headers!['List-Unsubscribe']).toBe(`<https://murmur.example/unsubscribe#token=${link}>`);
    expect(toViewer.html).toContain('Unsubscribe from this rule');
  });

  it('is given up at once when the SMTP server refuses it for good (5xx), and retried after a 4xx', async () => {
    // A real SMTP server that refuses every recipient: for good at gone@…, for now at busy@….
    const smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onRcptTo(address, _session, callback) {
        const refusal = address.address.startsWith('gone')
          ? Object.assign(new Error('No such mailbox'), { responseCode: 550 })
          : Object.assign(new Error('Try again later'), { responseCode: 451 });
        callback(refusal);
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const { port } = smtp.server.address() as AddressInfo;
    const real = createMailer({ SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: 'alerts@murmur.example' });
    try {
      const suffix = Math.random().toString(36).slice(2);
      const gone = await server.createUser({ email: `gone-${suffix}@example.com` });
      const busy = await server.createUser({ email: `busy-${suffix}@example.com` });
      const { event } = await fired({ email: [gone.id, busy.id] });
      const round = await deliverDue({ ...deps(), mailer: real });
      expect(round).toMatchObject({ failed: 2, gaveUp: 1 });
      const rows = await server.db
        .select()
        .from(alertDeliveries)
        .where(eq(alertDeliveries.eventId, event.id));
      const of = (id: string) => rows.find((row) => row.userId === id)!;
      expect(of(gone.id).nextAttemptAt).toBeNull();
      expect(of(gone.id).lastError).toMatch(/did not take the e-mail: .*550/);
      expect(of(busy.id).nextAttemptAt).not.toBeNull();
      expect(of(busy.id).lastError).toMatch(/451/);
    } finally {
      await real.close();
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    }
  });

  it('is given up, with the reason, where no SMTP server is configured', async () => {
    const { event } = await fired({ email: [team.owner.id] });
    const round = await deliverDue({ ...deps(), mailer: undefined });
    expect(round).toMatchObject({ failed: 1, gaveUp: 1 });
    const [row] = await server.db.select().from(alertDeliveries).where(eq(alertDeliveries.eventId, event.id));
    expect(row).toMatchObject({
      nextAttemptAt: null,
      sentAt: null,
      lastError: 'No SMTP server is configured (SMTP_URL).',
    });
  });
});
