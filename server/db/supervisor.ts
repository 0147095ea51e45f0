// Watches what a process's database needs and starts it again when it goes away, after a pause that doubles each try
// (EMBEDDED_PG_RESTART_DELAY_MS, at most 30 s), up to EMBEDDED_PG_RESTARTS tries; when every try failed, `onGiveUp`
// hears one line and the process exits non-zero, so that what supervises it (systemd, a container's restart policy)
// starts it again from scratch. Two things are watched so:
// - under a running server, the embedded PostgreSQL process itself (killed, out of memory, a crash): a try starts it
//   again on the same data; while it is away the server answers 503 (GET /api/health says "restarting");
// - under `npm run worker`, a connection to the database the worker uses (whoever runs it): a try connects again.
// A database that comes back after the pools' connections broke needs nothing more: the pools open new connections on
// the next query.

/** What GET /api/health reports of the database. */
type DatabaseState = 'up' | 'restarting' | 'down';

export interface DatabaseStatus {
  state: DatabaseState;
  /** While restarting: the try under way (or waited for), and how many there may be. */
  attempt?: number;
  attempts?: number;
  /** While restarting: what keeps it from starting, when waiting is what cures it ("the disk is full"). */
  reason?: string;
}

/** What is watched: a PostgreSQL process, or a connection to one. */
export interface Supervised {
  /** Settles when it is gone, with how ("killed by SIGKILL", "Connection terminated unexpectedly"). */
  readonly exited: Promise<string>;
  stop(): Promise<void>;
}

/** How the log lines name what is watched and what a try does. */
interface SupervisorWords {
  /** "The embedded PostgreSQL" */
  subject: string;
  /** "stopped" */
  lost: string;
  /** "starting it again" */
  retrying: string;
  /** "runs again" */
  back: string;
  /** "did not start again" */
  notBack: string;
}

const EMBEDDED_WORDS: SupervisorWords = {
  subject: 'The embedded PostgreSQL',
  lost: 'stopped',
  retrying: 'starting it again',
  back: 'runs again',
  notBack: 'did not start again',
};

export interface SupervisorOptions<T extends Supervised> {
  /** Tries after a death before giving up (0: give up at once). */
  restarts: number;
  /** The pause before the first try; each next one waits twice as long, at most MAX_DELAY_MS. */
  delayMs: number;
  /** One try: PostgreSQL started again on the same data (a stale postmaster.pid is the starter's to clear), or a new
   * connection. */
  start(): Promise<T>;
  /** Every try failed: `line` says what happened and what comes next. */
  onGiveUp(line: string): void;
  /** Default: the embedded PostgreSQL's. */
  words?: SupervisorWords;
  /** What every line starts with (default "[db]"). */
  tag?: string;
  /** What the "back" line says of the new one besides the try ("pid 1234"). */
  detail?(current: T): string;
  /** It is back (after the "back" line). */
  onBack?(current: T): void;
  /**
   * A failed try whose reason time may clear (a full disk: exiting would not cure it): the condition in a few words.
   * Such tries are not counted against `restarts`; they go on, at most MAX_DELAY_MS apart, until one succeeds.
   */
  waitFor?(reason: string): string | undefined;
}

export interface Supervisor {
  status(): DatabaseStatus;
  /** Stops watching, then stops PostgreSQL (a death after this is not restarted). */
  stop(): Promise<void>;
}

const MAX_DELAY_MS = 30_000;

export function supervise<T extends Supervised>(first: T, options: SupervisorOptions<T>): Supervisor {
  const words = options.words ?? EMBEDDED_WORDS;
  const tag = options.tag ?? '[db]';
  let current = first;
  let stopping = false;
  let status: DatabaseStatus = { state: 'up' };
  let wake: (() => void) | undefined;

  const pause = (ms: number) =>
    new Promise<void>((done) => {
      const timer = setTimeout(done, ms);
      wake = () => (clearTimeout(timer), done());
    });

  const watch = (watched: T) => {
    void watched.exited.then((how) => {
      if (!stopping) void restart(how);
    });
  };

  const restart = async (how: string) => {
    console.error(`${tag} ${words.subject} ${words.lost} (${how}); ${words.retrying}.`);
    let reason = 'no try was allowed (EMBEDDED_PG_RESTARTS=0)';
    let waitingFor: string | undefined;
    let pauses = 0;
    for (let attempt = 1; attempt <= options.restarts;) {
      status = {
        state: 'restarting',
        attempt,
        attempts: options.restarts,
        ...(waitingFor !== undefined && { reason: waitingFor }),
      };
      await pause(Math.min(options.delayMs * 2 ** pauses++, MAX_DELAY_MS));
      if (stopping) return;
      try {
        current = await options.start();
      } catch (error) {
        reason = error instanceof Error ? error.message : String(error);
        const condition = options.waitFor?.(reason);
        if (condition !== undefined) {
          // Said once (its cause first), not every try: the tries go on until it clears.
          if (waitingFor !== condition) {
            console.error(
              `${tag} ${words.subject} ${words.notBack}: ${condition}; trying again until that changes ` +
                `(every ${MAX_DELAY_MS / 1000} s at most). ${reason}`,
            );
          }
          waitingFor = condition;
          continue;
        }
        waitingFor = undefined;
        console.error(`${tag} Try ${attempt} of ${options.restarts} failed: ${reason}`);
        attempt++;
        continue;
      }
      if (stopping) return void (await current.stop());
      status = { state: 'up' };
      const detail = options.detail ? `${options.detail(current)}, ` : '';
      console.log(`${tag} ${words.subject} ${words.back} (${detail}try ${attempt} of ${options.restarts}).`);
      watch(current);
      options.onBack?.(current);
      return;
    }
    status = { state: 'down' };
    options.onGiveUp(
      `${words.subject} ${words.lost} (${how}) and ${words.notBack} after ${options.restarts} ` +
        `${options.restarts === 1 ? 'try' : 'tries'} (${reason}); exiting so that the process is restarted.`,
    );
  };

  watch(first);
  return {
    status: () => status,
    async stop() {
      stopping = true;
      wake?.();
      await current.stop();
    },
  };
}
