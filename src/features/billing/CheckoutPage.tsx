// /workspace/{id}/checkout: an owner picks a plan and an interval and goes to the card payment provider's hosted
// checkout (the built-in one under VITE_PAYMENT_SERVER_URL, or Stripe). The card is entered there, never here; the
// provider returns to /checkout/return. Open to an expired workspace (the guard skips this page), so renewal works.
import { useState } from 'react';
import { Link, useParams, useSearch } from '@tanstack/react-router';
import { useMutation, useQuery } from '@tanstack/react-query';
import { planQuery, startCheckout } from '@/api/billing';
import { apiProblem } from '@/api/errors';
import { FormError } from '@/components/Field';
import { PageFrame } from '@/components/PageFrame';
import { Pending } from '@/components/Pending';
import { useApp } from '@/components/use-app';
import type { BillingInterval, PlanResponse } from '@contract/billing';
import {
  checkoutReplaces,
  formatMoney,
  INTERVAL_LABELS,
  limitText,
  PER_INTERVAL,
  STATUS_LABELS,
} from '@/lib/billing-format';
import { formatDate } from '@/lib/date-time';
import './billing.css';

/** Hosted checkouts the browser may be sent to: the configured payment server's origin, and Stripe's. */
function isCheckoutUrl(url: string, paymentServerUrl: string): boolean {
  const parsed = URL.parse(url);
  if (!parsed) return false;
  const allowed = [new URL(paymentServerUrl).origin, 'https://checkout.stripe.com'];
  return allowed.includes(parsed.origin);
}

export function CheckoutPage() {
  const { workspaceId } = useParams({ from: '/_authed/workspace/$workspaceId' });
  const { api } = useApp();
  const plan = useQuery(planQuery(api, workspaceId));
  if (plan.isPending) return <Pending label="Loading the plans…" />;
  if (plan.isError) {
    return (
      <PageFrame title="Checkout">
        <FormError message={apiProblem(plan.error).message} />
        <button type="button" className="button" onClick={() => void plan.refetch()}>
          Try again
        </button>
      </PageFrame>
    );
  }
  return <Checkout plan={plan.data} />;
}

function Checkout({ plan }: { plan: PlanResponse }) {
  const { api, config } = useApp();
  const search = useSearch({ from: '/_authed/workspace/$workspaceId/checkout' });
  const [planId, setPlanId] = useState(
    plan.plans.find((p) => p.id === search.plan)?.id ?? plan.plans[1]?.id ?? plan.plans[0]?.id ?? '',
  );
  const [interval, setInterval] = useState<BillingInterval>(search.interval ?? plan.interval ?? 'month');
  const chosen = plan.plans.find((p) => p.id === planId);
  const go = useMutation({
    mutationFn: () => startCheckout(api, plan.workspace_id, { plan_id: planId, interval }),
    onSuccess: ({ checkout_url }) => {
      if (!isCheckoutUrl(checkout_url, config.VITE_PAYMENT_SERVER_URL)) {
        throw new Error('The checkout address is not one this app knows.');
      }
      window.location.assign(checkout_url);
    },
  });
  const back = (
    <Link
      to="/workspace/$workspaceId/settings/plan"
      params={{ workspaceId: plan.workspace_id }}
      className="button"
    >
      Back to the plan
    </Link>
  );
  if (!plan.can_manage) {
    return (
      <PageFrame title="Checkout" description="Buying a plan is for the workspace's owners.">
        <p className="notice">Ask an owner of this workspace to buy or renew its plan.</p>
        <Link to="/login" search={{}} className="button">
          Go to your workspaces
        </Link>
      </PageFrame>
    );
  }
  if ((plan.status === 'active' || plan.status === 'canceled') && plan.plan.prices) {
    return (
      <PageFrame title="Checkout" description="This workspace already has a paid plan.">
        <p>
          {plan.plan.name} is {STATUS_LABELS[plan.status].toLowerCase()}
          {plan.period_end ? ` until ${formatDate(plan.period_end, plan.time_zone)}` : ''}. Change or resume
          it on the plan page.
        </p>
        {back}
      </PageFrame>
    );
  }
  const price = chosen?.prices ? formatMoney(chosen.prices[interval], plan.currency) : '';
  const replaces = chosen ? checkoutReplaces(plan, chosen) : null;
  return (
    <PageFrame
      title={plan.status === 'expired' ? 'Renew your plan' : 'Choose a plan'}
      description="Pay with a card on the payment provider's page; you come back here when it is done."
    >
      {search.canceled ? (
        <p className="notice" role="status">
          The checkout was left before paying: nothing was charged.
        </p>
      ) : null}
      {plan.status === 'expired' ? (
        <p className="notice warning">
          The plan of this workspace has expired. Its data is kept; buying a plan opens it again at once.
        </p>
      ) : null}
      <form
        className="checkout-form"
        onSubmit={(event) => {
          event.preventDefault();
          go.mutate();
        }}
      >
        <fieldset className="checkout-plans">
          <legend>Plan</legend>
          {plan.plans.map((candidate) => (
            <label
              key={candidate.id}
              className={`checkout-plan${candidate.id === planId ? ' selected' : ''}`}
            >
              <input
                type="radio"
                name="plan"
                value={candidate.id}
                checked={candidate.id === planId}
                onChange={() => setPlanId(candidate.id)}
              />
              <span className="checkout-plan-name">{candidate.name}</span>
              <span className="checkout-plan-price">
                {candidate.prices ? formatMoney(candidate.prices[interval], plan.currency) : ''}{' '}
                <span className="muted small">{PER_INTERVAL[interval]}</span>
              </span>
              <span className="muted small">
                {limitText('saved_queries', candidate.limits.saved_queries)} ·{' '}
                {limitText('members', candidate.limits.members)} ·{' '}
                {limitText('history_days', candidate.limits.history_days)}
              </span>
            </label>
          ))}
        </fieldset>
        <fieldset className="interval-toggle">
          <legend>Billing</legend>
          {(['month', 'year'] as const).map((value) => (
            <label key={value} className={interval === value ? 'selected' : undefined}>
              <input
                type="radio"
                name="checkout-interval"
                value={value}
                checked={interval === value}
                onChange={() => setInterval(value)}
              />
              {INTERVAL_LABELS[value]}
            </label>
          ))}
        </fieldset>
        {replaces ? (
          <p className="notice warning" role="status">
            {replaces}
          </p>
        ) : null}
        <p className="checkout-total">
          Due today: <strong>{price}</strong>, then {price} {PER_INTERVAL[interval]} until canceled.
        </p>
        <FormError message={go.error ? apiProblem(go.error).message : null} />
        <div className="form-actions">
          <button type="submit" className="button primary" disabled={!chosen || go.isPending}>
            {go.isPending ? 'Opening the checkout…' : `Continue to payment`}
          </button>
          {back}
        </div>
        <p className="muted small">
          The card is entered on the payment provider&apos;s page: Murmur never sees it.
        </p>
      </form>
    </PageFrame>
  );
}
