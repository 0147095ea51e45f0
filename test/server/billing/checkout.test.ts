// The card checkout through the built-in provider, end to end in one process: the owner starts a checkout, the
// provider's hosted page takes a test card, the signed webhook comes back, and only then does the plan change.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoices, payments, subscriptions } from '@server/db/billing-schema';
import { workspaces } from '@server/db/schema';
import type { PlanResponse } from '@contract/billing';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, createWorkspace, type Person, type Team } from '@test/support/workspaces.fixtures';

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer({ APP_URL: 'http://app.test' });
});
afterAll(() => server.close());

const SUCCESS = '4242 4242 4242 4242';
const DECLINED = '4000 0000 0000 0002';
const CONFIRM = '4000 0025 0000 3155';

async function expiredTeam(): Promise<Team> {
  const team = await createTeam(server);
  await server.db
    .update(workspaces)
    .set({ planExpiredAt: new Date(Date.now() - 1000) })
    .where(eq(workspaces.id, team.workspaceId));
  return team;
}

async function planOf(team: Team, person: Person = team.owner): Promise<PlanResponse> {
  const res = await as(server, person, { method: 'GET', url: `/api/workspaces/${team.workspaceId}/plan` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function checkout(team: Team, planId = 'team', interval = 'month') {
  const res = await as(server, team.owner, {
    method: 'POST',
    url: `/api/workspaces/${team.workspaceId}/checkout`,
    payload: { plan_id: planId, interval },
  });
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json<{ payment_id: string; checkout_url: string }>();
  return { ...body, path: new URL(body.checkout_url).pathname };
}

const form = (fields: Record<string, string>) => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  payload: new URLSearchParams(fields).toString(),
});

const submitCard = (path: string, number: string) =>
  server.app.inject({
    method: 'POST',
    url: path,
    ...form({ number, expiry: '12 / 34', cvc: '123', name: 'Ana Owner' }),
  });

async function paymentStatus(team: Team, paymentId: string) {
  const res = await as(server, team.owner, { method: 'GET', url: `/api/checkout/payments/${paymentId}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ status: string; failure_message: string | null }>();
}

/** Webhooks go out right after each payment; this waits for the round in flight (and any still due). */
const delivered = () => server.app.builtinPayments!.deliverDue();

describe('checkout with the built-in provider', () => {
  it('renews an expired plan with the success card, only once the signed webhook arrives', async () => {
    const team = await expiredTeam();
    expect((await planOf(team)).status).toBe('expired');
    const started = await checkout(team);
    expect(started.checkout_url).toMatch(/^http:\/\/app\.test\/payments\/checkout\/cs_/);

    const page = await server.app.inject({ method: 'GET', url: started.path });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.body).toContain('Pay $149.00');
    expect(page.body).toContain('<label for="number">Card number</label>');

    const paid = await submitCard(started.path, SUCCESS);
    expect(paid.statusCode).toBe(303);
    expect(paid.headers.location).toBe(`http://app.test/checkout/return?payment_id=${started.payment_id}`);
    await delivered();

    const plan = await planOf(team);
    expect(plan).toMatchObject({ status: 'active', interval: 'month', plan: { id: 'team' } });
    expect(plan.access_ends_at! * 1000).toBeGreaterThan(Date.now() + 27 * 86_400_000);
    expect(await paymentStatus(team, started.payment_id)).toMatchObject({ status: 'paid' });

    const billing = await as(server, team.owner, {
      method: 'GET',
      url: `/api/workspaces/${team.workspaceId}/billing`,
    });
    expect(billing.json()).toMatchObject({
      payment_method: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2034 },
      invoices: [{ amount: 14_900, currency: 'usd', status: 'paid' }],
    });
    const invoice = billing.json<{ invoices: Array<{ id: string; number: string }> }>().invoices[0]!;
    expect(invoice.number).toMatch(/^MUR-\d+$/);
    const document = await as(server, team.owner, {
      method: 'GET',
      url: `/api/workspaces/${team.workspaceId}/billing/invoices/${invoice.id}/document`,
    });
    expect(document.statusCode).toBe(200);
    expect(document.headers['content-disposition']).toBe(
      `attachment; filename="invoice-${invoice.number}.html"`,
    );
    expect(document.body).toContain(`Invoice ${invoice.number}`);
    expect(document.body).toContain('$149.00');
    expect(document.body).toContain('visa ending in 4242');
  });

  it('a declined card shows the provider message and changes nothing', async () => {
    const team = await expiredTeam();
    const started = await checkout(team);
    const declined = await submitCard(started.path, DECLINED);
    expect(declined.statusCode).toBe(402);
    expect(declined.body).toContain('Your card was declined.');
    await delivered();
    expect((await planOf(team)).status).toBe('expired');
    expect(await paymentStatus(team, started.payment_id)).toMatchObject({
      status: 'failed',
      failure_message: 'Your card was declined.',
    });
    // Another card on the same page goes through.
    expect((await submitCard(started.path, SUCCESS)).statusCode).toBe(303);
    await delivered();
    expect((await planOf(team)).status).toBe('active');
  });

  it('the confirmation card works once confirmed and does nothing while abandoned', async () => {
    const team = await expiredTeam();
    const started = await checkout(team, 'starter', 'year');
    const asked = await submitCard(started.path, CONFIRM);
    expect(asked.statusCode).toBe(303);
    expect(asked.headers.location).toBe(`${started.path}/authenticate`);
    const step = await server.app.inject({ method: 'GET', url: `${started.path}/authenticate` });
    expect(step.body).toContain('Confirm your payment');
    await delivered();
    // Abandoned here: pending, and the plan stays expired.
    expect(await paymentStatus(team, started.payment_id)).toMatchObject({ status: 'requires_action' });
    expect((await planOf(team)).status).toBe('expired');
    expect((await planOf(team)).pending_payment_id).toBe(started.payment_id);

    const confirmed = await server.app.inject({
      method: 'POST',
      url: `${started.path}/authenticate`,
      ...form({ outcome: 'complete' }),
    });
    expect(confirmed.statusCode).toBe(303);
    expect(confirmed.headers.location).toContain(started.payment_id);
    await delivered();
    expect(await planOf(team)).toMatchObject({ status: 'active', interval: 'year', plan: { id: 'starter' } });
  });

  it('an abandoned confirmation expires with the session and leaves the plan as it was', async () => {
    const team = await expiredTeam();
    const started = await checkout(team);
    await submitCard(started.path, CONFIRM);
    const [payment] = await server.db.select().from(payments).where(eq(payments.id, started.payment_id));
    const { providerPayments } = await import('@server/db/billing-schema');
    await server.db
      .update(providerPayments)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(providerPayments.id, payment!.providerRef!));
    expect(await server.app.builtinPayments!.expireDue()).toBeGreaterThanOrEqual(1);
    await delivered();
    expect(await paymentStatus(team, started.payment_id)).toMatchObject({ status: 'expired' });
    expect((await planOf(team)).status).toBe('expired');
    const page = await server.app.inject({ method: 'GET', url: started.path });
    expect(page.statusCode).toBe(404);
  });

  it('a failed confirmation returns to the card form with the provider message', async () => {
    const team = await expiredTeam();
    const started = await checkout(team);
    await submitCard(started.path, CONFIRM);
    const failed = await server.app.inject({
      method: 'POST',
      url: `${started.path}/authenticate`,
      ...form({ outcome: 'fail' }),
    });
    expect(failed.statusCode).toBe(402);
    expect(failed.body).toContain('We are unable to authenticate your payment method');
    await delivered();
    expect((await planOf(team)).status).toBe('expired');
  });

  it('refuses invalid card forms on the page without charging', async () => {
    const team = await expiredTeam();
    const started = await checkout(team);
    const wrong = await server.app.inject({
      method: 'POST',
      url: started.path,
      ...form({ number: '4242 4242 4242 4241', expiry: '12/34', cvc: '123', name: 'A' }),
    });
    expect(wrong.statusCode).toBe(402);
    expect(wrong.body).toContain('Your card number is invalid.');
    const past = await server.app.inject({
      method: 'POST',
      url: started.path,
      ...form({ number: SUCCESS, expiry: '01/20', cvc: '123', name: 'A' }),
    });
    expect(past.body).toContain('in the past');
    expect(await paymentStatus(team, started.payment_id)).toMatchObject({ status: 'open' });
  });
});

describe('who may buy', () => {
  it('only owners start a checkout, see billing and payments; every member sees the plan', async () => {
    const team = await createTeam(server);
    for (const person of [team.manager, team.viewer]) {
      const res = await as(server, person, {
        method: 'POST',
        url: `/api/workspaces/${team.workspaceId}/checkout`,
        payload: { plan_id: 'team', interval: 'month' },
      });
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toBe('owner_required');
      const billing = await as(server, person, {
        method: 'GET',
        url: `/api/workspaces/${team.workspaceId}/billing`,
      });
      expect(billing.statusCode).toBe(403);
      const plan = await planOf(team, person);
      expect(plan.can_manage).toBe(false);
      expect(plan.status).toBe('trialing');
    }
    expect((await planOf(team)).can_manage).toBe(true);
    const outsider = await as(server, team.outsider, {
      method: 'GET',
      url: `/api/workspaces/${team.workspaceId}/plan`,
    });
    expect(outsider.statusCode).toBe(404);
    const started = await checkout(team);
    const peek = await as(server, team.manager, {
      method: 'GET',
      url: `/api/checkout/payments/${started.payment_id}`,
    });
    expect(peek.statusCode).toBe(404);
  });

  it('refuses an unknown plan and a second checkout while a paid period runs', async () => {
    const team = await expiredTeam();
    const unknown = await as(server, team.owner, {
      method: 'POST',
      url: `/api/workspaces/${team.workspaceId}/checkout`,
      payload: { plan_id: 'trial', interval: 'month' },
    });
    expect(unknown.json()).toMatchObject({ error: 'unknown_plan' });
    const started = await checkout(team);
    await submitCard(started.path, SUCCESS);
    await delivered();
    const again = await as(server, team.owner, {
      method: 'POST',
      url: `/api/workspaces/${team.workspaceId}/checkout`,
      payload: { plan_id: 'team', interval: 'month' },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toBe('already_subscribed');
  });

  it('a workspace made before billing gets its subscription on first look', async () => {
    const owner = await server.createUser();
    const workspace = await createWorkspace(server, [[owner, 'owner']], {
      planExpiredAt: new Date(Date.now() + 3 * 86_400_000),
    });
    const res = await as(server, owner, { method: 'GET', url: `/api/workspaces/${workspace.id}/plan` });
    expect(res.json()).toMatchObject({ status: 'trialing', plan: { id: 'trial' }, interval: null });
    const [row] = await server.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.workspaceId, workspace.id));
    expect(row).toMatchObject({ status: 'trialing', planId: 'trial' });
    expect(await server.db.select().from(invoices).where(eq(invoices.workspaceId, workspace.id))).toEqual([]);
  });
});
