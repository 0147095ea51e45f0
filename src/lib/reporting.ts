// Error reporting (spec §1, §8). The SDK is loaded after the first render; anything reported earlier is queued.

interface ReportedUser {
  id: string;
  email: string;
}

export interface ReportingBackend {
  captureException(error: unknown, extra?: Record<string, unknown>): void;
  setUser(user: ReportedUser | null): void;
}

export interface Reporter {
  report(error: unknown, extra?: Record<string, unknown>): void;
  reportHttpError(error: { method: string; status: number; bodyExcerpt: string; url: string } & Error): void;
  setUser(user: ReportedUser | null): void;
  /** Hands the queue to a loaded backend; later reports go straight to it. */
  attach(backend: ReportingBackend): void;
}

const QUEUE_LIMIT = 50;

export function createReporter(options: { log?: (...args: unknown[]) => void } = {}): Reporter {
  let backend: ReportingBackend | null = null;
  const queue: Array<(b: ReportingBackend) => void> = [];
  let user: ReportedUser | null = null;

  const dispatch = (call: (b: ReportingBackend) => void) => {
    if (backend) call(backend);
    else if (queue.length < QUEUE_LIMIT) queue.push(call);
  };

  return {
    report(error, extra) {
      options.log?.('[report]', error, extra ?? '');
      dispatch((b) => b.captureException(error, extra));
    },
    reportHttpError(error) {
      // No headers and no URL query: tokens never leave through reports.
      const extra = {
        method: error.method,
        status: error.status,
        body: error.bodyExcerpt,
        url: error.url.split('?')[0],
      };
      options.log?.('[report]', error.message, extra);
      dispatch((b) => b.captureException(error, extra));
    },
    setUser(next) {
      user = next;
      dispatch((b) => b.setUser(user));
    },
    attach(next) {
      backend = next;
      for (const call of queue.splice(0)) call(next);
    },
  };
}
