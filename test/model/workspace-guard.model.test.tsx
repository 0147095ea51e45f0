// Model-based test of the workspace route guard (spec §4, steps 1–5): every shortest and simple path of the
// statechart is executed through the real router, for real addresses (plain pages, pages that skip the checks, the
// internal workspace, addresses that only redirect to a child page) and for hover preloads. The backend answers
// users/me and the workspace as each step says; the app must end where the final state means, with exactly the
// side effects it names (one PageView and the remembered workspace, or none).
import { screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { AnyMachineSnapshot } from 'xstate';
import {
  WorkspaceAccessError,
  workspaceGuardMachine,
  type GuardWorkspace,
  type WorkspaceGuardInput,
} from '@/machines/workspace-guard.machine';
import { loginRedirectMachine } from '@/machines/login-redirect.machine';
import { workspaceQuery } from '@/api/queries';
import type { WorkspaceResponse } from '@contract/workspaces';
import { messages } from '@/lib/messages';
import { lastWorkspaceKey } from '@/lib/storage-keys';
import { nowSeconds } from '@test/support/fake-http';
import {
  type DecisionRuns,
  ME,
  decisionPaths,
  defaultsWith,
  heldCalls,
  locationOf,
  pathName,
  setupRouterTests,
  walkPath,
  type ActorEvent,
  type CallFor,
  type Endpoint,
  type Scene,
} from '@test/support/router-harness';

const USER = 'u1';
const DAY = 86_400;

interface Address {
  url: string;
  /** The page segment the router must hand the guard. */
  page: string | null;
  /** The heading of the page shown when allowed. */
  heading: string;
  /** Where an address that only redirects to a child page lands. */
  lands?: string;
}
const address = (url: string, page: string | null, heading: string, lands?: string): Address => ({
  url,
  page,
  heading,
  lands,
});
const SAVED_QUERIES = address('/workspace/w1/saved-queries', 'saved-queries', 'Saved queries');
// The status pages show the workspace as it is: opened directly, w1 is open (the backend's default), and either says
// so; reached through the checks, they show why (PLAN_EXPIRED_HEADING, NOT_AVAILABLE_HEADING).
const OPEN_HEADING = 'This workspace is available';
const PLAN_EXPIRED_HEADING = 'Your plan has expired';
const NOT_AVAILABLE_HEADING = 'This workspace is not available';
const PLAN_REQUIRED = address('/workspace/w1/plan-required', 'plan-required', OPEN_HEADING);
const INVALID = address('/workspace/w1/invalid-workspace', 'invalid-workspace', OPEN_HEADING);
/** Where a hover preload starts from. */
const OPEN_PAGE = { url: '/checkout/return', heading: 'Checkout' };
const CHECKOUT = address('/workspace/w1/checkout', 'checkout', 'Checkout');
const INTERNAL = address('/workspace/internal/saved-queries', 'saved-queries', 'Saved queries');
const INDEX = address('/workspace/w1', null, 'Saved queries', '/workspace/w1/saved-queries');
const INSIGHT = address('/workspace/w1/insight', 'insight', 'Overview', '/workspace/w1/insight/overview');
const SETTINGS = address('/workspace/w1/settings', 'settings', 'General', '/workspace/w1/settings/general');

/** A workspace w1 as GET workspaces/w1 gives it (and as the query cache holds it). */
const workspace = (
  plan_expired_at: number | null,
  privilege: GuardWorkspace['privilege'],
): WorkspaceResponse => ({
  id: 'w1',
  name: 'Workspace w1',
  language: 'en',
  plan: 'trial',
  plan_expired_at,
  privilege,
  time_zone: 'UTC',
});
const CACHED_OPEN = workspace(null, 'owner');
const CACHED_EXPIRED = workspace(nowSeconds() - DAY, 'owner');

interface Scenario {
  address: Address;
  cached: WorkspaceResponse | null;
  preload: boolean;
}
const visit = (address: Address, cached: WorkspaceResponse | null = null): Scenario => ({
  address,
  cached,
  preload: false,
});
const scenarios: Scenario[] = [
  visit(SAVED_QUERIES),
  visit(SAVED_QUERIES, CACHED_OPEN),
  visit(SAVED_QUERIES, CACHED_EXPIRED),
  visit(INSIGHT),
  visit(INDEX, CACHED_OPEN),
  visit(SETTINGS, CACHED_OPEN),
  ...[PLAN_REQUIRED, INVALID, CHECKOUT, INTERNAL].map((skipping) => visit(skipping)),
  // Hover preloads of saved-queries, from another page.
  { address: SAVED_QUERIES, cached: null, preload: true },
  { address: SAVED_QUERIES, cached: CACHED_OPEN, preload: true },
];

const inputOf = new Map<WorkspaceGuardInput, Scenario>(
  scenarios.map((scenario) => [
    {
      workspaceId: scenario.address.url.split('/')[2]!,
      page: scenario.address.page,
      internalWorkspaceId: 'internal',
      cachedWorkspace: scenario.cached,
      preload: scenario.preload,
      redirecting: scenario.address.lands !== undefined,
    },
    scenario,
  ]),
);

const accessError = new WorkspaceAccessError('No access to workspace w1');
const badRequest = Object.assign(new Error('GET workspaces/w1 failed with status 400'), { status: 400 });

function eventsFor(snapshot: AnyMachineSnapshot): ActorEvent[] {
  if (snapshot.matches('fetchingSession')) {
    return [
      { type: 'xstate.done.actor.fetchSession', output: ME(USER, ['w1']) },
      { type: 'xstate.error.actor.fetchSession', error: new Error('users/me failed') },
    ];
  }
  if (snapshot.matches('loadingWorkspace')) {
    const plans = [nowSeconds() - DAY, nowSeconds() + DAY, null];
    return [
      ...plans.flatMap((plan) =>
        (['owner', 'viewer'] as const).map((privilege) => ({
          type: 'xstate.done.actor.loadWorkspace',
          output: workspace(plan, privilege),
        })),
      ),
      { type: 'xstate.error.actor.loadWorkspace', error: accessError },
      { type: 'xstate.error.actor.loadWorkspace', error: badRequest },
    ];
  }
  return [];
}

const { paths, counts } = decisionPaths(workspaceGuardMachine, [...inputOf.keys()], eventsFor);

const callFor: CallFor = (event) => {
  const { output, error } = event;
  switch (event.type) {
    case 'xstate.done.actor.fetchSession':
      return { endpoint: 'GET users/me', reply: { status: 200, body: output } };
    case 'xstate.error.actor.fetchSession':
      return { endpoint: 'GET users/me', reply: { status: 403, body: { error: 'forbidden' } } };
    case 'xstate.done.actor.loadWorkspace':
      return { endpoint: 'GET workspaces/w1', reply: { status: 200, body: output } };
    case 'xstate.error.actor.loadWorkspace':
      // Not a member: 403. Any other failure that is not retried: 400, the route's error screen.
      return {
        endpoint: 'GET workspaces/w1',
        reply: { status: error instanceof WorkspaceAccessError ? 403 : 400, body: { error: 'no' } },
      };
    default:
      throw new Error(`no call for ${event.type}`);
  }
};
const waitingOn = (state: AnyMachineSnapshot): Endpoint =>
  state.matches('fetchingSession') ? 'GET users/me' : 'GET workspaces/w1';

/** Errors are compared by kind: the model's stand-ins against the real WorkspaceAccessError and HttpError. */
const errorKind = (error: unknown) =>
  error instanceof WorkspaceAccessError ? 'no access' : `status ${(error as { status?: number }).status}`;
const normalizeOutcome = (outcome: unknown) =>
  outcome && typeof outcome === 'object' && 'error' in outcome
    ? { ...outcome, error: errorKind(outcome.error) }
    : outcome;
const normalize = (value: unknown) =>
  value && typeof value === 'object' && 'outcome' in value
    ? { ...value, outcome: normalizeOutcome(value.outcome) }
    : normalizeOutcome(value);

const eventName = (event: ActorEvent) => {
  const { error } = event;
  const output = event.output as GuardWorkspace | undefined;
  const actor = event.type.split('.').pop();
  if (error)
    return `${actor} fails (${event.type.endsWith('loadWorkspace') ? errorKind(error) : 'status 403'})`;
  if (actor === 'fetchSession') return 'fetchSession done';
  const plan = output!.plan_expired_at;
  const expiry = plan === null ? 'no expiry' : plan < nowSeconds() ? 'expired' : 'paid';
  return `loadWorkspace ${output!.privilege}, ${expiry}`;
};

const scenarioName = ({ address, cached, preload }: Scenario) =>
  `${preload ? 'preload' : 'visit'} ${address.url}${cached ? `, cached ${cached.plan_expired_at ? 'expired' : 'open'}` : ''}`;

/** What each final state of a visit means on the real app, with its side effects. */
async function expectMeaning(
  state: AnyMachineSnapshot,
  { address }: Scenario,
  scene: Scene,
  runs: DecisionRuns,
) {
  const at = () => locationOf(scene.app).pathname;
  const heading = (name: string) => screen.findByRole('heading', { name });
  const noSideEffects = () => {
    expect(scene.pageViews).toEqual([]);
    expect(localStorage.getItem(lastWorkspaceKey(USER))).toBeNull();
  };
  switch (state.value) {
    case 'allowedWithoutChecks':
      expect(await heading(address.heading)).toBeTruthy();
      expect(at()).toBe(address.url);
      noSideEffects();
      break;
    case 'allowed': {
      // A redirect-only address sends no PageView itself: the child page's own guard run sends it.
      const lands = address.lands ?? address.url;
      await expect.poll(at).toBe(lands);
      expect(await heading(address.heading)).toBeTruthy();
      expect(scene.pageViews).toHaveLength(1);
      expect(scene.pageViews[0]).toMatchObject({ type: 'PageView', path: lands, workspaceId: 'w1' });
      expect(localStorage.getItem(lastWorkspaceKey(USER))).toBe('w1');
      expect(runs.of(workspaceGuardMachine)).toHaveLength(address.lands ? 2 : 1);
      break;
    }
    case 'toLogin':
      await expect.poll(at).toBe('/login');
      expect(await heading('Sign in to Murmur')).toBeTruthy();
      // users/me still fails, so /login's decision shows the login screen.
      expect(runs.of(loginRedirectMachine)[0]?.value).toBe('showLogin');
      noSideEffects();
      break;
    case 'planRequired':
      await expect.poll(at).toBe('/workspace/w1/plan-required');
      expect(await heading(PLAN_EXPIRED_HEADING)).toBeTruthy();
      noSideEffects();
      break;
    case 'invalidWorkspace':
      await expect.poll(at).toBe('/workspace/w1/invalid-workspace');
      expect(await heading(NOT_AVAILABLE_HEADING)).toBeTruthy();
      noSideEffects();
      break;
    case 'failed':
      expect(await heading(messages.unexpectedErrorTitle)).toBeTruthy();
      expect(screen.getByText(/failed with status 400/)).toBeTruthy();
      expect(at()).toBe(address.url);
      noSideEffects();
      break;
    default:
      // Still checking: nothing sent, nothing remembered, no page of the workspace shown.
      noSideEffects();
      expect(screen.queryByRole('heading', { name: address.heading })).toBeNull();
  }
}

describe('workspace guard statechart, paths run through the real router and API client', () => {
  const harness = setupRouterTests();
  const { runs, recorder } = harness;

  it('generates shortest and simple paths that reach every final state', () => {
    expect(counts.shortest).toBeGreaterThan(0);
    expect(counts.simple).toBeGreaterThan(0);
    const finals = new Set(paths.filter((p) => p.state.status === 'done').map((p) => p.state.value));
    expect([...finals].sort()).toEqual(
      ['allowed', 'allowedWithoutChecks', 'failed', 'invalidWorkspace', 'planRequired', 'toLogin'].sort(),
    );
  });

  for (const path of paths) {
    const scenario = inputOf.get(path.input)!;
    it(`${scenarioName(scenario)}: ${pathName(path.steps, eventName)}`, async () => {
      if (path.state.value === 'failed') {
        // React and the router log the error the route's error screen catches.
        vi.spyOn(console, 'error').mockImplementation(() => {});
        vi.spyOn(console, 'warn').mockImplementation(() => {});
      }
      const apiBaseUrl = harness.backend.begin(
        defaultsWith({ status: 200, body: ME(USER, ['w1']) }),
        heldCalls({ steps: path.steps, callFor, waitingOn }),
      );
      const scene = harness.start({
        apiBaseUrl,
        // A preload happens on a page already open: one that asks the backend nothing, so that every call the path
        // holds is the guard's.
        url: scenario.preload ? OPEN_PAGE.url : scenario.address.url,
        signedIn: true,
        prepare: (app) => {
          if (scenario.cached)
            app.queryClient.setQueryData(workspaceQuery(app.api, 'w1').queryKey, scenario.cached);
        },
      });
      const { app } = scene;
      let preloading: Promise<unknown> | undefined;
      if (scenario.preload) {
        expect(await screen.findByRole('heading', { name: OPEN_PAGE.heading })).toBeTruthy();
        preloading = app.router.preloadRoute({
          to: '/workspace/$workspaceId/saved-queries',
          params: { workspaceId: 'w1' },
        });
      }

      const run = () => runs.of(workspaceGuardMachine)[0];
      await walkPath({ steps: path.steps, backend: harness.backend, run, callFor, waitingOn, normalize });
      if (!preloading) {
        await expectMeaning(path.state, scenario, scene, runs);
        return;
      }
      // A preload has no side effects and goes nowhere, whatever the outcome.
      harness.backend.releaseAll();
      await preloading;
      expect(scene.pageViews).toEqual([]);
      expect(localStorage.getItem(lastWorkspaceKey(USER))).toBeNull();
      expect(locationOf(app).pathname).toBe(OPEN_PAGE.url);
      expect(screen.getByRole('heading', { name: OPEN_PAGE.heading })).toBeTruthy();
    });
  }

  it('executed paths cover every state and every transition of the workspace guard machine', () => {
    expect(recorder.missing(workspaceGuardMachine)).toEqual({ states: [], transitions: [] });
  });
});
