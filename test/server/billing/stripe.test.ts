// The Stripe adapter against the official SDK: requests as the SDK encodes them (idempotency keys, Checkout Session
// parameters), answers recorded from Stripe's API, and webhooks signed with the SDK's own test-header helper.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { stripeProvider } from '@server/billing/stripe';
import { WebhookSignatureError } from '@server/billing/provider';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam } from '@test/support/workspaces.fixtures';
import {
  cardDeclined,
  checkoutSession,
  paidSession,
  paymentIntent,
  paymentMethod,
  recordedStripe,
  sessionList,
} from '@test/support/stripe-recorded';

const SECRET = 'whsec_test_0123456789abcdef';
const KEY = 'sk_test_recorded';
const PAYMENT = '6f1c1b3e-2a7d-4c1e-9a53-0b8f4f7d2c11';
const stripe = new Stripe(KEY);

function signed(event: object, secret = SECRET, timestamp?: number) {
  const payload = JSON.stringify(event);
  return {
    body: Buffer.from(payload),
    headers: {
      'stripe-signature': stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp }),
    },
  };
}

const eventOf = (type: string, object: object, id = `evt_${type.replace(/\W/g, '')}`) => ({
  id,
  object: 'event',
  api_version: '2026-10-28.endive',
  created: Math.floor(Date.now() / 1000),
  livemode: false,
  type,
  data: { object },
});

describe('the Stripe adapter', () => {
  it('creates a Checkout Session in payment mode that saves the card, with an idempotency key', async () => {
    const recorded = recordedStripe({
      'POST /v1/checkout/sessions': [{ status: 200, body: checkoutSession('cs_test_a1', PAYMENT, 'w1') }],
    });
    const provider = stripeProvider({
      secretKey: KEY,
      webhookSecret: SECRET,
      httpClient: recorded.httpClient,
    });
    const session = await provider.createCheckout({
      paymentId: PAYMENT,
      workspaceId: 'w1',
      amount: 14_900,
      currency: 'usd',
      description: 'Murmur Team, monthly — Acme',
      customerEmail: 'ana@example.com',
      customerRef: null,
      successUrl: `http://app.test/checkout/return?payment_id=${PAYMENT}`,
      cancelUrl: 'http://app.test/workspace/w1/checkout',
    });
    expect(session).toEqual({
      ref: 'cs_test_a1',
      url: 'https://checkout.stripe.com/c/pay/cs_test_a1#fidkdWxOYHwnPyd1blpxYHZxWjA0',
    });
    const [request] = recorded.requests;
    expect(request!.headers['idempotency-key']).toBe(`checkout:${PAYMENT}`);
    expect(request!.headers.authorization).toBe(`Bearer ${KEY}`);
    const body = request!.body;
    expect(body.get('mode')).toBe('payment');
    expect(body.get('line_items[0][price_data][unit_amount]')).toBe('14900');
    expect(body.get('line_items[0][price_data][currency]')).toBe('usd');
    expect(body.get('payment_intent_data[setup_future_usage]')).toBe('off_session');
    expect(body.get('payment_intent_data[metadata][payment_id]')).toBe(PAYMENT);
    expect(body.get('metadata[payment_id]')).toBe(PAYMENT);
    expect(body.get('customer_creation')).toBe('always');
    expect(body.get('customer_email')).toBe('ana@example.com');
    expect(body.get('success_url')).toBe(`http://app.test/checkout/return?payment_id=${PAYMENT}`);
  });

  it('charges a saved card off-session; a decline (402) still returns the intent, the webhook decides', async () => {
    const recorded = recordedStripe({
      'POST /v1/payment_intents': [
        { status: 200, body: paymentIntent('pi_ok', PAYMENT, 'succeeded') },
        { status: 402, body: cardDeclined('pi_declined', PAYMENT) },
      ],
    });
    const provider = stripeProvider({
      secretKey: KEY,
      webhookSecret: SECRET,
      httpClient: recorded.httpClient,
    });
    const input = {
      paymentId: PAYMENT,
      workspaceId: 'w1',
      amount: 14_900,
      currency: 'usd',
      description: 'renewal',
      customerRef: 'cus_RecordedCustomer',
      paymentMethodRef: 'pm_1RecordedCard',
    };
    expect(await provider.chargeSaved({ ...input, attempt: 1 })).toEqual({ ref: 'pi_ok' });
    expect(await provider.chargeSaved({ ...input, attempt: 2 })).toEqual({ ref: 'pi_declined' });
    expect(recorded.requests.map((r) => r.headers['idempotency-key'])).toEqual([
      `charge:${PAYMENT}:1`,
      `charge:${PAYMENT}:2`,
    ]);
    expect(recorded.requests[0]!.body.get('off_session')).toBe('true');
    expect(recorded.requests[0]!.body.get('confirm')).toBe('true');
    expect(recorded.requests[0]!.body.get('payment_method')).toBe('pm_1RecordedCard');
  });

  it('verifies webhooks with the signing secret and translates them', async () => {
    const recorded = recordedStripe({
      [`GET /v1/payment_methods/${paymentMethod.id}`]: [{ status: 200, body: paymentMethod }],
      // The checkout session each intent was paid through (none for an off-session charge).
      'GET /v1/checkout/sessions': [
        { status: 200, body: sessionList([paidSession('cs_test_a1', PAYMENT, 'w1', 'pi_ok')]) },
        { status: 200, body: sessionList([]) },
      ],
    });
    const provider = stripeProvider({
      secretKey: KEY,
      webhookSecret: SECRET,
      httpClient: recorded.httpClient,
    });
    const succeeded = signed(
      eventOf('payment_intent.succeeded', paymentIntent('pi_ok', PAYMENT, 'succeeded')),
    );
    expect(await provider.parseWebhook(succeeded.body, succeeded.headers)).toMatchObject({
      type: 'payment.succeeded',
      paymentId: PAYMENT,
      providerRef: 'pi_ok',
      checkoutRef: 'cs_test_a1',
      workspaceId: 'w1',
      amount: 14_900,
      currency: 'usd',
      customerRef: 'cus_RecordedCustomer',
      paymentMethodRef: 'pm_1RecordedCard',
      card: { brand: 'mastercard', last4: '4444', expMonth: 8, expYear: 2031 },
    });

    const failed = signed(
      eventOf(
        'payment_intent.payment_failed',
        paymentIntent('pi_no', PAYMENT, 'requires_payment_method', {
          last_payment_error: { message: 'Your card has insufficient funds.' },
        }),
      ),
    );
    expect(await provider.parseWebhook(failed.body, failed.headers)).toMatchObject({
      type: 'payment.failed',
      providerRef: 'pi_no',
      checkoutRef: null,
      workspaceId: 'w1',
      message: 'Your card has insufficient funds.',
    });
    expect(
      recorded.requests
        .filter((r) => r.path === '/v1/checkout/sessions')
        .map((r) => r.query.get('payment_intent')),
    ).toEqual(['pi_ok', 'pi_no']);
    const expired = signed(
      eventOf('checkout.session.expired', { ...checkoutSession('cs_x', PAYMENT, 'w1'), status: 'expired' }),
    );
    expect(await provider.parseWebhook(expired.body, expired.headers)).toMatchObject({
      type: 'payment.expired',
      paymentId: PAYMENT,
      providerRef: 'cs_x',
      workspaceId: 'w1',
    });
    const other = signed(eventOf('customer.created', { id: 'cus_1', object: 'customer' }));
    expect(await provider.parseWebhook(other.body, other.headers)).toMatchObject({ type: 'ignored' });
  });

  it('refuses a wrong secret, an altered body and an old timestamp', async () => {
    const provider = stripeProvider({ secretKey: KEY, webhookSecret: SECRET });
    const event = eventOf('payment_intent.succeeded', paymentIntent('pi_ok', PAYMENT, 'succeeded'));
    const wrong = signed(event, 'whsec_other');
    await expect(provider.parseWebhook(wrong.body, wrong.headers)).rejects.toBeInstanceOf(
      WebhookSignatureError,
    );
    const good = signed(event);
    const altered = Buffer.from(good.body.toString().replace('14900', '1'));
    await expect(provider.parseWebhook(altered, good.headers)).rejects.toBeInstanceOf(WebhookSignatureError);
    const old = signed(event, SECRET, Math.floor(Date.now() / 1000) - 3600);
    await expect(provider.parseWebhook(old.body, old.headers)).rejects.toBeInstanceOf(WebhookSignatureError);
    await expect(provider.parseWebhook(good.body, {})).rejects.toBeInstanceOf(WebhookSignatureError);
  });
});

describe('the server with Stripe', () => {
  let server: TestServer;
  beforeAll(async () => {
    // Each test hands the adapter the recorded answers its requests get (server.app.billing.provider).
    const recorded = recordedStripe({});
    server = await createTestServer(
      { STRIPE_SECRET_KEY: KEY, STRIPE_WEBHOOK_SECRET: SECRET, APP_URL: 'http://app.test' },
      {
        paymentProvider: stripeProvider({
          secretKey: KEY,
          webhookSecret: SECRET,
          httpClient: recorded.httpClient,
        }),
      },
    );
  });
  afterAll(() => server.close());

  it('is chosen by the keys, and a verified Stripe webhook renews the plan exactly once', async () => {
    expect(server.config.PAYMENT_PROVIDER).toBe('stripe');
    expect(server.app.builtinPayments).toBeNull();
    const team = await createTeam(server);
    // The checkout: the session the SDK created (recorded answer), its URL handed to the browser.
    const answers = {
      'POST /v1/checkout/sessions': [
        { status: 200, body: checkoutSession('cs_test_srv', PAYMENT, team.workspaceId) },
      ],
    };
    const start = recordedStripe(answers);
    const provider = stripeProvider({ secretKey: KEY, webhookSecret: SECRET, httpClient: start.httpClient });
    server.app.billing.provider = provider;
    const res = await as(server, team.owner, {
      method: 'POST',
      url: `/api/workspaces/${team.workspaceId}/checkout`,
      payload: { plan_id: 'team', interval: 'month' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const { payment_id, checkout_url } = res.json<{ payment_id: string; checkout_url: string }>();
    expect(checkout_url).toMatch(/^https:\/\/checkout\.stripe\.com\//);
    expect(start.requests[0]!.headers['idempotency-key']).toBe(`checkout:${payment_id}`);

    // The card's details and the intent's session are read from Stripe for each delivery, the repeated one too.
    const paid = sessionList([paidSession('cs_test_srv', payment_id, team.workspaceId, 'pi_srv')]);
    const withCard = recordedStripe({
      [`GET /v1/payment_methods/${paymentMethod.id}`]: [
        { status: 200, body: paymentMethod },
        { status: 200, body: paymentMethod },
      ],
      'GET /v1/checkout/sessions': [
        { status: 200, body: paid },
        { status: 200, body: paid },
      ],
    });
    server.app.billing.provider = stripeProvider({
      secretKey: KEY,
      webhookSecret: SECRET,
      httpClient: withCard.httpClient,
    });
    const event = signed(
      eventOf(
        'payment_intent.succeeded',
        paymentIntent('pi_srv', payment_id, 'succeeded', {
          metadata: { payment_id, workspace_id: team.workspaceId },
        }),
      ),
    );
    const deliver = () =>
      server.app.inject({
        method: 'POST',
        url: '/api/billing/webhooks/stripe',
        headers: { ...event.headers, 'content-type': 'application/json' },
        payload: event.body,
      });
    expect((await deliver()).json()).toEqual({ received: true, outcome: 'applied' });
    expect((await deliver()).json()).toEqual({ received: true, outcome: 'duplicate' });
    const billing = await as(server, team.owner, {
      method: 'GET',
      url: `/api/workspaces/${team.workspaceId}/billing`,
    });
    expect(billing.json()).toMatchObject({
      provider: 'stripe',
      payment_method: { brand: 'mastercard', last4: '4444' },
      invoices: [{ amount: 14_900 }],
    });
    const forged = await server.app.inject({
      method: 'POST',
      url: '/api/billing/webhooks/stripe',
      headers: { 'stripe-signature': 't=1,v1=abc', 'content-type': 'application/json' },
      payload: event.body,
    });
    expect(forged.statusCode).toBe(400);
  });

  it('does not apply a success in another currency, through another session or for another workspace', async () => {
    const team = await createTeam(server);
    const other = await createTeam(server);
    server.app.billing.provider = stripeProvider({
      secretKey: KEY,
      webhookSecret: SECRET,
      httpClient: recordedStripe({
        'POST /v1/checkout/sessions': [
          { status: 200, body: checkoutSession('cs_test_one', PAYMENT, team.workspaceId) },
        ],
      }).httpClient,
    });
    const res = await as(server, team.owner, {
      method: 'POST',
      url: `/api/workspaces/${team.workspaceId}/checkout`,
      payload: { plan_id: 'team', interval: 'month' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const { payment_id } = res.json<{ payment_id: string }>();
    const metadata = { payment_id, workspace_id: team.workspaceId };
    const cases = [
      // Paid in yen, through this payment's session.
      { intent: { currency: 'jpy', metadata }, session: 'cs_test_one' },
      // Paid through another session (or none: an intent of ours that is not this payment's).
      { intent: { metadata }, session: 'cs_test_other' },
      { intent: { metadata }, session: null },
      // Another workspace named beside this payment.
      { intent: { metadata: { ...metadata, workspace_id: other.workspaceId } }, session: 'cs_test_one' },
    ];
    for (const [index, { intent, session }] of cases.entries()) {
      const sessions = session ? [paidSession(session, payment_id, team.workspaceId, `pi_bad${index}`)] : [];
      server.app.billing.provider = stripeProvider({
        secretKey: KEY,
        webhookSecret: SECRET,
        httpClient: recordedStripe({
          [`GET /v1/payment_methods/${paymentMethod.id}`]: [{ status: 200, body: paymentMethod }],
          'GET /v1/checkout/sessions': [{ status: 200, body: sessionList(sessions) }],
        }).httpClient,
      });
      const event = signed(
        eventOf(
          'payment_intent.succeeded',
          paymentIntent(`pi_bad${index}`, payment_id, 'succeeded', intent),
          `evt_bad${index}`,
        ),
      );
      const delivered = await server.app.inject({
        method: 'POST',
        url: '/api/billing/webhooks/stripe',
        headers: { ...event.headers, 'content-type': 'application/json' },
        payload: event.body,
      });
      expect(delivered.json(), JSON.stringify({ intent, session })).toEqual({
        received: true,
        outcome: 'ignored',
      });
    }
    const plan = await as(server, team.owner, {
      method: 'GET',
      url: `/api/workspaces/${team.workspaceId}/plan`,
    });
    expect(plan.json().status).toBe('trialing');
  });
});
