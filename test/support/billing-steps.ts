// The billing tests' shared steps on a test server with the built-in provider: checkouts, paid teams, signed
// webhooks, the plan as the API shows it, and periods moved so the billing job finds them due.
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { invoices, subscriptions } from '@server/db/billing-schema';
import { workspaces } from '@server/db/schema';
import { signPayload } from '@server/payments/signature';
import type { PlanResponse } from '@contract/billing';
import type { TestServer } from './server-harness';
import { as, createTeam, type Team } from './workspaces.fixtures';

const DAY = 86_400_000;

/** A checkout started: our payment, and the provider's session (its id ends the page's address) and workspace. */
export interface Started {
  payment_id: string;
  checkout_url: string;
  session: string;
  workspace_id: string;
}

/** The steps, on the server `serverOf` gives (one made in the test file's beforeAll). */
export function billingSteps(serverOf: () => TestServer) {
  const delivered = () => serverOf().app.builtinPayments!.deliverDue();
  const quiet = () => undefined;

  async function planOf(team: Team): Promise<PlanResponse> {
    const res = await as(serverOf(), team.owner, {
      method: 'GET',
      url: `/api/workspaces/${team.workspaceId}/plan`,
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  }

  async function startCheckout(team: Team, planId = 'team', interval = 'month'): Promise<Started> {
    const res = await as(serverOf(), team.owner, {
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
    const team = await createTeam(serverOf());
    const started = await startCheckout(team, planId, interval);
    const res = await serverOf().app.inject({
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
    return serverOf().app.inject({
      method: 'POST',
      url: '/api/billing/webhooks/builtin',
      headers: {
        'content-type': 'application/json',
        'murmur-signature': signature ?? signPayload(serverOf().app.keys.paymentWebhooks, payload),
      },
      payload,
    });
  }

  const now = () => Math.floor(Date.now() / 1000);
  const invoicesOf = (team: Team) =>
    serverOf().db.select().from(invoices).where(eq(invoices.workspaceId, team.workspaceId));
  const subOf = async (team: Team) =>
    (
      await serverOf().db.select().from(subscriptions).where(eq(subscriptions.workspaceId, team.workspaceId))
    )[0]!;

  /** Moves the subscription's period so it ends `msAgo` ago, due for the job. */
  async function endPeriod(team: Team, msAgo: number) {
    const sub = await subOf(team);
    const shift = sub.periodEnd!.getTime() - (Date.now() - msAgo);
    const periodEnd = new Date(sub.periodEnd!.getTime() - shift);
    await serverOf()
      .db.update(subscriptions)
      .set({ periodStart: new Date(sub.periodStart!.getTime() - shift), periodEnd, nextRunAt: periodEnd })
      .where(eq(subscriptions.workspaceId, team.workspaceId));
    const planExpiredAt =
      sub.status === 'canceled' || sub.status === 'trialing'
        ? periodEnd
        : new Date(periodEnd.getTime() + 3 * DAY);
    await serverOf().db.update(workspaces).set({ planExpiredAt }).where(eq(workspaces.id, team.workspaceId));
  }

  return {
    delivered,
    quiet,
    planOf,
    startCheckout,
    paidTeam,
    event,
    post,
    now,
    invoicesOf,
    subOf,
    endPeriod,
  };
}
