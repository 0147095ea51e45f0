// Admission control for the heavy requests (dashboards, discover, exports, query counts): at most
// `slots` of them compute at once, the next `queue` wait their turn in arrival order, and any beyond that — or one
// that waited longer than `maxWaitMs` — is answered 503 `busy` with a Retry-After at once instead of piling up. On
// 2 cores a handful of heavy statements already keep both busy; more at once only share the same cores (each slower,
// none sooner) and hold connections. The light requests never pass through here and use their own pool
// (server/db/database.ts), so sign-in and users/me answer while every slot is taken.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { onRequestHookHandler } from 'fastify';
import { ApiError } from '@server/errors';

/** The admission control whose slot the code running here holds (run), if any. */
const holder = new AsyncLocalStorage<Admission>();

/**
 * Whether the heavy request running here shares the cores with another one that holds a slot. Its statements then
 * run one after the other on one connection without parallel workers (insights/transactions.ts): splitting a
 * request's work across processes only pays when cores are idle; under load it adds the cost of the split (exported
 * snapshots, parallel workers' start and gather) to cores that are already busy. False outside a slot.
 */
export function sharingCores(): boolean {
  const admission = holder.getStore();
  return admission !== undefined && admission.state.running > 1;
}

export interface AdmissionOptions {
  /** Heavy requests computing at once. */
  slots: number;
  /** Heavy requests waiting for a slot, at most; one more is answered 503 at once. */
  queue: number;
  /** The longest a request waits in the queue before it is answered 503. */
  maxWaitMs: number;
}

interface Waiter {
  grant: (release: () => void) => void;
  refuse: (error: unknown) => void;
  timer: NodeJS.Timeout;
}

/** How a refusal reads: the same for a full queue and a wait that ran out. */
function busy(retryAfterSeconds: number): ApiError {
  return new ApiError(
    503,
    'busy',
    `Many dashboards and searches are being computed right now. Try again in ${retryAfterSeconds} s.`,
    { retryAfterSeconds },
  );
}

export class Admission {
  private running = 0;
  private readonly waiting: Waiter[] = [];
  /** A moving average of how long a heavy request holds its slot, for Retry-After. */
  private averageMs = 200;

  constructor(readonly options: AdmissionOptions) {}

  /** What runs and waits now (tests, logs). */
  get state() {
    return { running: this.running, waiting: this.waiting.length };
  }

  /** Whether a request asking for a slot now would be refused (every slot taken and the queue full). */
  get full(): boolean {
    return this.running >= this.options.slots && this.waiting.length >= this.options.queue;
  }

  /** Seconds until the queue as it is now has drained, by the recent average: what Retry-After says. */
  retryAfterSeconds(): number {
    const ahead = this.running + this.waiting.length;
    return Math.max(1, Math.ceil((ahead / this.options.slots) * (this.averageMs / 1000)));
  }

  /**
   * A slot: at once when one is free, else after the requests queued before this one; rejected with a 503 `busy` when
   * the queue is full, when the wait passes maxWaitMs, or (with the signal's reason) when `signal` aborts first (the
   * client went away). The returned function gives the slot back; calling it again does nothing.
   */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (this.running < this.options.slots) return Promise.resolve(this.grant());
    if (this.full) return Promise.reject(busy(this.retryAfterSeconds()));
    return new Promise((resolve, reject) => {
      const leave = () => {
        clearTimeout(waiter.timer);
        signal?.removeEventListener('abort', onAbort);
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
      };
      const onAbort = () => {
        leave();
        reject(signal!.reason as Error);
      };
      const waiter: Waiter = {
        grant: (release) => {
          leave();
          resolve(release);
        },
        refuse: (error) => {
          leave();
          reject(error);
        },
        timer: setTimeout(() => waiter.refuse(busy(this.retryAfterSeconds())), this.options.maxWaitMs),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** Runs `work` in a slot (see acquire), giving the slot back however it ends. */
  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(signal);
    try {
      return await holder.run(this, work);
    } finally {
      release();
    }
  }

  private grant(): () => void {
    this.running += 1;
    const started = performance.now();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.averageMs = this.averageMs * 0.8 + (performance.now() - started) * 0.2;
      this.running -= 1;
      // The slot goes straight to the longest waiter, if any.
      const next = this.waiting[0];
      if (next) next.grant(this.grant());
    };
  }
}

/**
 * Why a request stopped waiting: its client went away (clientGone). A 503 rather than a failure of ours: nobody reads
 * the answer, and nothing is logged as a 500.
 */
export class ClientGoneError extends ApiError {
  constructor() {
    super(503, 'client_gone', 'The client went away before its answer was computed.');
  }
}

/** The signal that aborts when the connection of a response (reply.raw) closes before the answer was sent. */
export function clientGone(response: {
  once(event: 'close', listener: () => void): unknown;
  readonly writableFinished: boolean;
}): AbortSignal {
  const controller = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) controller.abort(new ClientGoneError());
  });
  return controller.signal;
}

/** The refusals' bodies by Retry-After, made once: as the error handler writes the busy error. */
const refusalBodies = new Map<number, Buffer>();
const KEPT_REFUSALS = 600;
/** How long a refusal at the door waits before it is written (far below any Retry-After, which is whole seconds). */
const REFUSAL_HOLD_MS = 250;

function refusalBody(seconds: number): Buffer {
  let body = refusalBodies.get(seconds);
  if (!body) {
    const error = busy(seconds);
    body = Buffer.from(JSON.stringify({ error: error.code, message: error.message }));
    if (refusalBodies.size < KEPT_REFUSALS) refusalBodies.set(seconds, body);
  }
  return body;
}

/**
 * An onRequest hook (after authentication) that refuses at the door while `admission` is full: 503 busy with
 * Retry-After, before the body is read or the database asked anything, at the cost of a write of bytes made once. A
 * flood of requests the server cannot take then costs it almost nothing, so the light requests sharing its event loop
 * and its pool do not feel it. While the queue is full this refuses a request the answer cache could have served too:
 * knowing that takes the body, the workspace's row and the corpus version, the very work a refusal must not do.
 */
export function refuseWhenFull(admission: Admission, holdMs = REFUSAL_HOLD_MS): onRequestHookHandler {
  return (_request, reply, done) => {
    if (!admission.full) return done();
    const seconds = admission.retryAfterSeconds();
    const refuse = () =>
      void reply
        .code(503)
        .header('retry-after', String(seconds))
        .type('application/json; charset=utf-8')
        .send(refusalBody(seconds));
    // A client that asks again the moment it is refused (ignoring Retry-After) would otherwise be refused thousands of
    // times a second, and those writes alone keep the event loop from the light requests: each refusal is held a
    // moment first, a timer's cost, which bounds the refusals to connections / hold per second.
    if (holdMs > 0) setTimeout(refuse, holdMs).unref();
    else refuse();
  };
}
