// The pure parts of plans and billing: the catalogue's validation, the test cards' checks, webhook signatures, the
// usage levels and plan changes the pages show, and the checkout return's statechart.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createActor, fromPromise, waitFor } from 'xstate';
import { loadCatalogue } from '@server/billing/plans';
import { checkCardForm } from '@server/payments/cards';
import { signPayload, verifySignature } from '@server/payments/signature';
import { changeKind, usageLevel } from '@/lib/billing-format';
import { checkoutReturnMachine } from '@/machines/checkout-return.machine';
import type { PaymentResponse, PlanResponse } from '@contract/billing';

function catalogueFile(content: unknown): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'murmur-plans-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'plans.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('the plan catalogue', () => {
  it('loads the bundled plans, cheapest first, with the trial and the unlimited demo plan', () => {
    const catalogue = loadCatalogue();
    expect(catalogue.paid.map((p) => p.id)).toEqual(['starter', 'team', 'business']);
    expect(catalogue.find('trial').prices).toBeNull();
    expect(catalogue.find('demo').limits.members).toBeNull();
    // A plan id no longer in the file keeps the trial's limits rather than none.
    expect(catalogue.find('gone').limits).toEqual(catalogue.trial.limits);
  });

  it('refuses a bad file, naming what is wrong', () => {
    expect(() => loadCatalogue(catalogueFile('{'))).toThrow(/Invalid plan catalogue/);
    const bundled = loadCatalogue();
    const bad = {
      currency: 'usd',
      trial: { name: 'Trial', description: '', limits: bundled.trial.limits },
      plans: [
        {
          id: 'trial',
          name: 'X',
          description: '',
          prices: { month: 0, year: 1 },
          limits: bundled.trial.limits,
        },
      ],
    };
    expect(() => loadCatalogue(catalogueFile(bad))).toThrow(/plans\.0\.prices\.month|reserved plan ids/);
  });
});

describe('the test cards', () => {
  const form = { number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123', name: 'Ana' };
  it('accepts the test cards and says how each behaves', () => {
    expect(checkCardForm(form)).toMatchObject({ ok: true, last4: '4242', expMonth: 12, expYear: 2034 });
    expect(checkCardForm({ ...form, number: '4000000000000002' })).toMatchObject({
      ok: true,
      card: { behaviour: 'decline' },
    });
    expect(checkCardForm({ ...form, number: '4000 0025 0000 3155' })).toMatchObject({
      ok: true,
      card: { behaviour: 'authenticate' },
    });
  });
  it('refuses what a card provider refuses', () => {
    expect(checkCardForm({ ...form, number: '4242 4242 4242 4241' })).toMatchObject({
      ok: false,
      field: 'number',
    });
    expect(checkCardForm({ ...form, number: '4111 1111 1111 1111' })).toMatchObject({
      ok: false,
      message: expect.stringContaining('test cards'),
    });
    expect(checkCardForm({ ...form, expiry: '13/30' })).toMatchObject({ ok: false, field: 'expiry' });
    expect(checkCardForm({ ...form, expiry: '01/20' })).toMatchObject({ ok: false, field: 'expiry' });
    expect(checkCardForm({ ...form, cvc: '1' })).toMatchObject({ ok: false, field: 'cvc' });
    expect(checkCardForm({ ...form, name: ' ' })).toMatchObject({ ok: false, field: 'name' });
  });
});

describe('webhook signatures', () => {
  const key = new Uint8Array(32).fill(7);
  it('verify their payload and time only', () => {
    const header = signPayload(key, '{"a":1}', 1000);
    expect(verifySignature(key, '{"a":1}', header, 1000)).toBe(true);
    expect(verifySignature(key, '{"a":2}', header, 1000)).toBe(false);
    expect(verifySignature(new Uint8Array(32), '{"a":1}', header, 1000)).toBe(false);
    expect(verifySignature(key, '{"a":1}', header, 1000 + 301)).toBe(false);
    expect(verifySignature(key, '{"a":1}', undefined, 1000)).toBe(false);
    expect(verifySignature(key, '{"a":1}', 't=1000,v1=zz', 1000)).toBe(false);
  });
});

describe('usage and plan changes as the pages show them', () => {
  it('warns from 80 % and at the limit', () => {
    expect(usageLevel({ used: 7, limit: 10 })).toBe('ok');
    expect(usageLevel({ used: 8, limit: 10 })).toBe('warning');
    expect(usageLevel({ used: 10, limit: 10 })).toBe('full');
    expect(usageLevel({ used: 10_000, limit: null })).toBe('ok');
  });

  it('tells an upgrade from a downgrade by the daily price, and buying from changing', () => {
    const plans = loadCatalogue().paid;
    const [starter, team] = plans;
    const plan = (status: PlanResponse['status']) =>
      ({ status, interval: 'month', plan: team }) as unknown as PlanResponse;
    expect(changeKind(plan('active'), starter!, 'month')).toBe('downgrade');
    expect(changeKind(plan('active'), plans[2]!, 'month')).toBe('upgrade');
    expect(changeKind(plan('active'), team!, 'year')).toBe('downgrade');
    expect(changeKind(plan('active'), team!, 'month')).toBe('current');
    expect(changeKind(plan('expired'), starter!, 'month')).toBe('buy');
  });
});

describe('the checkout return', () => {
  const payment = (status: PaymentResponse['status']): PaymentResponse => ({
    id: 'p1',
    workspace_id: 'w1',
    kind: 'subscribe',
    plan_id: 'team',
    interval: 'month',
    amount: 14_900,
    currency: 'usd',
    status,
    failure_message: status === 'failed' ? 'Your card was declined.' : null,
    created_at: 0,
  });
  const run = (answers: PaymentResponse['status'][], input = { paymentId: 'p1', isLoggedIn: true }) => {
    let calls = 0;
    const actor = createActor(
      checkoutReturnMachine.provide({
        actors: {
          fetchPayment: fromPromise(async () => payment(answers[Math.min(calls++, answers.length - 1)]!)),
        },
        delays: { checkEvery: 1 },
      }),
      { input },
    ).start();
    return { actor, calls: () => calls };
  };

  it('asks again while pending and stops at paid or failed', async () => {
    const paid = run(['processing', 'requires_action', 'paid']);
    await waitFor(paid.actor, (s) => s.status === 'done');
    expect(paid.actor.getSnapshot().value).toBe('paid');
    expect(paid.calls()).toBe(3);
    const failed = run(['failed']);
    await waitFor(failed.actor, (s) => s.status === 'done');
    expect(failed.actor.getSnapshot().value).toBe('failed');
  });

  it('stops asking after many checks and asks again on request', async () => {
    const pending = run(['processing']);
    await waitFor(pending.actor, (s) => s.matches('stillPending'));
    const made = pending.calls();
    pending.actor.send({ type: 'CHECK_AGAIN' });
    await waitFor(pending.actor, (s) => s.matches('stillPending') && pending.calls() > made);
  });

  it('without a payment id or signed out, asks nothing', () => {
    expect(run(['paid'], { paymentId: '', isLoggedIn: true }).actor.getSnapshot().value).toBe(
      'unknownPayment',
    );
    const signedOut = run(['paid'], { paymentId: 'p1', isLoggedIn: false });
    expect(signedOut.actor.getSnapshot().value).toBe('signedOut');
    expect(signedOut.calls()).toBe(0);
  });
});
