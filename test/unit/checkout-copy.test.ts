// What the checkout says it will change before anyone pays: the plan the workspace is on, the plan that replaces it,
// and when.
import { describe, expect, it } from 'vitest';
import { loadCatalogue } from '@server/billing/plans';
import type { PlanResponse } from '@contract/billing';
import { checkoutReplaces } from '@/lib/billing-format';

const catalogue = loadCatalogue();
const team = catalogue.find('team');

function planOn(id: string, fields: Partial<PlanResponse> = {}): PlanResponse {
  return {
    workspace_id: 'w1',
    currency: 'usd',
    plan: catalogue.find(id),
    status: 'active',
    interval: null,
    period_start: null,
    period_end: null,
    access_ends_at: null,
    cancel_at_period_end: false,
    scheduled_change: null,
    usage_month: '2026-11-01',
    usage: [],
    plans: catalogue.paid,
    can_manage: true,
    pending_payment_id: null,
    time_zone: 'Europe/Berlin',
    ...fields,
  };
}

describe('the checkout says what paying replaces', () => {
  it('an unlimited plan: by the chosen plan and its limits, at once, for good', () => {
    const text = checkoutReplaces(planOn('demo'), team)!;
    expect(text).toContain('This workspace is on Demo, without limits.');
    expect(text).toContain(`Paying replaces it at once with ${team.name}:`);
    expect(text).toContain('saved queries');
    expect(text).toContain('Demo cannot be chosen again');
  });

  it('a trial: when it would have ended, and what replaces it', () => {
    const ends = Date.parse('2026-12-03T12:00:00Z') / 1000;
    const text = checkoutReplaces(planOn('trial', { status: 'trialing', period_end: ends }), team)!;
    expect(text).toContain('The trial would end on 3 Dec 2026.');
    expect(text).toContain(`Paying replaces it at once with ${team.name}:`);
  });

  it('nothing to replace after a plan expired', () => {
    expect(checkoutReplaces(planOn('team', { status: 'expired' }), team)).toBeNull();
  });
});
