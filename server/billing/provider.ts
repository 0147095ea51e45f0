// The one interface every card payment provider is used through (the built-in one in server/payments, Stripe in
// ./stripe.ts). The billing code never learns a card number: it starts a hosted checkout, charges a saved card, and
// learns outcomes from webhooks whose signature the provider's adapter has verified.

interface CardDetails {
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

interface CheckoutInput {
  /** Our payment's id: the idempotency key, and the metadata every event of this payment carries back. */
  paymentId: string;
  workspaceId: string;
  amount: number;
  currency: string;
  description: string;
  customerEmail: string | null;
  /** The customer from an earlier payment, so the card is saved on the same one. */
  customerRef: string | null;
  successUrl: string;
  cancelUrl: string;
}

interface ChargeInput {
  paymentId: string;
  /** The try (1, 2, …): each try of a payment is its own idempotent request. */
  attempt: number;
  workspaceId: string;
  amount: number;
  currency: string;
  description: string;
  customerRef: string;
  paymentMethodRef: string;
}

/**
 * What an event says it is about, checked against our pending payment before anything is applied: the workspace its
 * metadata names, and the provider's objects (the payment intent or charge, and the checkout session it was paid
 * through) of which one must be the reference we hold for the payment.
 */
interface EventSubject {
  paymentId: string;
  /** The workspace_id of the metadata we gave the provider; null when the event carries none. */
  workspaceId: string | null;
  /** The provider's object the event is about (Stripe's PaymentIntent or Checkout Session, the built-in's id). */
  providerRef: string;
  /** The checkout session the payment was made through, when the provider names another object than it. */
  checkoutRef: string | null;
}

/** A verified webhook, in the provider's words translated to ours. */
export type PaymentEvent =
  | (EventSubject & {
      id: string;
      occurredAt: Date;
      type: 'payment.succeeded';
      amount: number;
      /** ISO 4217, as the provider writes it (any case). */
      currency: string;
      customerRef: string | null;
      paymentMethodRef: string | null;
      card: CardDetails | null;
    })
  | (EventSubject & {
      id: string;
      occurredAt: Date;
      type: 'payment.failed' | 'payment.requires_action' | 'payment.expired';
      message: string | null;
    })
  /** An event of no interest (another type, or one without our payment id): acknowledged and ignored. */
  | { id: string; occurredAt: Date; type: 'ignored'; providerType: string };

export class WebhookSignatureError extends Error {}

export interface PaymentProvider {
  readonly name: 'builtin' | 'stripe';
  createCheckout(input: CheckoutInput): Promise<{ ref: string; url: string }>;
  /** Charges a saved card without the customer (renewals, upgrades); the outcome arrives as a webhook. */
  chargeSaved(input: ChargeInput): Promise<{ ref: string }>;
  /** Verifies the signature over the raw body and translates the event; throws WebhookSignatureError when forged. */
  parseWebhook(
    rawBody: Buffer,
    headers: Record<string, string | string[] | undefined>,
  ): Promise<PaymentEvent>;
}
