// Stripe behind the payment-provider interface (STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET set): Checkout Sessions in
// payment mode that save the card for later (setup_future_usage), off-session PaymentIntents for renewals and
// upgrades, idempotency keys on every create, and webhooks verified with the signing secret by the SDK.
import Stripe from 'stripe';
import { WebhookSignatureError, type PaymentEvent, type PaymentProvider } from './provider';

export interface StripeOptions {
  secretKey: string;
  webhookSecret: string;
  /** The SDK's HTTP client; tests pass one that answers with recorded responses. */
  httpClient?: ReturnType<typeof Stripe.createFetchHttpClient>;
}

const refOf = (value: string | { id: string } | null | undefined) =>
  value == null ? null : typeof value === 'string' ? value : value.id;

export function stripeProvider(options: StripeOptions): PaymentProvider {
  const stripe = new Stripe(options.secretKey, {
    maxNetworkRetries: 2,
    ...(options.httpClient && { httpClient: options.httpClient }),
  });

  return {
    name: 'stripe',
    async createCheckout(input) {
      const metadata = { payment_id: input.paymentId, workspace_id: input.workspaceId };
      const session = await stripe.checkout.sessions.create(
        {
          mode: 'payment',
          line_items: [
            {
              quantity: 1,
              price_data: {
                currency: input.currency,
                unit_amount: input.amount,
                product_data: { name: input.description },
              },
            },
          ],
          ...(input.customerRef
            ? { customer: input.customerRef }
            : {
                customer_creation: 'always' as const,
                ...(input.customerEmail && { customer_email: input.customerEmail }),
              }),
          // The card is saved on the customer, so renewals charge it without the customer present.
          payment_intent_data: { setup_future_usage: 'off_session', metadata },
          metadata,
          client_reference_id: input.workspaceId,
          success_url: input.successUrl,
          cancel_url: input.cancelUrl,
        },
        { idempotencyKey: `checkout:${input.paymentId}` },
      );
      if (!session.url) throw new Error('Stripe returned a checkout session without a URL.');
      return { ref: session.id, url: session.url };
    },

    async chargeSaved(input) {
      try {
        const intent = await stripe.paymentIntents.create(
          {
            amount: input.amount,
            currency: input.currency,
            customer: input.customerRef,
            payment_method: input.paymentMethodRef,
            off_session: true,
            confirm: true,
            description: input.description,
            metadata: { payment_id: input.paymentId, workspace_id: input.workspaceId },
          },
          { idempotencyKey: `charge:${input.paymentId}:${input.attempt}` },
        );
        return { ref: intent.id };
      } catch (error) {
        // A declined card: Stripe answers 402 and also sends payment_intent.payment_failed, which decides.
        if (error instanceof Stripe.errors.StripeCardError && error.payment_intent) {
          return { ref: error.payment_intent.id };
        }
        throw error;
      }
    },

    async parseWebhook(rawBody, headers): Promise<PaymentEvent> {
      const signature = headers['stripe-signature'];
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(rawBody, signature ?? '', options.webhookSecret);
      } catch (error) {
        if (error instanceof Stripe.errors.StripeSignatureVerificationError) {
          throw new WebhookSignatureError(error.message);
        }
        throw error;
      }
      const occurredAt = new Date(event.created * 1000);
      const ignored = { id: event.id, occurredAt, type: 'ignored' as const, providerType: event.type };
      /**
       * What an intent's event is about: billing holds a checkout's session id (the intent is made when the customer
       * pays, so its id is learned here, from the session that names it) or an off-session charge's intent id.
       */
      const intentSubject = async (intent: Stripe.PaymentIntent, paymentId: string) => {
        const sessions = await stripe.checkout.sessions.list({ payment_intent: intent.id, limit: 1 });
        return {
          paymentId,
          workspaceId: intent.metadata.workspace_id ?? null,
          providerRef: intent.id,
          checkoutRef: sessions.data[0]?.id ?? null,
        };
      };
      switch (event.type) {
        case 'payment_intent.succeeded': {
          const intent = event.data.object;
          const paymentId = intent.metadata.payment_id;
          if (!paymentId) return ignored;
          const methodRef = refOf(intent.payment_method);
          const method = methodRef ? await stripe.paymentMethods.retrieve(methodRef) : null;
          return {
            id: event.id,
            occurredAt,
            type: 'payment.succeeded',
            ...(await intentSubject(intent, paymentId)),
            amount: intent.amount_received,
            currency: intent.currency,
            customerRef: refOf(intent.customer),
            paymentMethodRef: methodRef,
            card: method?.card
              ? {
                  brand: method.card.brand,
                  last4: method.card.last4,
                  expMonth: method.card.exp_month,
                  expYear: method.card.exp_year,
                }
              : null,
          };
        }
        case 'payment_intent.payment_failed':
        case 'payment_intent.requires_action': {
          const intent = event.data.object;
          const paymentId = intent.metadata.payment_id;
          if (!paymentId) return ignored;
          return {
            id: event.id,
            occurredAt,
            type:
              event.type === 'payment_intent.payment_failed' ? 'payment.failed' : 'payment.requires_action',
            ...(await intentSubject(intent, paymentId)),
            message: intent.last_payment_error?.message ?? null,
          };
        }
        case 'checkout.session.expired': {
          const session = event.data.object;
          const paymentId = session.metadata?.payment_id;
          if (!paymentId) return ignored;
          return {
            id: event.id,
            occurredAt,
            type: 'payment.expired',
            paymentId,
            workspaceId: session.metadata?.workspace_id ?? null,
            providerRef: session.id,
            checkoutRef: session.id,
            message: null,
          };
        }
        default:
          return ignored;
      }
    },
  };
}
