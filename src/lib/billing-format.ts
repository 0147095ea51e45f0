// How plans, money and usage read on the plan, billing and checkout pages (dates: src/lib/date-time.ts, in the
// workspace's time zone); money arrives in minor units.
import type { BillingInterval, Plan, PlanResponse, SubscriptionStatus, UsageItem } from '@contract/billing';
import { formatDate } from './date-time';

export const formatMoney = (amount: number, currency: string) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).format(
    amount / 100,
  );

export const daysUntil = (seconds: number, now = Date.now()) =>
  Math.max(0, Math.ceil((seconds * 1000 - now) / 86_400_000));

export const STATUS_LABELS: Record<SubscriptionStatus, string> = {
  trialing: 'Trial',
  active: 'Active',
  past_due: 'Past due',
  canceled: 'Canceled',
  expired: 'Expired',
};

export const INTERVAL_LABELS: Record<BillingInterval, string> = { month: 'Monthly', year: 'Yearly' };
export const PER_INTERVAL: Record<BillingInterval, string> = { month: 'a month', year: 'a year' };

export const LIMIT_LABELS: Record<UsageItem['key'], string> = {
  saved_queries: 'Saved queries',
  members: 'Members',
  dashboard_requests_per_month: 'Dashboard requests this month',
  exports_per_month: 'Exports this month',
  history_days: 'History',
  tracked_queries: 'Tracked queries',
  posts_collected_per_month: 'Posts collected this month',
};

/** The share of a limit from which the pages warn (as the saved queries page does). */
const WARN_FROM = 0.8;

export type UsageLevel = 'ok' | 'warning' | 'full';

export function usageLevel({ used, limit }: Pick<UsageItem, 'used' | 'limit'>): UsageLevel {
  if (limit === null) return 'ok';
  if (used >= limit) return 'full';
  return used >= Math.ceil(limit * WARN_FROM) ? 'warning' : 'ok';
}

export function usageText(item: UsageItem): string {
  if (item.key === 'history_days') {
    return item.limit === null ? 'Unlimited' : `The last ${item.limit.toLocaleString('en-US')} days`;
  }
  const used = item.used.toLocaleString('en-US');
  return item.limit === null ? `${used} (no limit)` : `${used} of ${item.limit.toLocaleString('en-US')}`;
}

export function limitText(key: UsageItem['key'], limit: number | null): string {
  if (limit === null) return 'Unlimited';
  const n = limit.toLocaleString('en-US');
  switch (key) {
    case 'saved_queries':
      return `${n} saved ${limit === 1 ? 'query' : 'queries'}`;
    case 'members':
      return `${n} ${limit === 1 ? 'member' : 'members'}`;
    case 'history_days':
      return `${n} days of history`;
    case 'dashboard_requests_per_month':
      return `${n} dashboard requests a month`;
    case 'exports_per_month':
      return `${n} exports a month`;
    case 'tracked_queries':
      return `${n} tracked ${limit === 1 ? 'query' : 'queries'}`;
    case 'posts_collected_per_month':
      return `${n} posts collected a month`;
  }
}

const perDay = (plan: Plan, interval: BillingInterval) =>
  plan.prices ? plan.prices[interval] / (interval === 'year' ? 365 : 30) : 0;

export type ChangeKind = 'current' | 'buy' | 'upgrade' | 'downgrade';

/** What choosing a plan does from where the workspace stands (the server decides the same way). */
export function changeKind(plan: PlanResponse, target: Plan, interval: BillingInterval): ChangeKind {
  const running = plan.status === 'active' && plan.interval !== null && plan.plan.prices !== null;
  if (!running) return 'buy';
  if (plan.plan.id === target.id && plan.interval === interval) return 'current';
  return perDay(target, interval) > perDay(plan.plan, plan.interval!) ? 'upgrade' : 'downgrade';
}

const limitsText = (plan: Plan) =>
  (['saved_queries', 'members', 'history_days'] as const)
    .map((key) => limitText(key, plan.limits[key]))
    .join(', ');

/**
 * What paying for `chosen` replaces, said before anyone pays: a paid checkout ends the current plan at once (the
 * server's fulfilment starts the new period on payment). Null when there is nothing running to replace.
 */
export function checkoutReplaces(plan: PlanResponse, chosen: Plan): string | null {
  const replaced = `Paying replaces it at once with ${chosen.name}: ${limitsText(chosen)}.`;
  if (plan.status === 'trialing') {
    const ends = plan.period_end
      ? ` The trial would end on ${formatDate(plan.period_end, plan.time_zone)}.`
      : '';
    return `This workspace is on the trial of ${limitsText(plan.plan)}.${ends} ${replaced}`.trim();
  }
  if (plan.status === 'expired' || plan.plan.prices !== null) return null;
  const unlimited = Object.values(plan.plan.limits).every((limit) => limit === null);
  return (
    `This workspace is on ${plan.plan.name}${unlimited ? ', without limits' : ''}. ${replaced} ` +
    `${plan.plan.name} cannot be chosen again afterwards.`
  );
}
