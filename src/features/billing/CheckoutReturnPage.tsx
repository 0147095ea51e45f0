// Where the card checkout returns to (spec §2, loaded lazily): what became of the payment — paid, still pending,
// failed — as the server knows it from the provider's verified webhook (src/machines/checkout-return.machine.ts), and
// the way back to the workspace or to the checkout.
import { useEffect, useMemo } from 'react';
import { Link, useSearch } from '@tanstack/react-router';
import { useMachine } from '@xstate/react';
import { fromPromise } from 'xstate';
import { getPayment } from '@/api/billing';
import { FormError } from '@/components/Field';
import { PageFrame } from '@/components/PageFrame';
import { Pending } from '@/components/Pending';
import { useApp } from '@/components/use-app';
import { checkoutReturnMachine } from '@/machines/checkout-return.machine';
import { formatMoney } from '@/lib/billing-format';
import './billing.css';

export function CheckoutReturnPage() {
  const { payment_id: paymentId } = useSearch({ from: '/checkout/return' });
  const { api, session, queryClient, inspect } = useApp();
  const machine = useMemo(
    () =>
      checkoutReturnMachine.provide({
        actors: { fetchPayment: fromPromise(({ input }) => getPayment(api, input.paymentId)) },
      }),
    [api],
  );
  const [state, send] = useMachine(machine, {
    input: { paymentId: paymentId ?? null, isLoggedIn: session.isLoggedIn() },
    inspect,
  });
  const payment = state.context.payment;
  const paid = state.matches('paid');
  useEffect(() => {
    // The workspace's plan changed: what the guard and the pages read is fetched again.
    if (paid && payment) {
      void queryClient.invalidateQueries({ queryKey: ['workspaces', payment.workspace_id] });
      void queryClient.invalidateQueries({ queryKey: ['users', 'me'] });
    }
  }, [paid, payment, queryClient]);

  const amount = payment ? formatMoney(payment.amount, payment.currency) : '';
  let body;
  if (state.matches('paid') && payment) {
    body = (
      <PageFrame title="Payment received" description={`${amount} paid. Your plan is active.`}>
        <div className="form-actions">
          <Link
            to="/workspace/$workspaceId"
            params={{ workspaceId: payment.workspace_id }}
            className="button primary"
          >
            Continue to your workspace
          </Link>
          <Link
            to="/workspace/$workspaceId/settings/billing"
            params={{ workspaceId: payment.workspace_id }}
            className="button"
          >
            See the invoice
          </Link>
        </div>
      </PageFrame>
    );
  } else if ((state.matches('failed') || state.matches('expired')) && payment) {
    body = (
      <PageFrame
        title={state.matches('expired') ? 'The checkout expired' : 'The payment did not go through'}
        description="Nothing was charged and the plan has not changed."
      >
        {payment.failure_message ? (
          <p className="notice warning" role="alert">
            The card provider said: {payment.failure_message}
          </p>
        ) : null}
        <div className="form-actions">
          <Link
            to="/workspace/$workspaceId/checkout"
            params={{ workspaceId: payment.workspace_id }}
            search={{ plan: payment.plan_id, interval: payment.interval }}
            className="button primary"
          >
            Try again
          </Link>
          <Link to="/login" search={{}} className="button">
            Go to your workspaces
          </Link>
        </div>
      </PageFrame>
    );
  } else if ((state.matches('pending') || state.matches('stillPending')) && payment) {
    body = (
      <PageFrame
        title="Payment pending"
        description={
          payment.status === 'requires_action'
            ? 'The card asks for a confirmation step that was not finished. The plan changes only once the payment is confirmed.'
            : `Waiting for the card provider to confirm the payment of ${amount}. The plan changes as soon as it does.`
        }
      >
        <p role="status" className="muted">
          {state.matches('pending') ? 'Checking…' : 'Not confirmed yet.'}
        </p>
        <div className="form-actions">
          {state.matches('stillPending') ? (
            <button type="button" className="button primary" onClick={() => send({ type: 'CHECK_AGAIN' })}>
              Check again
            </button>
          ) : null}
          <Link
            to="/workspace/$workspaceId/checkout"
            params={{ workspaceId: payment.workspace_id }}
            search={{ plan: payment.plan_id, interval: payment.interval }}
            className="button"
          >
            Back to the checkout
          </Link>
        </div>
      </PageFrame>
    );
  } else if (state.matches('failedToCheck')) {
    body = (
      <PageFrame title="Checkout" description="The payment's state could not be loaded.">
        <FormError message="The server could not be reached, or this payment is not one of your workspaces'." />
        <div className="form-actions">
          <button type="button" className="button primary" onClick={() => send({ type: 'CHECK_AGAIN' })}>
            Try again
          </button>
          <Link to="/login" search={{}} className="button">
            Go to your workspaces
          </Link>
        </div>
      </PageFrame>
    );
  } else if (state.matches('signedOut')) {
    body = (
      <PageFrame title="Checkout" description="Sign in to see what became of your payment.">
        <Link to="/login" search={{}} className="button primary">
          Sign in
        </Link>
      </PageFrame>
    );
  } else if (state.matches('unknownPayment')) {
    body = (
      <PageFrame title="Checkout" description="You are back from the card checkout.">
        <Link to="/login" search={{}} className="button primary">
          Continue to your workspace
        </Link>
      </PageFrame>
    );
  } else {
    body = <Pending label="Checking the payment…" />;
  }
  return <main className="centered-screen checkout-return">{body}</main>;
}
