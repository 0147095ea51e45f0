// Webhooks of the built-in provider: a bad signature, a replay, two at once, out of order, and signed events that are
// not about the pending payment as asked (another amount, currency, session or workspace).
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payments } from '@server/db/billing-schema';
import { signPayload } from '@server/payments/signature';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { billingSteps } from '@test/support/billing-steps';
import { createTeam } from '@test/support/workspaces.fixtures';

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer({ PAST_DUE_GRACE_DAYS: '3' });
});
afterAll(() => server.close());

const { planOf, startCheckout, event, post, now, invoicesOf } = billingSteps(() => server);

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
