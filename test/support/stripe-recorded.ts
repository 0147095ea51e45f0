// Stripe API answers as Stripe sends them (shapes and fields of API version 2026-10-28, trimmed to what matters; this
// machine has no internet, so they are written from Stripe's API reference rather than captured), served to the
// official SDK through its own fetch-based HTTP client: the SDK encodes the requests and parses these answers itself.
import Stripe from 'stripe';

interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  /** The form-encoded body, decoded. */
  body: URLSearchParams;
}

type Answer = { status: number; body: object };

export function checkoutSession(id: string, paymentId: string, workspaceId: string) {
  return {
    id,
    object: 'checkout.session',
    amount_total: 14_900,
    currency: 'usd',
    customer: null,
    customer_creation: 'always',
    expires_at: Math.floor(Date.now() / 1000) + 86_400,
    livemode: false,
    metadata: { payment_id: paymentId, workspace_id: workspaceId },
    mode: 'payment',
    payment_intent: null,
    payment_status: 'unpaid',
    status: 'open',
    success_url: 'http://app.test/checkout/return',
    url: `https://checkout.stripe.com/c/pay/${id}#fidkdWxOYHwnPyd1blpxYHZxWjA0`,
  };
}

/** GET /v1/checkout/sessions: a page of sessions (those of one payment intent, when asked by payment_intent). */
export function sessionList(sessions: object[]) {
  return { object: 'list', data: sessions, has_more: false, url: '/v1/checkout/sessions' };
}

/** A session the customer paid: complete, with its payment intent. */
export function paidSession(id: string, paymentId: string, workspaceId: string, intentId: string) {
  return {
    ...checkoutSession(id, paymentId, workspaceId),
    customer: 'cus_RecordedCustomer',
    payment_intent: intentId,
    payment_status: 'paid',
    status: 'complete',
  };
}

export function paymentIntent(
  id: string,
  paymentId: string,
  status: 'succeeded' | 'requires_payment_method' | 'requires_action',
  extra: object = {},
) {
  return {
    id,
    object: 'payment_intent',
    amount: 14_900,
    amount_received: status === 'succeeded' ? 14_900 : 0,
    currency: 'usd',
    customer: 'cus_RecordedCustomer',
    last_payment_error: null,
    livemode: false,
    metadata: { payment_id: paymentId, workspace_id: 'w1' },
    payment_method: 'pm_1RecordedCard',
    status,
    ...extra,
  };
}

export const paymentMethod = {
  id: 'pm_1RecordedCard',
  object: 'payment_method',
  type: 'card',
  customer: 'cus_RecordedCustomer',
  livemode: false,
  card: {
    brand: 'mastercard',
    country: 'US',
    exp_month: 8,
    exp_year: 2031,
    funding: 'credit',
    last4: '4444',
  },
};

export function cardDeclined(intentId: string, paymentId: string) {
  return {
    error: {
      type: 'card_error',
      code: 'card_declined',
      decline_code: 'generic_decline',
      message: 'Your card was declined.',
      payment_intent: paymentIntent(intentId, paymentId, 'requires_payment_method', {
        last_payment_error: { type: 'card_error', code: 'card_declined', message: 'Your card was declined.' },
      }),
    },
  };
}

/** An HTTP client for the SDK that records each request and answers with the next recorded answer for its path. */
export function recordedStripe(answers: Record<string, Answer[]>) {
  const requests: RecordedRequest[] = [];
  const fetchFn = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const key = `${init?.method ?? 'GET'} ${url.pathname}`;
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
    requests.push({
      method: init?.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers,
      body: new URLSearchParams(typeof init?.body === 'string' ? init.body : ''),
    });
    const answer = answers[key]?.shift();
    if (!answer)
      return new Response(JSON.stringify({ error: { message: `No recording for ${key}` } }), { status: 500 });
    return new Response(JSON.stringify(answer.body), {
      status: answer.status,
      headers: { 'content-type': 'application/json', 'request-id': 'req_recorded' },
    });
  }) as typeof fetch;
  return { httpClient: Stripe.createFetchHttpClient(fetchFn), requests };
}
