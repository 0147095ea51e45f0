// Model-based test of /checkout/return (spec §2): paths generated from the statechart run through the real router,
// page and API client. The backend answers GET checkout/payments/{id} as each step says, the checks' timer is a fake
// clock moved by the step's delay, and "Check again"/"Try again" are pressed on the page. The real actor must follow
// each step, and the page must show what its state means.
import { fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AnyMachineSnapshot } from 'xstate';
import type { PaymentResponse } from '@contract/billing';
import {
  CHECK_EVERY_MS,
  MAX_CHECKS,
  checkoutReturnMachine,
  type CheckoutReturnInput,
} from '@/machines/checkout-return.machine';
import {
  ME,
  decisionPaths,
  defaultsWith,
  locationOf,
  pathName,
  setupRouterTests,
  type ActorEvent,
  type ModelStep,
} from '@test/support/router-harness';
import { withEveryTransition } from '@test/support/test-model';

const PAYMENT_ID = '5b0c7c38-2f4e-4f7e-9a51-0d6b9b6f1c11';
const ENDPOINT = `GET checkout/payments/${PAYMENT_ID}`;
const WAIT = { timeout: 4000, interval: 5 };
const AFTER_CHECK = 'xstate.after.checkEvery.checkoutReturn.pending';

const payment = (status: PaymentResponse['status']): PaymentResponse => ({
  id: PAYMENT_ID,
  workspace_id: 'w1',
  kind: 'subscribe',
  plan_id: 'team',
  interval: 'month',
  amount: 4900,
  currency: 'eur',
  status,
  failure_message: status === 'failed' ? 'Your card was declined.' : null,
  created_at: 1_790_000_000,
});

function eventsFor(snapshot: AnyMachineSnapshot): ActorEvent[] {
  if (snapshot.matches('checking')) {
    // Each pending answer is a context of its own: a confirmation step is asked for on the first check only, so the
    // checks form one chain instead of every mix of the two.
    const statuses = ['paid', 'failed', 'expired', 'open'] as const;
    const first = snapshot.context.payment === null;
    return [
      ...[...statuses, ...(first ? (['requires_action'] as const) : [])].map((status) => ({
        type: 'xstate.done.actor.fetchPayment',
        output: payment(status),
      })),
      { type: 'xstate.error.actor.fetchPayment', error: new Error('payment check failed') },
    ];
  }
  if (snapshot.matches('pending')) return [{ type: AFTER_CHECK }];
  if (snapshot.matches('stillPending') || snapshot.matches('failedToCheck')) return [{ type: 'CHECK_AGAIN' }];
  return [];
}

const inputs: CheckoutReturnInput[] = [null, PAYMENT_ID].flatMap((paymentId) =>
  [false, true].map((isLoggedIn) => ({ paymentId, isLoggedIn })),
);

const checksIn = (steps: ModelStep[]) => steps.filter((s) => s.event.type === AFTER_CHECK).length;
/** How many times a path gives up and is asked to check again after giving up. */
const givenUp = (steps: ModelStep[]) => steps.filter((s) => s.state.matches('stillPending')).length;

// Every count of checks is a state of its own (the context counts them): the paths kept are those with at most two
// checks, and the one that checks until the page gives up, with what may follow the giving up.
const all = decisionPaths(checkoutReturnMachine, inputs, eventsFor);
// Asking again after a failed check returns to a state already reached, which lies on no such path: it is added.
const paths = withEveryTransition(
  checkoutReturnMachine,
  all.paths.filter(
    (path) =>
      checksIn(path.steps) <= 2 || (givenUp(path.steps) >= 1 && checksIn(path.steps) <= MAX_CHECKS + 1),
  ) as never[],
  eventsFor as never,
) as unknown as typeof all.paths;

const eventName = (event: ActorEvent) => {
  if (event.type === AFTER_CHECK) return `${CHECK_EVERY_MS} ms`;
  if (event.type === 'CHECK_AGAIN') return 'check again';
  if (event.type.startsWith('xstate.error')) return 'check fails';
  return (event.output as PaymentResponse).status;
};
const inputName = (input: CheckoutReturnInput) =>
  `${input.isLoggedIn ? 'signed in' : 'signed out'}, ${input.paymentId ? 'a payment id' : 'no payment id'}`;
const shortName = (steps: ModelStep[]) => {
  const loops = checksIn(steps);
  return loops > 3
    ? `${loops} checks, then ${pathName(steps.slice(-4), eventName)}`
    : pathName(steps, eventName);
};

/** What the page shows in each state. */
async function expectMeaning(state: AnyMachineSnapshot) {
  const heading = (name: string | RegExp) => screen.findByRole('heading', { name });
  switch (state.value) {
    case 'paid':
      expect(await heading('Payment received')).toBeTruthy();
      expect(screen.getByRole('link', { name: 'Continue to your workspace' })).toBeTruthy();
      break;
    case 'failed':
      expect(await heading('The payment did not go through')).toBeTruthy();
      expect(screen.getByText('The card provider said: Your card was declined.')).toBeTruthy();
      expect(screen.getByRole('link', { name: 'Try again' })).toBeTruthy();
      break;
    case 'expired':
      expect(await heading('The checkout expired')).toBeTruthy();
      expect(screen.queryByText(/The card provider said/)).toBeNull();
      expect(screen.getByRole('link', { name: 'Try again' })).toBeTruthy();
      break;
    case 'pending':
      expect(await heading('Payment pending')).toBeTruthy();
      expect(screen.getByRole('status').textContent).toBe('Checking…');
      break;
    case 'stillPending':
      expect(await heading('Payment pending')).toBeTruthy();
      expect(screen.getByRole('status').textContent).toBe('Not confirmed yet.');
      expect(screen.getByRole('button', { name: 'Check again' })).toBeTruthy();
      break;
    case 'failedToCheck':
      expect(await screen.findByText("The payment's state could not be loaded.")).toBeTruthy();
      expect(screen.getByRole('button', { name: 'Try again' })).toBeTruthy();
      break;
    case 'signedOut':
      expect(await screen.findByText('Sign in to see what became of your payment.')).toBeTruthy();
      break;
    case 'unknownPayment':
      expect(await screen.findByText('You are back from the card checkout.')).toBeTruthy();
      break;
    default:
      // Checking: the page waits for the server's answer.
      expect(await screen.findByText('Checking the payment…')).toBeTruthy();
  }
}

describe('checkout-return statechart, paths run through the real router and page', () => {
  const harness = setupRouterTests();
  const { runs, recorder } = harness;
  // Registered after the harness's hooks, so it runs before them: the router settles on the real clock.
  afterEach(() => {
    vi.useRealTimers();
  });

  it('generates paths that reach every state, the giving up after the last check included', () => {
    expect(all.counts.shortest).toBeGreaterThan(0);
    const reached = new Set(paths.map((p) => String(p.state.value)));
    expect([...reached].sort()).toEqual(
      [
        'checking',
        'expired',
        'failed',
        'failedToCheck',
        'paid',
        'pending',
        'signedOut',
        'stillPending',
        'unknownPayment',
      ].sort(),
    );
    expect(paths.some((p) => checksIn(p.steps) === MAX_CHECKS - 1 && p.state.matches('stillPending'))).toBe(
      true,
    );
  });

  for (const path of paths) {
    it(`${inputName(path.input)}: ${shortName(path.steps)}`, async () => {
      // The clock runs as usual (the page's waits need it) and jumps over the checks' pause.
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'], shouldAdvanceTime: true });
      const apiBaseUrl = harness.backend.begin(defaultsWith({ status: 200, body: ME('u1', ['w1']) }), [
        ENDPOINT,
      ]);
      const { paymentId, isLoggedIn } = path.input;
      const scene = harness.start({
        apiBaseUrl,
        url: paymentId ? `/checkout/return?payment_id=${paymentId}` : '/checkout/return',
        signedIn: isLoggedIn,
      });
      expect(locationOf(scene.app).pathname).toBe('/checkout/return');
      const run = () => runs.of(checkoutReturnMachine)[0];
      const expectAt = (state: AnyMachineSnapshot, when: string) => {
        expect(run()?.value, `real state ${when}`).toEqual(state.value);
        expect(run()?.context, `real context ${when}`).toEqual(state.context);
      };

      for (let index = 1; index < path.steps.length; index += 1) {
        const { event } = path.steps[index]!;
        const source = path.steps[index - 1]!.state;
        if (event.type === AFTER_CHECK) {
          await vi.waitFor(() => expect(run()?.value).toEqual(source.value), WAIT);
          expectAt(source, 'before the next check');
          await expectMeaning(source);
          // Not long before its time.
          vi.advanceTimersByTime(CHECK_EVERY_MS - 200);
          expect(run()?.value).toBe('pending');
          vi.advanceTimersByTime(200);
        } else if (event.type === 'CHECK_AGAIN') {
          await vi.waitFor(() => expect(run()?.value).toEqual(source.value), WAIT);
          expectAt(source, 'before checking again');
          await expectMeaning(source);
          fireEvent.click(
            screen.getByRole('button', {
              name: source.matches('stillPending') ? 'Check again' : 'Try again',
            }),
          );
        } else {
          await vi.waitFor(
            () => expect(harness.backend.isParked(ENDPOINT), `${ENDPOINT} called`).toBe(true),
            WAIT,
          );
          expectAt(source, `before ${eventName(event)}`);
          const reply = event.type.startsWith('xstate.error')
            ? // Not a 5xx: the client would repeat a GET that failed so (its retries are the API client's own tests').
              { status: 404, body: { error: 'not_found' } }
            : { status: 200, body: event.output };
          harness.backend.answer(ENDPOINT, reply);
          harness.backend.hold(ENDPOINT);
        }
      }
      const last = path.state;
      if (last.matches('checking')) {
        await vi.waitFor(() => expect(harness.backend.isParked(ENDPOINT)).toBe(true), WAIT);
      }
      await vi.waitFor(() => expect(run()?.value).toEqual(last.value), WAIT);
      expectAt(last, 'at the end');
      expect(run()?.status).toBe(last.status);
      await expectMeaning(last);
      expect(runs.of(checkoutReturnMachine)).toHaveLength(1);
    });
  }

  it('executed paths cover every state and every transition of the checkout-return machine', () => {
    expect(recorder.missing(checkoutReturnMachine)).toEqual({ states: [], transitions: [] });
  });
});
