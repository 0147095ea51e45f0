// The built-in card payment provider: hosted checkout sessions, saved cards charged again off-session, and signed
// webhooks about every outcome, kept in an outbox until the receiver acknowledges them. It stands apart from the
// billing code, which uses it only through server/billing/builtin-adapter.ts, as it would use Stripe.
import { randomBytes } from 'node:crypto';
import { and, eq, inArray, isNull, lte, sql } from 'drizzle-orm';
import type { Executor } from '@server/workspaces/access';
import type { Db } from '@server/db/database';
import { providerPaymentMethods, providerPayments, providerWebhooks } from '@server/db/billing-schema';
import { checkCardForm, type CardForm } from './cards';
import { signPayload } from './signature';

/** How long a checkout page stays usable. */
const SESSION_TTL_MS = 60 * 60 * 1000;
const MAX_BACKOFF_SECONDS = 3600;

export type BuiltinEventType =
  'payment.succeeded' | 'payment.failed' | 'payment.requires_action' | 'payment.expired';

/** The body of a webhook the built-in provider sends. */
interface BuiltinEvent {
  id: string;
  type: BuiltinEventType;
  created: number;
  data: {
    id: string;
    amount: number;
    currency: string;
    metadata: Record<string, string>;
    customer: string;
    payment_method: { id: string; brand: string; last4: string; exp_month: number; exp_year: number } | null;
    failure_message: string | null;
  };
}

const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('base64url')}`;

type PaymentRow = typeof providerPayments.$inferSelect;
type MethodRow = typeof providerPaymentMethods.$inferSelect;

export interface BuiltinPaymentsOptions {
  db: Db;
  /** The webhook signing key (shared with the adapter that verifies). */
  key: Uint8Array;
  /** Where the provider's pages are served (PAYMENT_SERVER_URL, ending in /). */
  baseUrl: string;
  /** Posts one signed webhook to the receiver; resolves to the HTTP status it answered. */
  deliver?: (payload: string, signature: string) => Promise<number>;
  log?: (message: string) => void;
}

export type PayResult =
  | { kind: 'redirect'; url: string }
  | { kind: 'authenticate' }
  | { kind: 'form-error'; message: string }
  | { kind: 'gone'; message: string };

export function createBuiltinPayments(options: BuiltinPaymentsOptions) {
  const { db, key, baseUrl, log = console.log } = options;
  let deliver = options.deliver;
  let delivering: Promise<number> | null = null;

  async function emit(tx: Executor, type: BuiltinEventType, payment: PaymentRow, method: MethodRow | null) {
    const event: BuiltinEvent = {
      id: newId('evt'),
      type,
      created: Math.floor(Date.now() / 1000),
      data: {
        id: payment.id,
        amount: payment.amount,
        currency: payment.currency,
        metadata: payment.metadata as Record<string, string>,
        customer: payment.customerId,
        payment_method: method
          ? {
              id: method.id,
              brand: method.brand,
              last4: method.last4,
              exp_month: method.expMonth,
              exp_year: method.expYear,
            }
          : null,
        failure_message: payment.failureMessage,
      },
    };
    await tx.insert(providerWebhooks).values({ id: event.id, type, payload: JSON.stringify(event) });
  }

  /** Sends the webhooks that are due, oldest first; several servers may run it at once (SKIP LOCKED). */
  async function deliverDue(): Promise<number> {
    if (!deliver) return 0;
    const send = deliver;
    let sent = 0;
    for (;;) {
      const done = await db.transaction(async (tx) => {
        const [row] = await tx
          .select()
          .from(providerWebhooks)
          .where(and(isNull(providerWebhooks.deliveredAt), lte(providerWebhooks.nextAttemptAt, sql`now()`)))
          .orderBy(providerWebhooks.createdAt)
          .limit(1)
          .for('update', { skipLocked: true });
        if (!row) return false;
        let status = 0;
        try {
          status = await send(row.payload, signPayload(key, row.payload));
        } catch (error) {
          log(`Built-in payments: webhook ${row.id} not delivered: ${(error as Error).message}`);
        }
        const attempts = row.attempts + 1;
        await tx
          .update(providerWebhooks)
          .set(
            status >= 200 && status < 300
              ? { deliveredAt: sql`now()`, attempts }
              : {
                  attempts,
                  nextAttemptAt: sql`now() + make_interval(secs => ${Math.min(2 ** attempts, MAX_BACKOFF_SECONDS)})`,
                },
          )
          .where(eq(providerWebhooks.id, row.id));
        if (status >= 200 && status < 300) sent++;
        return true;
      });
      if (!done) return sent;
    }
  }

  /** Delivers after the caller's transaction has committed; one round at a time. */
  function kick(): Promise<number> {
    const round = (delivering ?? Promise.resolve(0)).then(() => deliverDue());
    delivering = round.catch(() => 0);
    return round;
  }

  const checkoutUrl = (id: string) => new URL(`checkout/${encodeURIComponent(id)}`, baseUrl).toString();

  async function findPayment(tx: Executor, id: string, lock = false) {
    const query = tx.select().from(providerPayments).where(eq(providerPayments.id, id));
    const [row] = lock ? await query.for('update') : await query;
    return row;
  }

  return {
    setDeliver(fn: BuiltinPaymentsOptions['deliver']) {
      deliver = fn;
    },
    deliverDue: kick,
    checkoutUrl,

    /** A hosted checkout; the same idempotency key gives the same session. */
    async createCheckout(input: {
      idempotencyKey: string;
      amount: number;
      currency: string;
      description: string;
      customerId: string | null;
      customerEmail: string | null;
      successUrl: string;
      cancelUrl: string;
      metadata: Record<string, string>;
    }): Promise<{ id: string; url: string; customerId: string }> {
      await db
        .insert(providerPayments)
        .values({
          id: newId('cs'),
          kind: 'checkout',
          idempotencyKey: input.idempotencyKey,
          amount: input.amount,
          currency: input.currency,
          description: input.description,
          customerId: input.customerId ?? newId('cus'),
          customerEmail: input.customerEmail,
          successUrl: input.successUrl,
          cancelUrl: input.cancelUrl,
          metadata: input.metadata,
          status: 'open',
          expiresAt: new Date(Date.now() + SESSION_TTL_MS),
        })
        .onConflictDoNothing({ target: providerPayments.idempotencyKey });
      const [row] = await db
        .select()
        .from(providerPayments)
        .where(eq(providerPayments.idempotencyKey, input.idempotencyKey));
      return { id: row!.id, url: checkoutUrl(row!.id), customerId: row!.customerId };
    },

    /** Charges a saved card now; the outcome goes out as a webhook. Idempotent by key. */
    async charge(input: {
      idempotencyKey: string;
      amount: number;
      currency: string;
      description: string;
      customerId: string;
      paymentMethodId: string;
      metadata: Record<string, string>;
    }): Promise<{ id: string }> {
      const id = await db.transaction(async (tx) => {
        const [existing] = await tx
          .select({ id: providerPayments.id })
          .from(providerPayments)
          .where(eq(providerPayments.idempotencyKey, input.idempotencyKey));
        if (existing) return existing.id;
        const [method] = await tx
          .select()
          .from(providerPaymentMethods)
          .where(
            and(
              eq(providerPaymentMethods.id, input.paymentMethodId),
              eq(providerPaymentMethods.customerId, input.customerId),
            ),
          );
        if (!method) throw new Error('No such payment method for this customer.');
        const failure =
          method.behaviour === 'decline'
            ? 'Your card was declined.'
            : method.behaviour === 'authenticate'
              ? 'This payment needs the cardholder to confirm it, which is not possible while they are away.'
              : null;
        const [payment] = await tx
          .insert(providerPayments)
          .values({
            id: newId('pi'),
            kind: 'charge',
            idempotencyKey: input.idempotencyKey,
            amount: input.amount,
            currency: input.currency,
            description: input.description,
            customerId: input.customerId,
            metadata: input.metadata,
            status: failure ? 'failed' : 'succeeded',
            paymentMethodId: method.id,
            failureMessage: failure,
            expiresAt: new Date(),
          })
          .returning();
        await emit(tx, failure ? 'payment.failed' : 'payment.succeeded', payment!, method);
        return payment!.id;
      });
      void kick();
      return { id };
    },

    /** The checkout page's session (null when unknown). */
    async session(id: string) {
      const payment = await findPayment(db, id);
      return payment?.kind === 'checkout' ? payment : null;
    },

    async method(id: string) {
      const [row] = await db.select().from(providerPaymentMethods).where(eq(providerPaymentMethods.id, id));
      return row ?? null;
    },

    /** The card form sent: validated, then the test card's behaviour decides. */
    async pay(id: string, form: CardForm): Promise<PayResult> {
      const result = await db.transaction(async (tx): Promise<PayResult> => {
        const payment = await findPayment(tx, id, true);
        if (!payment || payment.kind !== 'checkout') return { kind: 'gone', message: 'No such checkout.' };
        if (payment.status === 'succeeded') return { kind: 'redirect', url: payment.successUrl! };
        if (payment.status === 'requires_action') return { kind: 'authenticate' };
        if (payment.status !== 'open' && payment.status !== 'failed') {
          return { kind: 'gone', message: 'This checkout has expired. Start again from the workspace.' };
        }
        if (payment.expiresAt.getTime() <= Date.now()) {
          return { kind: 'gone', message: 'This checkout has expired. Start again from the workspace.' };
        }
        const check = checkCardForm(form);
        if (!check.ok) return { kind: 'form-error', message: check.message };
        const [method] = await tx
          .insert(providerPaymentMethods)
          .values({
            id: newId('pm'),
            customerId: payment.customerId,
            brand: check.card.brand,
            last4: check.last4,
            expMonth: check.expMonth,
            expYear: check.expYear,
            behaviour: check.card.behaviour,
          })
          .returning();
        const status =
          check.card.behaviour === 'succeed'
            ? 'succeeded'
            : check.card.behaviour === 'decline'
              ? 'failed'
              : 'requires_action';
        const [updated] = await tx
          .update(providerPayments)
          .set({
            status,
            paymentMethodId: method!.id,
            failureMessage: check.card.declineMessage ?? null,
          })
          .where(eq(providerPayments.id, id))
          .returning();
        const type =
          status === 'succeeded'
            ? 'payment.succeeded'
            : status === 'failed'
              ? 'payment.failed'
              : 'payment.requires_action';
        await emit(tx, type, updated!, method!);
        if (status === 'succeeded') return { kind: 'redirect', url: payment.successUrl! };
        if (status === 'failed') return { kind: 'form-error', message: check.card.declineMessage! };
        return { kind: 'authenticate' };
      });
      void kick();
      return result;
    },

    /** The confirmation step's answer: the cardholder confirms, or fails to. */
    async authenticate(id: string, outcome: 'complete' | 'fail'): Promise<PayResult> {
      const result = await db.transaction(async (tx): Promise<PayResult> => {
        const payment = await findPayment(tx, id, true);
        if (!payment || payment.kind !== 'checkout') return { kind: 'gone', message: 'No such checkout.' };
        if (payment.status === 'succeeded') return { kind: 'redirect', url: payment.successUrl! };
        if (payment.status !== 'requires_action' || payment.expiresAt.getTime() <= Date.now()) {
          return { kind: 'gone', message: 'This confirmation is no longer waiting. Start again.' };
        }
        const [method] = payment.paymentMethodId
          ? await tx
              .select()
              .from(providerPaymentMethods)
              .where(eq(providerPaymentMethods.id, payment.paymentMethodId))
          : [];
        const message =
          outcome === 'fail' ? 'We are unable to authenticate your payment method. Try another card.' : null;
        const [updated] = await tx
          .update(providerPayments)
          .set({
            status: outcome === 'complete' ? 'succeeded' : 'failed',
            failureMessage: message,
          })
          .where(eq(providerPayments.id, id))
          .returning();
        // Confirmed once, the card can be charged again off-session (renewals).
        if (outcome === 'complete' && method) {
          await tx
            .update(providerPaymentMethods)
            .set({ behaviour: 'succeed' })
            .where(eq(providerPaymentMethods.id, method.id));
        }
        await emit(
          tx,
          outcome === 'complete' ? 'payment.succeeded' : 'payment.failed',
          updated!,
          method ?? null,
        );
        return outcome === 'complete'
          ? { kind: 'redirect', url: payment.successUrl! }
          : { kind: 'form-error', message: message! };
      });
      void kick();
      return result;
    },

    /** Sessions past their time expire (an abandoned confirmation included), each with its webhook. */
    async expireDue(): Promise<number> {
      const expired = await db.transaction(async (tx) => {
        const rows = await tx
          .update(providerPayments)
          .set({ status: 'expired' })
          .where(
            and(
              eq(providerPayments.kind, 'checkout'),
              inArray(providerPayments.status, ['open', 'requires_action', 'failed']),
              lte(providerPayments.expiresAt, sql`now()`),
            ),
          )
          .returning();
        for (const row of rows) await emit(tx, 'payment.expired', row, null);
        return rows.length;
      });
      if (expired > 0) void kick();
      return expired;
    },
  };
}

export type BuiltinPayments = ReturnType<typeof createBuiltinPayments>;
