// Alerts end to end against the REAL server, with the alert jobs on its queue and the development mailbox: Ana Owner
// makes a spike rule on a saved query in the Alerts page (by the hour, by e-mail, with a webhook to a local receiver);
// posts written through the corpus's change path make the current hour a spike; the evaluation job fires it once. The
// bell shows one unread notification whose link opens the overview at the spike's hour; the e-mail arrives in the
// development mailbox and its link opens the same overview; the receiver gets one signed delivery, and none more after
// the server restarts and evaluates again. Cleo Viewer sees the rule but cannot make, change or delete one (she can
// mute it for herself). Ana opens the rule's deliveries (the webhook call and the e-mail, delivered) and sends a test
// the receiver refuses: the table says so in words, and so does the rule.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { count } from 'drizzle-orm';
import { demoUserIds } from '@server/seed';
import { alertEvents, notifications } from '@server/db/alerts-schema';
import { verifyWebhookSignature } from '@server/alerts/webhook';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import { cspViolations, launchBrowser, type TestPage } from '@test/support/browser';
import { waitForHeading } from '@test/support/browser-harness';
import { asAna, startRealServer, type RealServer } from '@test/support/real-server';
import { signInToDemo } from '@test/support/dev-sign-in';

const PORT = Number(process.env.MURMUR_REAL_E2E_PORT ?? 4781);
const QUERY_NAME = 'Spaceport';

let server: RealServer;
let browser: Browser;
let receiver: Server;
let receiverUrl: string;
const received: Array<{ headers: IncomingMessage['headers']; body: string }> = [];
/** The receiver's answer. */
let receiverStatus = 200;
const contexts: TestPage[] = [];
let savedQueryId: string;
let ruleSecret: string;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = receiverStatus;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  receiverUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/slack-like`;
  [server, browser] = await Promise.all([startRealServer(PORT, { alerts: true }), launchBrowser()]);
  const created = await api('POST', '/api/workspaces/demo/saved-queries', {
    name: QUERY_NAME,
    query: 'spaceport',
  });
  savedQueryId = created.json<{ id: string }>().id;
});
afterAll(async () => {
  await Promise.allSettled(contexts.map((current) => current.context.close()));
  await Promise.allSettled([browser?.close(), server?.close()]);
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
});

const api = (method: 'GET' | 'POST', url: string, payload?: object) => asAna(server, method, url, payload);

const signInAs = (account: 'Ana Owner' | 'Cleo Viewer') =>
  signInToDemo(browser, server.origin, contexts, account);

const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 500 });

/** One spaceport post an hour over the 12 hours before this one, then 15 in this hour so far: a spike. */
async function ingestSpike() {
  const [authorId] = await insertProfiles(server.db, [
    { platform: 'x', externalId: 'e2e-spaceport', handle: 'spacefan', displayName: 'Space Fan' },
  ]);
  const now = Date.now();
  const hourStart = Math.floor(now / 3_600_000) * 3_600_000;
  const post = (at: number, i: number) => ({
    authorId: authorId!,
    platform: 'x' as const,
    externalId: `e2e-spaceport-${i}`,
    text: `Watching the spaceport tonight (${i})`,
    postedAt: new Date(at),
  });
  await insertPosts(
    server.db,
    Array.from({ length: 12 }, (_, i) => post(hourStart - (i + 1) * 3_600_000 + 600_000, i)),
  );
  await insertPosts(
    server.db,
    Array.from({ length: 15 }, (_, i) => post(hourStart + Math.floor(((now - hourStart) * i) / 15), 100 + i)),
  );
}

describe('an alert rule, from the form to the bell, the mailbox and the webhook', () => {
  it('is made by an owner on the Alerts page', async () => {
    const page = await signInAs('Ana Owner');
    await page.getByRole('link', { name: 'Alerts' }).click();
    await waitForHeading(page, 'Alerts');
    await page.getByRole('button', { name: 'Make your first alert rule' }).click();
    await page.getByLabel('Saved query').selectOption({ label: QUERY_NAME });
    await page.getByRole('radio', { name: 'Spike' }).check();
    await page.getByRole('radio', { name: 'An hour' }).check();
    await page.getByRole('checkbox', { name: 'By e-mail' }).check();
    await page.getByLabel('Webhook URL (optional)').fill(receiverUrl);
    await page.getByRole('button', { name: 'Make rule' }).click();
    const row = page.getByRole('row', { name: new RegExp(QUERY_NAME) });
    await row.waitFor();
    expect(await row.textContent()).toContain('Spike: A spike in an hour against the 12 hours before it');
    const rules = await api('GET', '/api/workspaces/demo/alert-rules');
    const [rule] = rules.json<{ rules: Array<{ webhook_secret: string; saved_query_id: string }> }>().rules;
    expect(rule!.saved_query_id).toBe(savedQueryId);
    ruleSecret = rule!.webhook_secret;
    expect(await cspViolations(page)).toEqual([]);
  });

  it('fires once for a spike: the bell, then the overview at the spike', async () => {
    await ingestSpike();
    await server.evaluateAlerts();
    await poll(async () => (await server.db.select({ n: count() }).from(alertEvents))[0]!.n).toBe(1);
    const page = contexts[0]!.page;
    await page.reload();
    const bell = page.getByRole('button', { name: 'Notifications, 1 unread' });
    await bell.waitFor();
    await bell.click();
    const panel = page.getByRole('region', { name: 'Notifications' });
    const item = panel.getByRole('link', { name: new RegExp(`Spike in "${QUERY_NAME}"`) });
    expect(await item.textContent()).toContain('15 mentions this hour');
    await item.click();
    await waitForHeading(page, 'Overview');
    const url = new URL(page.url());
    expect(url.pathname).toBe('/workspace/demo/insight/overview');
    expect(url.searchParams.get('query')).toBe(savedQueryId);
    expect(url.searchParams.get('range')).toBe('24h');
    // The overview marks the hour that fired as a spike.
    await page.getByText(/Spikes \(red\): /).waitFor();
    await page.getByRole('button', { name: 'Notifications' }).waitFor();
    const [read] = await server.db.select({ readAt: notifications.readAt }).from(notifications);
    expect(read!.readAt).not.toBeNull();
  });

  it('e-mails the spike into the development mailbox, its link opening the same overview', async () => {
    const mailbox = async () =>
      (await (await fetch(`${server.origin}/dev/mailbox/messages.json`)).json()) as {
        messages: Array<{ to: string; subject: string; text: string; listUnsubscribe: string | null }>;
      };
    await poll(async () => (await mailbox()).messages.length).toBe(1);
    const [mail] = (await mailbox()).messages;
    expect(mail!.to).toContain('ana@murmur.local');
    expect(mail!.subject).toBe(`Spike in "${QUERY_NAME}"`);
    expect(mail!.listUnsubscribe).toMatch(/\/unsubscribe#token=/);
    // Why: the spike's drivers in one sentence (its posts against the same part of the 7 days before).
    const why = / Why: (\+\d+ posts against \d+ expected: [^\n]*\.)/.exec(mail!.text)?.[1];
    expect(why, mail!.text).toMatch(/% of them with /);
    const link = /Open the dashboard: (\S+)/.exec(mail!.text)![1]!;
    expect(new URL(link).searchParams.get('why')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:00:00\.000Z$/);
    const page = contexts[0]!.page;
    await page.goto(link);
    await waitForHeading(page, 'Overview');
    expect(new URL(page.url()).searchParams.get('query')).toBe(savedQueryId);
    await page.getByText(/Spikes \(red\): /).waitFor();
    // The link opens the hour's drivers, the same sentence as the e-mail's once no post has come since.
    const panel = page.getByRole('region', { name: /^Why this spike: / });
    await panel.locator('.drivers-sentence').waitFor();
    expect(await panel.locator('.drivers-sentence').innerText()).toMatch(/^\+\d+ posts against \d+ expected: /);

    // The mailbox's page lists it.
    await page.goto(`${server.origin}/dev/mailbox`);
    expect(await page.getByRole('link', { name: new RegExp(QUERY_NAME) }).count()).toBeGreaterThan(0);
  });

  it('posts one signed delivery to the webhook, and none more after a restart', async () => {
    await poll(() => received.length).toBe(1);
    const [delivery] = received;
    expect(
      verifyWebhookSignature(
        ruleSecret,
        delivery!.headers['x-murmur-signature'] as string,
        delivery!.body,
        Math.floor(Date.now() / 1000),
      ),
    ).toBe(true);
    expect(JSON.parse(delivery!.body).text).toContain(`Spike in "${QUERY_NAME}"`);

    await server.restart();
    await server.evaluateAlerts();
    // The evaluation ran (its round finds the window's event already there) and the delivery job with it.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect(received).toHaveLength(1);
    expect((await server.db.select({ n: count() }).from(alertEvents))[0]!.n).toBe(1);
  });

  it("lists the rule's deliveries, and a test the receiver refuses shows as failed, in words, on the rule too", async () => {
    const page = await signInAs('Ana Owner');
    await page.goto(`${server.origin}/workspace/demo/alerts`);
    await waitForHeading(page, 'Alerts');
    const row = page.getByRole('row', { name: new RegExp(QUERY_NAME) }).first();
    await row.getByRole('button', { name: `Deliveries of the rule on ${QUERY_NAME}` }).click();
    const table = page.getByRole('table', { name: `Recent deliveries of the rule on ${QUERY_NAME}` });
    await table.waitFor();
    const host = new URL(receiverUrl).host;
    const webhookRow = table.getByRole('row', { name: new RegExp(`Webhook ${host.replace(/\./g, '\\.')}`) });
    expect(await webhookRow.textContent()).toContain('Delivered');
    expect(await webhookRow.textContent()).toContain('Status 200');
    expect(await table.getByRole('row', { name: /E-mail ana@murmur\.local/ }).textContent()).toContain(
      'Delivered',
    );
    expect(await row.textContent()).not.toContain('Last delivery failed');

    receiverStatus = 503;
    await page.getByRole('button', { name: `Send a test of the rule on ${QUERY_NAME}` }).click();
    const failed = table.getByRole('row', { name: /Test.*Failed, given up/ });
    await failed.waitFor();
    expect(await failed.textContent()).toContain(`Status 503: ${host} answered 503`);
    await row.getByText(`Last delivery failed`).waitFor();
    expect(await row.textContent()).toMatch(
      new RegExp(`Last delivery failed .*: ${host.replace(/\./g, '\\.')} answered 503`),
    );
    // The receiver got the test, marked as one.
    const test = received.map((r) => JSON.parse(r.body)).find((body) => body.murmur.test === true);
    expect(test.text).toContain('This is a test, not an alert');
    receiverStatus = 200;
    expect(await cspViolations(page)).toEqual([]);
  });
});

describe('a viewer', () => {
  it('sees the rule but cannot make, change or delete one; she can mute it for herself', async () => {
    const page = await signInAs('Cleo Viewer');
    await page.goto(`${server.origin}/workspace/demo/alerts`);
    await waitForHeading(page, 'Alerts');
    const row = page.getByRole('row', { name: new RegExp(QUERY_NAME) });
    await row.waitFor();
    expect(await page.getByRole('button', { name: 'New alert rule' }).isDisabled()).toBe(true);
    expect(await page.getByText('Only owners and managers can make and change alert rules.').count()).toBe(1);
    expect(await row.getByRole('button', { name: /^Edit/ }).count()).toBe(0);
    expect(await row.getByRole('button', { name: /^Delete/ }).count()).toBe(0);
    // The webhook's URL is not hers to see: only its host.
    expect(await row.textContent()).toContain('a webhook to 127.0.0.1');
    expect(await row.textContent()).not.toContain('/slack-like');
    await row.getByRole('button', { name: 'Mute for me' }).click();
    await row.getByRole('button', { name: 'Unmute' }).waitFor();
    const refused = await server.app.inject({
      method: 'PATCH',
      url: `/api/workspaces/demo/alert-rules/${(await api('GET', '/api/workspaces/demo/alert-rules')).json().rules[0].id}`,
      headers: {
        authorization: `Bearer ${await server.tokenFor((await demoUserIds(server.db)).get('cleo@murmur.local')!)}`,
      },
      payload: { enabled: false },
    });
    expect(refused.statusCode).toBe(403);
  });
});
