// Failed deliveries are visible: every attempt of an alert's webhook call and e-mails is in the rule's delivery log
// (when, to whom, result, the receiver's status or the error in words, whether it is retried), the rule says when its
// last delivery failed, and "Send a test" sends a message marked as a test through the same path, signed as an
// alert's, and records it. The log keeps each rule's newest ALERT_DELIVERY_LOG_KEPT.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ALERT_DELIVERY_LOG_KEPT, type AlertDeliveryLog, type AlertRule } from '@contract/alerts';
import { alertDeliveries, alertEvents } from '@server/db/alerts-schema';
import { deliverDue } from '@server/alerts/deliver';
import { recordAttempt } from '@server/alerts/delivery-log';
import { verifyWebhookSignature } from '@server/alerts/webhook';
import type { MailMessage, Mailer } from '@server/mail/mailer';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, type Team } from '@test/support/workspaces.fixtures';
import { insertSavedQuery } from '@test/support/insights.fixtures';

let server: TestServer;
let team: Team;
let receiver: Server;
let receiverUrl: string;
let receiverHost: string;
const received: Array<{ headers: IncomingMessage['headers']; body: string }> = [];
let status = 200;
const mails: MailMessage[] = [];
const mailer: Mailer = {
  send: async (message) => {
    mails.push(message);
    return { messageId: `<m${mails.length}@test>`, response: '250 2.0.0 Ok: queued' };
  },
  close: async () => {},
};

beforeAll(async () => {
  server = await createTestServer({ SCRAPING_ALLOW_PRIVATE_HOSTS: 'true' });
  // The server's outgoing e-mail, as server/main.ts gives it (the harness starts none).
  server.app.deps.mailer = mailer;
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
  const port = typeof address === 'object' && address ? address.port : 0;
  receiverHost = `127.0.0.1:${port}`;
  receiverUrl = `http://${receiverHost}/hook/secret-path`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  await server?.close();
});
beforeEach(() => {
  received.length = 0;
  mails.length = 0;
  status = 200;
});

const base = () => `/api/workspaces/${team.workspaceId}/alert-rules`;

async function makeRule(fields: Record<string, unknown>) {
  const res = await as(server, team.owner, {
    method: 'POST',
    url: base(),
    payload: {
      saved_query_id: await insertSavedQuery(server, team.workspaceId, `q${Math.random()}`),
      kind: 'volume',
      period: 'hour',
      threshold: 10,
      recipient_ids: [],
      ...fields,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<AlertRule>();
}

/** The rule fired: its event and deliveries, as evaluate.ts writes them. */
async function fire(rule: AlertRule, channels: { email?: string[]; webhook?: boolean }) {
  const [event] = await server.db
    .insert(alertEvents)
    .values({
      ruleId: rule.id,
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
}

const deliver = ({ withMailer = true } = {}) =>
  deliverDue({
    db: server.db,
    mailer: withMailer ? mailer : undefined,
    appUrl: 'https://murmur.example',
    unsubscribeKey: server.app.keys.alertUnsubscribe,
    allowPrivateHosts: true,
  });

async function logOf(rule: AlertRule, person = team.manager) {
  const res = await as(server, person, { method: 'GET', url: `${base()}/${rule.id}/deliveries` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<AlertDeliveryLog>().deliveries;
}

async function listed(rule: AlertRule, person = team.viewer) {
  const res = await as(server, person, { method: 'GET', url: base() });
  return res.json<{ rules: AlertRule[] }>().rules.find((r) => r.id === rule.id)!;
}

describe('the delivery log', () => {
  it("records a failing webhook's status and error (host only) and its retry; the rule says its last delivery failed", async () => {
    const rule = await makeRule({ webhook_url: receiverUrl, in_app: false });
    expect(await listed(rule)).toMatchObject({ last_delivery: null });
    status = 500;
    await fire(rule, { webhook: true });
    expect(await deliver()).toMatchObject({ failed: 1, gaveUp: 0 });
    const [failed] = await logOf(rule);
    expect(failed).toMatchObject({
      channel: 'webhook',
      recipient: receiverHost,
      ok: false,
      status_code: 500,
      error: `${receiverHost} answered 500`,
      will_retry: true,
      test: false,
    });
    expect(JSON.stringify(await logOf(rule))).not.toContain('secret-path');
    // Every member sees on the rule that its last delivery failed, and why.
    expect((await listed(rule, team.viewer)).last_delivery).toEqual({
      at: failed!.at,
      ok: false,
      error: `${receiverHost} answered 500`,
    });
    // The retry goes through: the log shows both, newest first, and the rule is fine again.
    status = 200;
    await server.db.update(alertDeliveries).set({ nextAttemptAt: new Date(0) });
    expect(await deliver()).toMatchObject({ sent: 1 });
    const log = await logOf(rule);
    expect(log.map((e) => [e.ok, e.status_code])).toEqual([
      [true, 200],
      [false, 500],
    ]);
    expect((await listed(rule)).last_delivery).toMatchObject({ ok: true, error: null });
  });

  it('records an e-mail given up (no SMTP server) with its address and the reason in words', async () => {
    const rule = await makeRule({ email: true, in_app: false, recipient_ids: [team.viewer.id] });
    await fire(rule, { email: [team.viewer.id] });
    expect(await deliver({ withMailer: false })).toMatchObject({ failed: 1, gaveUp: 1 });
    expect(await logOf(rule)).toEqual([
      expect.objectContaining({
        channel: 'email',
        recipient: team.viewer.email,
        ok: false,
        status_code: null,
        error: 'No SMTP server is configured (SMTP_URL).',
        will_retry: false,
      }),
    ]);
  });

  it("keeps each rule's newest entries only", async () => {
    const rule = await makeRule({ webhook_url: receiverUrl });
    for (let i = 0; i < ALERT_DELIVERY_LOG_KEPT + 5; i += 1) {
      await recordAttempt(server.db, {
        ruleId: rule.id,
        channel: 'webhook',
        recipient: `attempt-${i}`,
        ok: i % 2 === 0,
      });
    }
    const log = await logOf(rule);
    expect(log).toHaveLength(ALERT_DELIVERY_LOG_KEPT);
    expect(log[0]!.recipient).toBe(`attempt-${ALERT_DELIVERY_LOG_KEPT + 4}`);
    expect(log.at(-1)!.recipient).toBe('attempt-5');
  });
});

describe('Send a test', () => {
  it('sends a signed webhook call and e-mails marked as a test, to recipients who did not mute the rule, and logs them', async () => {
    const rule = await makeRule({
      webhook_url: receiverUrl,
      email: true,
      recipient_ids: [team.owner.id, team.viewer.id],
    });
    const muted = await as(server, team.viewer, { method: 'POST', url: `${base()}/${rule.id}/mute` });
    expect(muted.statusCode).toBe(200);
    const res = await as(server, team.manager, { method: 'POST', url: `${base()}/${rule.id}/test` });
    expect(res.statusCode, res.body).toBe(200);
    const { deliveries } = res.json<AlertDeliveryLog>();
    expect(deliveries).toEqual([
      expect.objectContaining({
        channel: 'webhook',
        recipient: receiverHost,
        ok: true,
        status_code: 200,
        test: true,
      }),
      expect.objectContaining({
        channel: 'email',
        recipient: team.owner.email,
        ok: true,
        status_code: 250,
        test: true,
      }),
    ]);
    // The webhook: one call, signed with the rule's secret, its body marked as a test.
    expect(received).toHaveLength(1);
    const body = JSON.parse(received[0]!.body);
    expect(
      verifyWebhookSignature(
        rule.webhook_secret!,
        received[0]!.headers['x-murmur-signature'] as string,
        received[0]!.body,
        Math.floor(Date.now() / 1000),
      ),
    ).toBe(true);
    expect(body.murmur).toMatchObject({ test: true, rule_id: rule.id, window: null, figures: null });
    expect(received[0]!.headers['x-murmur-delivery']).toBe(body.murmur.delivery_id);
    expect(body.text).toContain('This is a test, not an alert');
    // The e-mail: to the owner only (the viewer muted the rule), marked, with its unsubscribe link.
    expect(mails.map((m) => m.to)).toEqual([team.owner.email]);
    expect(mails[0]!.subject).toMatch(/^Test: /);
    expect(mails[0]!.text).toContain(`${team.manager.email} sent it from the Alerts page`);
    expect(mails[0]!.headers!['List-Unsubscribe']).toMatch(/\/unsubscribe#token=/);
    // A webhook that fails is not hidden on the rule by an e-mail that went through after it.
    status = 500;
    await as(server, team.manager, { method: 'POST', url: `${base()}/${rule.id}/test` });
    expect((await listed(rule)).last_delivery).toMatchObject({
      ok: false,
      error: `${receiverHost} answered 500`,
    });
    status = 200;
    await as(server, team.manager, { method: 'POST', url: `${base()}/${rule.id}/test` });
    expect((await listed(rule)).last_delivery).toMatchObject({ ok: true });
    // Recorded: the log lists them, newest first.
    expect((await logOf(rule)).map((e) => [e.channel, e.ok])).toEqual([
      ['email', true],
      ['webhook', true],
      ['email', true],
      ['webhook', false],
      ['email', true],
      ['webhook', true],
    ]);
  });

  it("records a test the receiver refuses, with the receiver's status, and never retries it", async () => {
    const rule = await makeRule({ webhook_url: receiverUrl });
    const queued = (await server.db.select().from(alertDeliveries)).length;
    status = 404;
    const res = await as(server, team.owner, { method: 'POST', url: `${base()}/${rule.id}/test` });
    expect(res.statusCode).toBe(200);
    expect(res.json<AlertDeliveryLog>().deliveries).toEqual([
      expect.objectContaining({
        ok: false,
        status_code: 404,
        error: `${receiverHost} answered 404`,
        will_retry: false,
      }),
    ]);
    expect((await listed(rule)).last_delivery).toMatchObject({
      ok: false,
      error: `${receiverHost} answered 404`,
    });
    // Nothing queued to be tried again.
    expect(await server.db.select().from(alertDeliveries)).toHaveLength(queued);
  });

  it('is refused, in words, for a rule that only notifies in the app', async () => {
    const rule = await makeRule({ recipient_ids: [team.owner.id] });
    const res = await as(server, team.owner, { method: 'POST', url: `${base()}/${rule.id}/test` });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'nothing_to_test' });
  });
});
