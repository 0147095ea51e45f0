// Webhooks (a bad signature, a replay, two at once, out of order) and the billing job (trials ending, renewals,
// failed renewals going past due and then expiring, cancel and resume, upgrades and downgrades).
import { randomBytes } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  invoices,
  payments,
  providerPaymentMethods,
  providerWebhooks,
  subscriptions,
} from '../../server/db/billing-schema';
import { memberships, workspaces } from '../../server/db/schema';
import { runDue } from '../../server/billing/job';
import { signPayload } from '../../server/payments/signature';
import type { PlanResponse } from '../../src/contract/billing';
import { createTestServer, type TestServer } from '../support/server-harness';
import { as, createTeam, type Team } from '../support/workspaces.fixtures';

const DAY = 86_400_000;
let server: TestServer;
beforeAll(async () => {
  server = await createTestServer({ PAST_DUE_GRACE_DAYS: '3' });
});
afterAll(() => server.close());

const delivered = () => server.app.builtinPayments!.deliverDue();
const quiet = () => undefined;

async function planOf(team: Team): Promise<PlanResponse> {
  const res = await as(server, team.owner, {
    method: 'GET',
    url: `/api/workspaces/${team.workspaceId}/plan`,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** A checkout started: our payment, and the provider's session (its id ends the page's address) and workspace. */
interface Started {
  payment_id: string;
  checkout_url: string;
  session: string;
  workspace_id: string;
}

async function startCheckout(team: Team, planId = 'team', interval = 'month'): Promise<Started> {
  const res = await as(server, team.owner, {
    method: 'POST',
    url: `/api/workspaces/${team.workspaceId}/checkout`,
    payload: { plan_id: planId, interval },
  });
  expect(res.statusCode, res.body).toBe(200);
  const started = res.json<{ payment_id: string; checkout_url: string }>();
  const session = decodeURIComponent(new URL(started.checkout_url).pathname.split('/').at(-1)!);
  return { ...started, session, workspace_id: team.workspaceId };
}

/** A team on a paid plan, bought through the hosted page with the success card. */
async function paidTeam(planId = 'team', interval = 'month'): Promise<Team> {
  const team = await createTeam(server);
  const started = await startCheckout(team, planId, interval);
  const res = await server.app.inject({
    method: 'POST',
    url: new URL(started.checkout_url).pathname,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'number=4242424242424242&expiry=12%2F34&cvc=123&name=Ana',
  });
  expect(res.statusCode).toBe(303);
  await delivered();
  expect((await planOf(team)).status).toBe('active');
  return team;
}

/** The built-in provider's webhook about the checkout `started` (its session, payment and workspace). */
function event(type: string, started: Started, created: number, extra: object = {}) {
  return {
    id: `evt_${randomBytes(8).toString('hex')}`,
    type,
    created,
    data: {
      id: started.session,
      amount: 14_900,
      currency: 'usd',
      metadata: { payment_id: started.payment_id, workspace_id: started.workspace_id },
      customer: 'cus_test',
      payment_method:
        type === 'payment.succeeded'
          ? { id: 'pm_test', brand: 'visa', last4: '4242', exp_month: 1, exp_year: 2030 }
          : null,
      failure_message: type === 'payment.failed' ? 'Your card was declined.' : null,
      ...extra,
    },
  };
}

function post(body: object, signature?: string) {
  const payload = JSON.stringify(body);
  return server.app.inject({
    method: 'POST',
    url: '/api/billing/webhooks/builtin',
    headers: {
      'content-type': 'application/json',
      'murmur-signature': signature ?? signPayload(server.app.keys.paymentWebhooks, payload),
    },
    payload,
  });
}

const now = () => Math.floor(Date.now() / 1000);
const invoicesOf = (team: Team) =>
  server.db.select().from(invoices).where(eq(invoices.workspaceId, team.workspaceId));
const subOf = async (team: Team) =>
  (await server.db.select().from(subscriptions).where(eq(subscriptions.workspaceId, team.workspaceId)))[0]!;

describe('webhooks', () => {
  it('refuses a bad signature, an old signature and another key, and changes nothing', async () => {
    const team = await createTeam(server);
    const started = await startCheckout(team);
    const body = event('payment.succeeded', started, now());
    const payload = JSON.stringify(body);
    const forged = signPayload(randomBytes(32), payload);
    const old = signPayload(server.app.keys.paymentWebhooks, payload, now() - 3600);
    for (const signature of [forged, old, 't=1,v1=00', '']) {
      const res = await post(body, signature);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('invalid_signature');
    }
    expect((await planOf(team)).status).toBe('trialing');
    const stripe = await server.app.inject({
      method: 'POST',
      url: '/api/billing/webhooks/stripe',
      headers: { 'content-type': 'application/json' },
      payload,
    });
    expect(stripe.statusCode).toBe(404);
  });

  it('a replayed event changes nothing the second time', async () => {
    const team = await createTeam(server);
    const started = await startCheckout(team);
    const body = event('payment.succeeded', started, now());
    expect((await post(body)).json()).toEqual({ received: true, outcome: 'applied' });
    const first = await planOf(team);
    expect(first.status).toBe('active');
    expect((await post(body)).json()).toEqual({ received: true, outcome: 'duplicate' });
    expect(await planOf(team)).toEqual(first);
    expect(await invoicesOf(team)).toHaveLength(1);
  });

  it('two events for one payment at once apply it once', async () => {
    const team = await createTeam(server);
    const started = await startCheckout(team);
    const results = await Promise.all([
      post(event('payment.succeeded', started, now())),
      post(event('payment.succeeded', started, now())),
    ]);
    expect(results.map((r) => r.json().outcome).sort()).toEqual(['applied', 'stale']);
    expect(await invoicesOf(team)).toHaveLength(1);
    const plan = await planOf(team);
    // One period, not two.
    expect(plan.period_end! - plan.period_start!).toBeLessThanOrEqual(31 * 86_400);
  });

  it('an older event arriving late changes nothing', async () => {
    const team = await createTeam(server);
    const started = await startCheckout(team);
    const { payment_id } = started;
    const t = now();
    expect((await post(event('payment.succeeded', started, t))).json().outcome).toBe('applied');
    expect((await post(event('payment.failed', started, t - 60))).json().outcome).toBe('stale');
    expect((await post(event('payment.expired', started, t + 60))).json().outcome).toBe('stale');
    expect((await planOf(team)).status).toBe('active');
    const [row] = await server.db.select().from(payments).where(eq(payments.id, payment_id));
    expect(row!.status).toBe('paid');

    const other = await createTeam(server);
    const second = await startCheckout(other);
    await post(event('payment.requires_action', second, t));
    expect((await post(event('payment.failed', second, t - 30))).json().outcome).toBe('stale');
    const [pending] = await server.db.select().from(payments).where(eq(payments.id, second.payment_id));
    expect(pending!.status).toBe('requires_action');
    // Then the success that came after the confirmation step still applies.
    await post(event('payment.succeeded', second, t + 5));
    expect((await planOf(other)).status).toBe('active');
  });

  it('does not apply a success for another amount than the payment asked', async () => {
    const team = await createTeam(server);
    const started = await startCheckout(team);
    const cheap = event('payment.succeeded', started, now(), { amount: 100 });
    expect((await post(cheap)).json().outcome).toBe('ignored');
    expect((await planOf(team)).status).toBe('trialing');
  });

  it('does not apply a success in another currency, of another session or for another workspace', async () => {
    const team = await createTeam(server);
    const other = await createTeam(server);
    const started = await startCheckout(team);
    const otherCheckout = await startCheckout(other);
    const wrong = [
      event('payment.succeeded', started, now(), { currency: 'jpy' }),
      event('payment.succeeded', started, now(), { id: 'cs_forged' }),
      // A real session of ours, but another payment's.
      event('payment.succeeded', started, now(), { id: otherCheckout.session }),
      event('payment.succeeded', started, now(), {
        metadata: { payment_id: started.payment_id, workspace_id: other.workspaceId },
      }),
      event('payment.succeeded', started, now(), { metadata: { payment_id: started.payment_id } }),
      // Nor does a failure or an expiry of another session touch the payment.
      event('payment.failed', started, now(), { id: 'cs_forged' }),
      event('payment.expired', started, now(), { id: 'cs_forged' }),
    ];
    for (const body of wrong) {
      expect((await post(body)).json().outcome, JSON.stringify(body.data)).toBe('ignored');
    }
    expect((await planOf(team)).status).toBe('trialing');
    expect((await planOf(other)).status).toBe('trialing');
    const [pending] = await server.db.select().from(payments).where(eq(payments.id, started.payment_id));
    expect(pending!.status).toBe('open');
    expect(await invoicesOf(team)).toHaveLength(0);
    // The same currency written in capitals is the same currency.
    const right = event('payment.succeeded', started, now(), { currency: 'USD' });
    expect((await post(right)).json().outcome).toBe('applied');
    expect((await planOf(team)).status).toBe('active');
  });

  it('ignores events without a payment of ours', async () => {
    const team = await createTeam(server);
    const started = await startCheckout(team);
    const body = event(
      'payment.succeeded',
      { ...started, payment_id: '00000000-0000-4000-8000-000000000000' },
      now(),
    );
    expect((await post(body)).json().outcome).toBe('ignored');
    const bare = { ...body, id: 'evt_bare', data: { ...body.data, metadata: {} } };
    expect((await post(bare)).json().outcome).toBe('ignored');
    expect((await post({ nonsense: true })).statusCode).toBe(400);
  });
});

/** Moves the subscription's period so it ends `msAgo` ago, due for the job. */
async function endPeriod(team: Team, msAgo: number) {
  const sub = await subOf(team);
  const shift = sub.periodEnd!.getTime() - (Date.now() - msAgo);
  const periodEnd = new Date(sub.periodEnd!.getTime() - shift);
  await server.db
    .update(subscriptions)
    .set({ periodStart: new Date(sub.periodStart!.getTime() - shift), periodEnd, nextRunAt: periodEnd })
    .where(eq(subscriptions.workspaceId, team.workspaceId));
  const planExpiredAt =
    sub.status === 'canceled' || sub.status === 'trialing'
      ? periodEnd
      : new Date(periodEnd.getTime() + 3 * DAY);
  await server.db.update(workspaces).set({ planExpiredAt }).where(eq(workspaces.id, team.workspaceId));
}

describe('the billing job', () => {
  it('ends a trial at its end', async () => {
    const team = await createTeam(server);
    await planOf(team); // the subscription row
    const past = new Date(Date.now() - 1000);
    await server.db
      .update(workspaces)
      .set({ planExpiredAt: past })
      .where(eq(workspaces.id, team.workspaceId));
    await server.db
      .update(subscriptions)
      .set({ periodEnd: past, nextRunAt: past })
      .where(eq(subscriptions.workspaceId, team.workspaceId));
    const steps = await runDue(server.app.billing, new Date(), quiet);
    expect(steps).toContainEqual({ workspaceId: team.workspaceId, outcome: 'expired' });
    expect((await subOf(team)).status).toBe('expired');
    expect((await planOf(team)).status).toBe('expired');
  });

  it('renews a paid period with the saved card, and invoices it', async () => {
    const team = await paidTeam();
    await endPeriod(team, 60_000);
    const before = await subOf(team);
    const steps = await runDue(server.app.billing, new Date(), quiet);
    expect(steps).toContainEqual(
      expect.objectContaining({ workspaceId: team.workspaceId, outcome: 'renewing' }),
    );
    // Running again before the webhook makes no second charge.
    await runDue(server.app.billing, new Date(), quiet);
    await delivered();
    const after = await subOf(team);
    expect(after.status).toBe('active');
    expect(after.periodStart).toEqual(before.periodEnd);
    expect(after.periodEnd!.getTime()).toBeGreaterThan(Date.now() + 27 * DAY);
    const renewals = await server.db
      .select()
      .from(payments)
      .where(and(eq(payments.workspaceId, team.workspaceId), eq(payments.kind, 'renewal')));
    expect(renewals).toHaveLength(1);
    expect(renewals[0]).toMatchObject({ status: 'paid', amount: 14_900 });
    expect(await invoicesOf(team)).toHaveLength(2);
  });

  it("renews when the charge's webhook comes back before the provider has answered the charge", async () => {
    const team = await paidTeam();
    await endPeriod(team, 60_000);
    const billing = server.app.billing;
    const provider = billing.provider!;
    const pause = () => new Promise((resolve) => setTimeout(resolve, 5));
    /** The built-in provider's webhooks not yet answered (the one in flight included: it is answered at its end). */
    const unanswered = async () =>
      (await server.db.select().from(providerWebhooks).where(isNull(providerWebhooks.deliveredAt))).length;
    const waitingForLock = async () =>
      (
        await server.db.execute<{ n: number }>(
          sql`SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        )
      ).rows[0]!.n > 0;
    // The built-in provider sends the charge's webhook to this server at once; the charge answers only once that
    // webhook has been handled or waits for the payment.
    billing.provider = {
      ...provider,
      async chargeSaved(input) {
        const charge = await provider.chargeSaved(input);
        for (let i = 0; i < 2000 && (await unanswered()) > 0 && !(await waitingForLock()); i++) await pause();
        return charge;
      },
    };
    try {
      await runDue(billing, new Date(), quiet);
    } finally {
      billing.provider = provider;
    }
    for (let i = 0; i < 2000 && (await unanswered()) > 0; i++) await pause();
    expect((await subOf(team)).status).toBe('active');
    const [renewal] = await server.db
      .select()
      .from(payments)
      .where(and(eq(payments.workspaceId, team.workspaceId), eq(payments.kind, 'renewal')));
    expect(renewal).toMatchObject({ status: 'paid', providerRef: expect.stringMatching(/^pi_/) });
    expect(await invoicesOf(team)).toHaveLength(2);
  });

  it('two servers running the job at once renew a plan once (SKIP LOCKED), and the state is all in the database', async () => {
    const team = await paidTeam();
    await endPeriod(team, 60_000);
    // A second server on the same database: its own app and billing context, sharing nothing in memory.
    const { buildApp } = await import('../../server/app');
    const second = await buildApp({
      db: server.db,
      config: server.config,
      accessTokens: server.accessTokens,
      paymentProvider: server.app.billing.provider!,
    });
    await second.ready();
    try {
      const [a, b] = await Promise.all([
        runDue(server.app.billing, new Date(), quiet),
        runDue(second.billing, new Date(), quiet),
      ]);
      const renewing = [...a, ...b].filter(
        (s) => s.workspaceId === team.workspaceId && s.outcome === 'renewing',
      );
      expect(renewing).toHaveLength(1);
    } finally {
      await second.close();
    }
    await delivered();
    const renewals = await server.db
      .select()
      .from(payments)
      .where(and(eq(payments.workspaceId, team.workspaceId), eq(payments.kind, 'renewal')));
    expect(renewals).toHaveLength(1);
    expect(renewals[0]).toMatchObject({ attempts: 1, status: 'paid' });
  });

  it('a failed renewal goes past due, is tried again, and expires after the grace', async () => {
    const team = await paidTeam();
    const sub = await subOf(team);
    // The card on file is declined from now on.
    await server.db
      .update(providerPaymentMethods)
      .set({ behaviour: 'decline' })
      .where(eq(providerPaymentMethods.id, sub.paymentMethodRef!));
    await endPeriod(team, 60_000);
    await runDue(server.app.billing, new Date(), quiet);
    await delivered();
    const plan = await planOf(team);
    expect(plan.status).toBe('past_due');
    // Still usable during the grace.
    expect(plan.access_ends_at! * 1000).toBeGreaterThan(Date.now() + 2 * DAY);
    // A day later: tried again (a second attempt, a new idempotency key), declined again.
    await server.db
      .update(subscriptions)
      .set({ nextRunAt: new Date(Date.now() - 1000) })
      .where(eq(subscriptions.workspaceId, team.workspaceId));
    await runDue(server.app.billing, new Date(), quiet);
    await delivered();
    const [renewal] = await server.db
      .select()
      .from(payments)
      .where(and(eq(payments.workspaceId, team.workspaceId), eq(payments.kind, 'renewal')));
    expect(renewal).toMatchObject({ attempts: 2, status: 'failed' });
    expect((await planOf(team)).status).toBe('past_due');
    // The grace runs out.
    await endPeriod(team, 4 * DAY);
    await server.db
      .update(subscriptions)
      .set({ status: 'past_due' })
      .where(eq(subscriptions.workspaceId, team.workspaceId));
    const steps = await runDue(server.app.billing, new Date(), quiet);
    expect(steps).toContainEqual({ workspaceId: team.workspaceId, outcome: 'expired' });
    expect((await planOf(team)).status).toBe('expired');
    const [row] = await server.db.select().from(workspaces).where(eq(workspaces.id, team.workspaceId));
    expect(row!.planExpiredAt!.getTime()).toBeLessThan(Date.now());
  });

  it('cancel keeps the plan to the period end, resume undoes it, and a canceled plan expires then', async () => {
    const team = await paidTeam();
    const url = (what: string) => `/api/workspaces/${team.workspaceId}/plan/${what}`;
    const forbidden = await as(server, team.manager, { method: 'POST', url: url('cancel') });
    expect(forbidden.statusCode).toBe(403);
    const canceled = await as(server, team.owner, { method: 'POST', url: url('cancel') });
    expect(canceled.json()).toMatchObject({ status: 'canceled', cancel_at_period_end: true });
    expect(canceled.json().access_ends_at).toBe(canceled.json().period_end);
    const resumed = await as(server, team.owner, { method: 'POST', url: url('resume') });
    expect(resumed.json()).toMatchObject({ status: 'active', cancel_at_period_end: false });
    expect((await as(server, team.owner, { method: 'POST', url: url('resume') })).statusCode).toBe(409);
    await as(server, team.owner, { method: 'POST', url: url('cancel') });
    await endPeriod(team, 1000);
    await runDue(server.app.billing, new Date(), quiet);
    expect((await planOf(team)).status).toBe('expired');
    // No renewal was charged.
    const renewals = await server.db
      .select()
      .from(payments)
      .where(and(eq(payments.workspaceId, team.workspaceId), eq(payments.kind, 'renewal')));
    expect(renewals).toEqual([]);
  });

  it('an upgrade is charged now, prorated, and applies on its webhook', async () => {
    const team = await paidTeam('starter', 'month');
    const res = await as(server, team.owner, {
      method: 'POST',
      url: `/api/workspaces/${team.workspaceId}/plan/change`,
      payload: { plan_id: 'business', interval: 'month' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.kind).toBe('upgrade');
    // (399 − 49) / 30 a day, for the ~30 days left of the period.
    const daysLeft = (body.plan.period_end * 1000 - Date.now()) / DAY;
    expect(Math.abs(body.amount - Math.round(((39_900 - 4_900) / 30) * daysLeft))).toBeLessThanOrEqual(2);
    await delivered();
    const plan = await planOf(team);
    expect(plan.plan.id).toBe('business');
    expect(plan.period_end).toBe(body.plan.period_end);
    expect(await invoicesOf(team)).toHaveLength(2);
  });

  it('a downgrade waits for the period end, and is refused while usage exceeds the smaller plan', async () => {
    const team = await paidTeam('team', 'month');
    // Four members; Starter has three seats.
    const blocked = await as(server, team.owner, {
      method: 'POST',
      url: `/api/workspaces/${team.workspaceId}/plan/change`,
      payload: { plan_id: 'starter', interval: 'month' },
    });
    expect(blocked.statusCode).toBe(409);
    expect(blocked.json().error).toBe('downgrade_blocked');
    expect(blocked.json().message).toContain('4 members, Starter allows 3: remove 1 first.');

    await server.db
      .delete(memberships)
      .where(and(eq(memberships.workspaceId, team.workspaceId), eq(memberships.userId, team.otherViewer.id)));
    const scheduled = await as(server, team.owner, {
      method: 'POST',
      url: `/api/workspaces/${team.workspaceId}/plan/change`,
      payload: { plan_id: 'starter', interval: 'month' },
    });
    expect(scheduled.json()).toMatchObject({ kind: 'downgrade', amount: 0 });
    expect(scheduled.json().plan).toMatchObject({
      plan: { id: 'team' },
      scheduled_change: { plan_id: 'starter', interval: 'month' },
    });
    await endPeriod(team, 1000);
    await runDue(server.app.billing, new Date(), quiet);
    await delivered();
    const plan = await planOf(team);
    expect(plan).toMatchObject({ plan: { id: 'starter' }, status: 'active', scheduled_change: null });
    const [renewal] = await server.db
      .select()
      .from(payments)
      .where(and(eq(payments.workspaceId, team.workspaceId), eq(payments.kind, 'renewal')));
    expect(renewal).toMatchObject({ planId: 'starter', amount: 4_900, status: 'paid' });
  });
});
