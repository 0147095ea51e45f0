// The built-in provider (server/payments) behind the payment-provider interface: its checkout and charges are called
// in-process, and its webhooks come back over HTTP, signed, and are verified here like any provider's.
import * as z from 'zod/mini';
import type { BuiltinPayments } from '@server/payments/service';
import { SIGNATURE_HEADER, verifySignature } from '@server/payments/signature';
import { WebhookSignatureError, type PaymentEvent, type PaymentProvider } from './provider';

const eventSchema = z.object({
  id: z.string().check(z.minLength(1), z.maxLength(100)),
  type: z.enum(['payment.succeeded', 'payment.failed', 'payment.requires_action', 'payment.expired']),
  created: z.int(),
  data: z.object({
    id: z.string(),
    amount: z.int(),
    currency: z.string(),
    metadata: z.record(z.string(), z.string()),
    customer: z.string(),
    payment_method: z.nullable(
      z.object({
        id: z.string(),
        brand: z.string(),
        last4: z.string(),
        exp_month: z.int(),
        exp_year: z.int(),
      }),
    ),
    failure_message: z.nullable(z.string()),
  }),
});

export function builtinProvider(payments: BuiltinPayments, key: Uint8Array): PaymentProvider {
  return {
    name: 'builtin',
    async createCheckout(input) {
      const session = await payments.createCheckout({
        idempotencyKey: `checkout:${input.paymentId}`,
        amount: input.amount,
        currency: input.currency,
        description: input.description,
        customerId: input.customerRef,
        customerEmail: input.customerEmail,
        successUrl: input.successUrl,
        cancelUrl: input.cancelUrl,
        metadata: { payment_id: input.paymentId, workspace_id: input.workspaceId },
      });
      return { ref: session.id, url: session.url };
    },
    async chargeSaved(input) {
      const charge = await payments.charge({
        idempotencyKey: `charge:${input.paymentId}:${input.attempt}`,
        amount: input.amount,
        currency: input.currency,
        description: input.description,
        customerId: input.customerRef,
        paymentMethodId: input.paymentMethodRef,
        metadata: { payment_id: input.paymentId, workspace_id: input.workspaceId },
      });
      return { ref: charge.id };
    },
    async parseWebhook(rawBody, headers): Promise<PaymentEvent> {
      const header = headers[SIGNATURE_HEADER];
      const payload = rawBody.toString('utf8');
      if (!verifySignature(key, payload, typeof header === 'string' ? header : undefined)) {
        throw new WebhookSignatureError('The webhook signature is not valid.');
      }
      const event = z.parse(eventSchema, JSON.parse(payload));
      const occurredAt = new Date(event.created * 1000);
      const paymentId = event.data.metadata.payment_id;
      if (!paymentId) return { id: event.id, occurredAt, type: 'ignored', providerType: event.type };
      // A checkout's events name its session, a charge's the charge: the reference billing holds for either.
      const subject = {
        paymentId,
        workspaceId: event.data.metadata.workspace_id ?? null,
        providerRef: event.data.id,
        checkoutRef: null,
      };
      if (event.type === 'payment.succeeded') {
        const method = event.data.payment_method;
        return {
          id: event.id,
          occurredAt,
          type: event.type,
          ...subject,
          amount: event.data.amount,
          currency: event.data.currency,
          customerRef: event.data.customer,
          paymentMethodRef: method?.id ?? null,
          card: method
            ? {
                brand: method.brand,
                last4: method.last4,
                expMonth: method.exp_month,
                expYear: method.exp_year,
              }
            : null,
        };
      }
      return {
        id: event.id,
        occurredAt,
        type: event.type,
        ...subject,
        message: event.data.failure_message,
      };
    },
  };
}
