// Model-based tests of the decision statecharts through the real app: createApp and <App/> in jsdom with the real
// router, guards and API client, talking HTTP to a scripted fake backend that holds each call a path's step stands
// for until the test answers it. The real decision actor is observed through createApp's `inspect` option.
import { createElement } from 'react';
import { createMemoryHistory } from '@tanstack/react-router';
import { cleanup, render } from '@testing-library/react';
import { toast } from 'react-toastify/unstyled';
import { afterAll, afterEach, beforeAll, beforeEach, expect, vi } from 'vitest';
import type { AnyMachineSnapshot, AnyStateMachine, EventObject, InspectionEvent } from 'xstate';
import { App, createApp, type MurmurApp } from '@/app';
import type { AppConfig } from '@/config';
import type { PageViewEvent } from '@/lib/analytics';
import { createReporter } from '@/lib/reporting';
import { AUTH_TOKENS_KEY } from '@/lib/storage-keys';
import { currentUserFixture, emptySavedQueryListFixture, workspaceFixture } from './contract.fixtures';
import { CoverageRecorder } from './coverage';
import { fakeJwt, nowSeconds, startFakeHttp, type FakeHttp, type FakeReply } from './fake-http';
import { testModelOf } from './test-model';

const WAIT = { timeout: 4000, interval: 5 };

export const testConfig = (apiBaseUrl: string): AppConfig => ({
  VITE_APP_ENV: 'qa',
  VITE_API_BASE_URL: apiBaseUrl,
  VITE_SOCIAL_API_BASE_URL: 'http://127.0.0.1:1/social/',
  VITE_PAYMENT_SERVER_URL: 'http://127.0.0.1:1/payments/',
  VITE_SENTRY_DSN: '',
  VITE_INTERNAL_WORKSPACE_ID: 'internal',
  VITE_GOOGLE_CLIENT_ID: '',
  VITE_MICROSOFT_CLIENT_ID: '',
  VITE_DEV_OIDC_ISSUER: '',
  VITE_INSPECT: 'false',
  VITE_E2E: 'false',
});

/** A call of the internal API as `METHOD path`, the path relative to the API base (e.g. 'GET users/me'). */
export type Endpoint = string;
export type Defaults = (endpoint: Endpoint) => FakeReply | undefined;

/**
 * The fake backend of one test file. Each test gets its own URL prefix, so late calls of an earlier test's app
 * cannot reach the current one. Held endpoints park their calls until `answer`; others get the defaults.
 */
export class ScriptedBackend {
  private prefix = '';
  private tests = 0;
  private defaults: Defaults = () => undefined;
  private readonly answers = new Map<Endpoint, FakeReply>();
  private readonly held = new Set<Endpoint>();
  private parked: Array<{ endpoint: Endpoint; release: (reply: FakeReply) => void }> = [];

  private constructor(private readonly fake: FakeHttp) {
    fake.handle = (request) => {
      if (!request.path.startsWith(`${this.prefix}/api/`)) return { status: 410, body: 'stale test' };
      const endpoint = `${request.method} ${request.path.slice(this.prefix.length + '/api/'.length)}`;
      if (this.held.has(endpoint)) {
        return new Promise<FakeReply>((release) => this.parked.push({ endpoint, release }));
      }
      return this.replyTo(endpoint);
    };
  }

  static async start(): Promise<ScriptedBackend> {
    return new ScriptedBackend(await startFakeHttp());
  }

  /** Starts a test: a fresh prefix, answers and holds. Returns the API base URL for createApp. */
  begin(defaults: Defaults, held: Iterable<Endpoint>): string {
    this.releaseAll();
    this.tests += 1;
    this.prefix = `/t${this.tests}`;
    this.defaults = defaults;
    this.answers.clear();
    for (const endpoint of held) this.held.add(endpoint);
    return `${this.fake.url}${this.prefix}/api/`;
  }

  private replyTo(endpoint: Endpoint): FakeReply {
    return (
      this.answers.get(endpoint) ?? this.defaults(endpoint) ?? { status: 404, body: { error: 'not found' } }
    );
  }

  isParked(endpoint: Endpoint): boolean {
    return this.parked.some((call) => call.endpoint === endpoint);
  }

  /** Answers the parked call (and every later one) of `endpoint` with `reply`. */
  answer(endpoint: Endpoint, reply: FakeReply): void {
    this.answers.set(endpoint, reply);
    this.held.delete(endpoint);
    const now = this.parked.filter((call) => call.endpoint === endpoint);
    this.parked = this.parked.filter((call) => call.endpoint !== endpoint);
    for (const call of now) call.release(reply);
  }

  /** Holds `endpoint` again: its next call parks until answered (a call a machine makes more than once). */
  hold(endpoint: Endpoint): void {
    this.held.add(endpoint);
  }

  /** Stops holding: parked calls get the defaults. */
  releaseAll(): void {
    this.held.clear();
    for (const call of this.parked.splice(0)) call.release(this.replyTo(call.endpoint));
  }

  close(): Promise<void> {
    this.releaseAll();
    return this.fake.close();
  }
}

/** One run of a decision machine as the real app performed it (its latest snapshot). */
export type DecisionRun = {
  value: unknown;
  context: Record<string, unknown>;
  status: string;
  output: unknown;
};

/** Every run of every machine actor, by machine id, in start order; also feeds a coverage recorder. */
export class DecisionRuns {
  private readonly runs = new Map<string, { machineId: string; run: DecisionRun }>();
  constructor(private readonly recorder: CoverageRecorder) {}

  readonly inspect = (event: InspectionEvent) => {
    this.recorder.inspect(event);
    if (event.type !== '@xstate.snapshot') return;
    const logic = (event.actorRef as unknown as { logic?: AnyStateMachine }).logic;
    if (!logic || !('root' in logic)) return;
    const snapshot = event.snapshot as unknown as DecisionRun;
    const { value, context, status, output } = snapshot;
    this.runs.set(event.actorRef.sessionId, { machineId: logic.id, run: { value, context, status, output } });
  };

  of(machine: AnyStateMachine): DecisionRun[] {
    return [...this.runs.values()].filter((r) => r.machineId === machine.id).map((r) => r.run);
  }

  clear(): void {
    this.runs.clear();
  }
}

/** The paths of a decision machine over several inputs: shortest and simple paths, deduplicated by description. */
export function decisionPaths<I>(
  machine: AnyStateMachine,
  inputs: I[],
  eventsFor: (snapshot: AnyMachineSnapshot) => ActorEvent[],
) {
  const model = testModelOf(machine, eventsFor);
  const seen = new Set<string>();
  const counts = { shortest: 0, simple: 0 };
  const paths: Array<{ input: I; steps: ModelStep[]; state: AnyMachineSnapshot; description: string }> = [];
  for (const input of inputs) {
    const shortest = model.getShortestPaths({ input, allowDuplicatePaths: true } as never);
    const simple = model.getSimplePaths({ input } as never);
    counts.shortest += shortest.length;
    counts.simple += simple.length;
    for (const path of [...shortest, ...simple]) {
      if (seen.has(path.description)) continue;
      seen.add(path.description);
      paths.push({
        ...(path as unknown as { steps: ModelStep[]; state: AnyMachineSnapshot }),
        input,
        description: path.description,
      });
    }
  }
  return { paths, counts };
}

/** An invoked actor's outcome as the model sends it (xstate.done.actor.<id> / xstate.error.actor.<id>). */
export type ActorEvent = EventObject & { output?: unknown; error?: unknown };

export type ModelStep = { event: ActorEvent; state: AnyMachineSnapshot };

/** A readable name for a path: its states, joined by the events between them. */
export function pathName(steps: ModelStep[], eventName: (event: ActorEvent) => string): string {
  return steps
    .map((step, index) => {
      const state = JSON.stringify(step.state.value).replaceAll('"', '');
      return index === 0 ? state : ` -${eventName(step.event)}-> ${state}`;
    })
    .join('');
}

/** What an actor outcome event of the model means for the backend: which call, answered how. */
export type CallFor = (event: ActorEvent) => { endpoint: Endpoint; reply: FakeReply };

export interface Walk {
  steps: ModelStep[];
  backend: ScriptedBackend;
  /** The real run under test (the machine's first run in this test). */
  run: () => DecisionRun | undefined;
  callFor: CallFor;
  /** The call a non-final state waits on. */
  waitingOn: (state: AnyMachineSnapshot) => Endpoint;
  /** Maps a context or output onto what is compared (e.g. errors onto their kind). */
  normalize?: (value: unknown) => unknown;
}

/** The calls a path's steps stand for: held from the start, so each step can be checked before it happens. */
export function heldCalls({ steps, callFor, waitingOn }: Pick<Walk, 'steps' | 'callFor' | 'waitingOn'>) {
  const endpoints = steps.slice(1).map((step) => callFor(step.event).endpoint);
  const last = steps[steps.length - 1]!.state;
  if (last.status !== 'done') endpoints.push(waitingOn(last));
  return endpoints;
}

/**
 * Executes a path against the running app: before each step the real actor must be in the step's source state,
 * with the same context, and waiting on the step's call; the call is then answered as the step's event says.
 * At the end the real actor is in the path's final state (with the same output), or waits on its call.
 */
export async function walkPath({ steps, backend, run, callFor, waitingOn, normalize = (v) => v }: Walk) {
  const expectAt = (state: AnyMachineSnapshot, when: string) => {
    const real = run();
    expect(real?.value, `real state ${when}`).toEqual(state.value);
    expect(normalize(real?.context), `real context ${when}`).toEqual(normalize(state.context));
  };
  for (let index = 1; index < steps.length; index += 1) {
    const { event } = steps[index]!;
    const { endpoint, reply } = callFor(event);
    await vi.waitFor(() => expect(backend.isParked(endpoint), `${endpoint} called`).toBe(true), WAIT);
    expectAt(steps[index - 1]!.state, `before ${event.type}`);
    backend.answer(endpoint, reply);
  }
  const last = steps[steps.length - 1]!.state;
  if (last.status === 'done') {
    await vi.waitFor(() => expect(run()?.status).toBe('done'), WAIT);
    expectAt(last, 'at the end');
    expect(normalize(run()?.output)).toEqual(normalize(last.output));
  } else {
    const endpoint = waitingOn(last);
    await vi.waitFor(() => expect(backend.isParked(endpoint), `${endpoint} called`).toBe(true), WAIT);
    expectAt(last, `waiting on ${endpoint}`);
    expect(run()?.status).toBe('active');
  }
}

export interface Scene {
  app: MurmurApp;
  pageViews: PageViewEvent[];
}

/** Where the app is. */
export function locationOf(app: MurmurApp) {
  const { pathname, search } = app.router.state.location;
  return { pathname, search: search as Record<string, unknown> };
}

/** Registers a test file's hooks (one backend per file, a fresh app per test) and returns live handles. */
export function setupRouterTests() {
  const recorder = new CoverageRecorder();
  const runs = new DecisionRuns(recorder);
  let backend: ScriptedBackend | undefined;
  let scene: Scene | undefined;
  beforeAll(async () => {
    backend = await ScriptedBackend.start();
  });
  beforeEach(() => localStorage.clear());
  afterEach(async () => {
    // Held calls go, the router settles; then everything the test left is unmounted and forgotten.
    backend?.releaseAll();
    if (scene) {
      const { app } = scene;
      await vi.waitFor(() => expect(app.router.state.status).toBe('idle'), WAIT);
      app.session.actor.stop();
      app.queryClient.clear();
    }
    scene = undefined;
    cleanup();
    toast.dismiss();
    vi.restoreAllMocks();
    runs.clear();
    localStorage.clear();
  });
  afterAll(() => backend?.close());
  return {
    /** Shared by the file's paths: what the real runs covered. */
    recorder,
    runs,
    get backend(): ScriptedBackend {
      if (!backend) throw new Error('the fake backend did not start');
      return backend;
    },
    /** Creates this test's app at `url` (signed in or out), lets `prepare` seed it, and renders it. */
    start(options: {
      apiBaseUrl: string;
      url: string;
      signedIn: boolean;
      prepare?: (app: MurmurApp) => void;
    }): Scene {
      if (options.signedIn) {
        const tokens = { access_token: fakeJwt(nowSeconds() + 3600), refresh_token: 'r' };
        localStorage.setItem(AUTH_TOKENS_KEY, JSON.stringify(tokens));
      }
      // The router restores scroll positions; jsdom has no scrolling.
      vi.spyOn(window, 'scrollTo').mockImplementation(() => {});
      const pageViews: PageViewEvent[] = [];
      const app = createApp(testConfig(options.apiBaseUrl), {
        storage: localStorage,
        history: createMemoryHistory({ initialEntries: [options.url] }),
        reporter: createReporter(),
        analytics: (event) => pageViews.push(event),
        inspect: runs.inspect,
      });
      options.prepare?.(app);
      render(createElement(App, { app }));
      scene = { app, pageViews };
      return scene;
    },
  };
}

export const ME = (id: string, workspaceIds: string[]) => currentUserFixture(id, workspaceIds);

/**
 * Default answers: users/me gives `me`, any workspace is open (no expiry, owner) with no saved queries and no members
 * listed, anything else is 404.
 */
export function defaultsWith(me: FakeReply): Defaults {
  return (endpoint) => {
    if (endpoint === 'GET users/me') return me;
    const workspace = /^GET workspaces\/([^/]+)$/.exec(endpoint);
    const id = workspace && decodeURIComponent(workspace[1]!);
    if (id) return { status: 200, body: workspaceFixture(id) };
    // The saved queries page (where a workspace lands) reads its list and the members who wrote them.
    if (/^GET workspaces\/[^/]+\/saved-queries$/.test(endpoint)) {
      return { status: 200, body: emptySavedQueryListFixture() };
    }
    if (/^GET workspaces\/[^/]+\/members$/.test(endpoint)) return { status: 200, body: [] };
    return undefined;
  };
}
