// The billing job: trials ending, renewals (one whose webhook comes back before the charge's answer included), failed
// renewals going past due and then expiring, cancel and resume, upgrades and downgrades.
import { and, eq, isNull, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payments, providerPaymentMethods, providerWebhooks, subscriptions } from '@server/db/billing-schema';
import { memberships, workspaces } from '@server/db/schema';
import { runDue } from '@server/billing/job';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { billingSteps } from '@test/support/billing-steps';
import { as, createTeam } from '@test/support/workspaces.fixtures';

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer({ PAST_DUE_GRACE_DAYS: '3' });
});
afterAll(() => server.close());

const DAY = 86_400_000;
const { delivered, quiet, planOf, paidTeam, invoicesOf, subOf, endPeriod } = billingSteps(() => server);

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
    const { buildApp } = await import('@server/app');
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
