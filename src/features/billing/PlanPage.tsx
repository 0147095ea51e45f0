// Settings › Plan: the plan and its status with its dates (in the workspace's zone), usage against every limit with a
// warning from 80 % and at the limit, and the plans side by side. Owners buy (checkout), upgrade (at once, prorated),
// downgrade (at the period's end; refused with the reasons when usage is over) and cancel or resume; everyone else
// sees the same, read-only.
import { useState } from 'react';
import { Link, useNavigate } from '@tanstack/react-router';
import { useMutation, useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import { changePlan, planQuery, settledPayment } from '@/api/billing';
import { apiProblem } from '@/api/errors';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { CancelPlanDialog, usePlanCancellation } from './plan-cancellation';
import { PageFrame } from '@/components/PageFrame';
import { useApp } from '@/components/use-app';
import { showToast } from '@/lib/toast';
import type { BillingInterval, Plan, PlanResponse, UsageItem } from '@contract/billing';
import {
  changeKind,
  daysUntil,
  formatMoney,
  INTERVAL_LABELS,
  LIMIT_LABELS,
  limitText,
  PER_INTERVAL,
  STATUS_LABELS,
  usageLevel,
  usageText,
} from '@/lib/billing-format';
import { useBillingWorkspace } from './use-billing-workspace';
import { formatDate } from '@/lib/date-time';
import './billing.css';

export function PlanPage() {
  const { workspaceId } = useBillingWorkspace();
  const { api } = useApp();
  const plan = useSuspenseQuery(planQuery(api, workspaceId)).data;
  return (
    <PageFrame title="Plan" description="Your plan, its limits and what you use of them.">
      <PlanSummary plan={plan} />
      <UsageList plan={plan} />
      <PlanChoices plan={plan} />
    </PageFrame>
  );
}

function StatusBadge({ status }: { status: PlanResponse['status'] }) {
  return <span className={`status-badge status-${status}`}>{STATUS_LABELS[status]}</span>;
}

/** The dates that matter for the status, in words. */
function statusLine(plan: PlanResponse): string {
  const day = (s: number) => formatDate(s, plan.time_zone);
  const price =
    plan.plan.prices && plan.interval ? formatMoney(plan.plan.prices[plan.interval], plan.currency) : null;
  switch (plan.status) {
    case 'trialing':
      return plan.period_end
        ? `Your trial ends on ${day(plan.period_end)} (${daysUntil(plan.period_end)} days left). Choose a plan to keep the workspace open.`
        : 'Your trial has no end date.';
    case 'active':
      if (!plan.period_end) return 'This plan does not expire.';
      return `Renews on ${day(plan.period_end)}${price ? ` for ${price}` : ''}.`;
    case 'canceled':
      return plan.period_end
        ? `Canceled: the plan stays until ${day(plan.period_end)} and then ends. Resume it to keep it.`
        : 'Canceled.';
    case 'past_due':
      return plan.access_ends_at
        ? `The renewal payment failed. It is tried again daily; without a payment the plan expires on ${day(plan.access_ends_at)}.`
        : 'The renewal payment failed.';
    case 'expired':
      return plan.access_ends_at
        ? `The plan expired on ${day(plan.access_ends_at)}.`
        : 'The plan has expired.';
  }
}

function PlanSummary({ plan }: { plan: PlanResponse }) {
  const cancellation = usePlanCancellation(plan);
  const { setConfirming, resume } = cancellation;
  const scheduled = plan.scheduled_change
    ? plan.plans.find((p) => p.id === plan.scheduled_change!.plan_id)
    : undefined;
  return (
    <section className="billing-card plan-summary" aria-labelledby="current-plan">
      <div className="plan-summary-head">
        <h2 id="current-plan">
          {plan.plan.name}
          {plan.interval ? <span className="muted"> · {INTERVAL_LABELS[plan.interval]}</span> : null}
        </h2>
        <StatusBadge status={plan.status} />
      </div>
      <p>{statusLine(plan)}</p>
      {plan.period_start && plan.period_end && plan.status !== 'expired' ? (
        <p className="muted small">
          Current period: {formatDate(plan.period_start, plan.time_zone)} to{' '}
          {formatDate(plan.period_end, plan.time_zone)} ({plan.time_zone})
        </p>
      ) : null}
      {scheduled && plan.scheduled_change ? (
        <p className="notice">
          Changes to {scheduled.name} ({INTERVAL_LABELS[plan.scheduled_change.interval].toLowerCase()}) on{' '}
          {formatDate(plan.scheduled_change.effective_at, plan.time_zone)}.
        </p>
      ) : null}
      {plan.pending_payment_id ? (
        <p className="notice">
          A payment is waiting for confirmation; the plan changes when it is confirmed.
        </p>
      ) : null}
      {plan.can_manage ? (
        <div className="form-actions">
          {plan.status === 'expired' || plan.status === 'past_due' || plan.status === 'trialing' ? (
            <Link
              to="/workspace/$workspaceId/checkout"
              params={{ workspaceId: plan.workspace_id }}
              search={{}}
              className="button primary"
            >
              {plan.status === 'trialing'
                ? 'Choose a plan'
                : plan.status === 'past_due'
                  ? 'Pay now'
                  : 'Renew plan'}
            </Link>
          ) : null}
          {plan.status === 'active' && plan.period_end && plan.plan.prices ? (
            <button type="button" className="button danger-text" onClick={() => setConfirming(true)}>
              Cancel at period end
            </button>
          ) : null}
          {plan.status === 'canceled' ? (
            <button
              type="button"
              className="button primary"
              disabled={resume.isPending}
              onClick={() => resume.mutate()}
            >
              {resume.isPending ? 'Resuming…' : 'Resume plan'}
            </button>
          ) : null}
        </div>
      ) : (
        <p className="muted small">Only owners can buy, change or cancel the plan.</p>
      )}
      {resume.error ? <p className="field-error">{apiProblem(resume.error).message}</p> : null}
      {plan.period_end ? (
        <CancelPlanDialog cancellation={cancellation}>
          <p>
            The plan stays until {formatDate(plan.period_end, plan.time_zone)}; then the workspace closes
            until a plan is bought again. You can resume it until then.
          </p>
        </CancelPlanDialog>
      ) : null}
    </section>
  );
}

function UsageMeter({ item }: { item: UsageItem }) {
  const level = item.key === 'history_days' ? 'ok' : usageLevel(item);
  const share = item.limit ? Math.min(100, Math.round((item.used / item.limit) * 100)) : 0;
  const id = `usage-${item.key}`;
  return (
    <li className={`usage-item usage-item-${level}`}>
      <div className="usage-item-head">
        <span id={id}>{LIMIT_LABELS[item.key]}</span>
        <span className={`usage usage-${level}`}>{usageText(item)}</span>
      </div>
      {item.limit !== null && item.key !== 'history_days' ? (
        <div
          className="usage-bar"
          role="meter"
          aria-labelledby={id}
          aria-valuemin={0}
          aria-valuemax={item.limit}
          aria-valuenow={Math.min(item.used, item.limit)}
          aria-valuetext={usageText(item)}
        >
          <span style={{ width: `${share}%` }} />
        </div>
      ) : null}
      {level === 'full' ? (
        <p className="usage-note usage-full">Limit reached: {limitRefusal(item.key)}</p>
      ) : level === 'warning' ? (
        <p className="usage-note usage-warning">Close to the limit ({share} %).</p>
      ) : null}
    </li>
  );
}

function limitRefusal(key: UsageItem['key']): string {
  switch (key) {
    case 'saved_queries':
      return 'no more saved queries can be added.';
    case 'members':
      return 'invite links and the join code admit nobody new.';
    case 'dashboard_requests_per_month':
      return 'dashboards do not load again until next month.';
    case 'exports_per_month':
      return 'exports are refused until next month.';
    case 'tracked_queries':
      return 'no more saved queries can be tracked.';
    case 'posts_collected_per_month':
      return 'collection for tracked queries pauses until next month; nothing collected is lost.';
    case 'history_days':
      return '';
  }
}

function UsageList({ plan }: { plan: PlanResponse }) {
  const [year, month] = plan.usage_month.split('-').map(Number);
  const monthName = new Intl.DateTimeFormat('en-GB', {
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  }).format(new Date(Date.UTC(year ?? 2000, (month ?? 1) - 1, 1)));
  return (
    <section className="billing-card" aria-labelledby="usage-heading">
      <h2 id="usage-heading">Usage</h2>
      <p className="muted small">
        Monthly volumes count {monthName} ({plan.time_zone}). Every limit shows here before it is reached.
      </p>
      <ul className="usage-list">
        {plan.usage.map((item) => (
          <UsageMeter key={item.key} item={item} />
        ))}
      </ul>
    </section>
  );
}

function PlanChoices({ plan }: { plan: PlanResponse }) {
  const [interval, setInterval] = useState<BillingInterval>(plan.interval ?? 'month');
  return (
    <section aria-labelledby="plans-heading" className="plan-choices">
      <div className="plan-choices-head">
        <h2 id="plans-heading">Plans</h2>
        <fieldset className="interval-toggle">
          <legend className="visually-hidden">Billing interval</legend>
          {(['month', 'year'] as const).map((value) => (
            <label key={value} className={interval === value ? 'selected' : undefined}>
              <input
                type="radio"
                name="interval"
                value={value}
                checked={interval === value}
                onChange={() => setInterval(value)}
              />
              {INTERVAL_LABELS[value]}
            </label>
          ))}
        </fieldset>
      </div>
      <ul className="plan-grid">
        {plan.plans.map((candidate) => (
          <PlanCard key={candidate.id} plan={plan} candidate={candidate} interval={interval} />
        ))}
      </ul>
    </section>
  );
}

function PlanCard({
  plan,
  candidate,
  interval,
}: {
  plan: PlanResponse;
  candidate: Plan;
  interval: BillingInterval;
}) {
  const { api } = useApp();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const kind = changeKind(plan, candidate, interval);
  const price = candidate.prices ? formatMoney(candidate.prices[interval], plan.currency) : '';
  const change = useMutation({
    mutationFn: () => changePlan(api, plan.workspace_id, { plan_id: candidate.id, interval }),
    onSuccess: (answer) => {
      setConfirming(false);
      queryClient.setQueryData(planQuery(api, plan.workspace_id).queryKey, answer.plan);
      void queryClient.invalidateQueries({ queryKey: ['workspaces', plan.workspace_id] });
      // An upgrade applies when the provider confirms its payment: the plan is read again then.
      if (answer.payment_id) {
        void settledPayment(api, answer.payment_id).then(() =>
          queryClient.invalidateQueries({ queryKey: ['workspaces', plan.workspace_id] }),
        );
      }
      showToast(
        'success',
        answer.kind === 'upgrade'
          ? `Upgrade to ${candidate.name}: ${formatMoney(answer.amount, plan.currency)} charged; it applies once the payment is confirmed.`
          : answer.kind === 'downgrade'
            ? `${candidate.name} starts at the end of the current period.`
            : 'The plan stays as it is.',
      );
    },
  });
  const current = kind === 'current';
  const headingId = `plan-${candidate.id}`;
  return (
    <li className={`plan-card${current ? ' current' : ''}`} aria-labelledby={headingId}>
      <h3 id={headingId}>{candidate.name}</h3>
      <p className="plan-price">
        {price} <span className="muted small">{PER_INTERVAL[interval]}</span>
      </p>
      {interval === 'year' && candidate.prices ? (
        <p className="muted small">
          {formatMoney(Math.round(candidate.prices.year / 12), plan.currency)} a month, billed yearly
        </p>
      ) : null}
      <p className="small">{candidate.description}</p>
      <ul className="plan-limits">
        {(
          [
            'saved_queries',
            'members',
            'history_days',
            'dashboard_requests_per_month',
            'exports_per_month',
            'tracked_queries',
            'posts_collected_per_month',
          ] as const
        ).map((key) => (
          <li key={key}>{limitText(key, candidate.limits[key])}</li>
        ))}
      </ul>
      {current ? (
        <p className="plan-current">Current plan</p>
      ) : plan.can_manage ? (
        kind === 'buy' ? (
          <button
            type="button"
            className="button primary"
            onClick={() =>
              void navigate({
                to: '/workspace/$workspaceId/checkout',
                params: { workspaceId: plan.workspace_id },
                search: { plan: candidate.id, interval },
              })
            }
          >
            Choose {candidate.name}
          </button>
        ) : plan.status === 'canceled' ? null : (
          <button
            type="button"
            className={kind === 'upgrade' ? 'button primary' : 'button'}
            onClick={() => setConfirming(true)}
          >
            {kind === 'upgrade' ? `Upgrade to ${candidate.name}` : `Downgrade to ${candidate.name}`}
          </button>
        )
      ) : null}
      {confirming ? (
        <ConfirmDialog
          title={kind === 'upgrade' ? `Upgrade to ${candidate.name}?` : `Downgrade to ${candidate.name}?`}
          confirmLabel={kind === 'upgrade' ? 'Upgrade now' : 'Downgrade at period end'}
          pendingLabel="Changing…"
          pending={change.isPending}
          error={change.error ? apiProblem(change.error).message : null}
          onConfirm={() => change.mutate()}
          onCancel={() => {
            change.reset();
            setConfirming(false);
          }}
        >
          <p>
            {kind === 'upgrade'
              ? `The saved card is charged now for the difference over the rest of the period (prorated); ${candidate.name} applies as soon as the payment is confirmed. Then ${price} ${PER_INTERVAL[interval]}.`
              : `${candidate.name} starts when the current period ends${plan.period_end ? ` on ${formatDate(plan.period_end, plan.time_zone)}` : ''}, at ${price} ${PER_INTERVAL[interval]}. Until then nothing changes.`}
          </p>
        </ConfirmDialog>
      ) : null}
    </li>
  );
}
