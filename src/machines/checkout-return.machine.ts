// The card checkout's return (/checkout/return?payment_id): the provider sends the browser back, but only the
// verified webhook changes the plan (server/billing), so the page asks the server what became of the payment until
// it is paid, failed or expired, and says so. Reaching this page never changes anything by itself.
import { assign, fromPromise, setup } from 'xstate';
import type { PaymentResponse } from '@contract/billing';

export interface CheckoutReturnInput {
  paymentId: string | null;
  isLoggedIn: boolean;
}

interface CheckoutReturnContext extends CheckoutReturnInput {
  payment: PaymentResponse | null;
  /** Status checks made while the payment was still pending. */
  checks: number;
}

/** Between two checks of a pending payment. */
export const CHECK_EVERY_MS = 1500;
/** After this many checks the page stops asking on its own and offers to check again. */
export const MAX_CHECKS = 40;

const PENDING = new Set(['open', 'processing', 'requires_action']);

export const checkoutReturnMachine = setup({
  types: {
    input: {} as CheckoutReturnInput,
    context: {} as CheckoutReturnContext,
    events: {} as { type: 'CHECK_AGAIN' },
  },
  actors: {
    fetchPayment: fromPromise<PaymentResponse, { paymentId: string }>(async () => {
      throw new Error('fetchPayment is not provided');
    }),
  },
  delays: { checkEvery: CHECK_EVERY_MS },
  guards: {
    isPaymentMissing: ({ context }) => !context.paymentId,
    isSignedOut: ({ context }) => !context.isLoggedIn,
    isPaid: ({ context }) => context.payment?.status === 'paid',
    isFailed: ({ context }) => context.payment?.status === 'failed',
    isExpired: ({ context }) => context.payment?.status === 'expired',
    isPending: ({ context }) => PENDING.has(context.payment?.status ?? ''),
    checkedEnough: ({ context }) => context.checks >= MAX_CHECKS,
  },
  actions: {
    keepPayment: assign({
      payment: ({ event }) => (event as unknown as { output: PaymentResponse }).output,
      checks: ({ context }) => context.checks + 1,
    }),
    resetChecks: assign({ checks: 0 }),
  },
}).createMachine({
  id: 'checkoutReturn',
  description: 'Back from the card checkout: what became of the payment.',
  context: ({ input }) => ({ ...input, payment: null, checks: 0 }),
  initial: 'start',
  states: {
    start: {
      always: [
        { guard: 'isPaymentMissing', target: 'unknownPayment' },
        { guard: 'isSignedOut', target: 'signedOut' },
        { target: 'checking' },
      ],
    },
    checking: {
      description: 'GET /api/checkout/payments/{payment_id}.',
      invoke: {
        id: 'fetchPayment',
        src: 'fetchPayment',
        input: ({ context }) => ({ paymentId: context.paymentId ?? '' }),
        onDone: { target: 'decide', actions: 'keepPayment' },
        onError: { target: 'failedToCheck' },
      },
    },
    decide: {
      always: [
        { guard: 'isPaid', target: 'paid' },
        { guard: 'isFailed', target: 'failed' },
        { guard: 'isExpired', target: 'expired' },
        { guard: 'checkedEnough', target: 'stillPending' },
        { target: 'pending' },
      ],
    },
    pending: {
      description: 'Waiting for the provider to confirm (its webhook); checked again shortly.',
      after: { checkEvery: { target: 'checking' } },
    },
    stillPending: {
      description:
        'Not confirmed yet after many checks: the plan changes when it is; the person may check again.',
      on: { CHECK_AGAIN: { target: 'checking', actions: 'resetChecks' } },
    },
    failedToCheck: {
      description: 'The server could not be asked; the person may try again.',
      on: { CHECK_AGAIN: { target: 'checking' } },
    },
    paid: { type: 'final', description: 'Paid: the plan is active; lead back to the workspace.' },
    failed: {
      type: 'final',
      description: "Failed: the provider's message, nothing changed; lead back to the checkout.",
    },
    expired: {
      type: 'final',
      description: 'The checkout expired before it was paid: nothing changed; lead back to the checkout.',
    },
    unknownPayment: { type: 'final', description: 'No payment id: nothing to show but the way back.' },
    signedOut: { type: 'final', description: 'Signed out: sign in to see the payment.' },
  },
});
