// Watches the embedded PostgreSQL under a running server. When it dies (killed, out of memory, a crash), it is started
// again on the same data after a pause that doubles each try (EMBEDDED_PG_RESTART_DELAY_MS, at most 30 s), up to
// EMBEDDED_PG_RESTARTS tries; while it is away the server answers 503 (GET /api/health says "restarting"). When every
// try failed the server gives up with one line and a non-zero exit code, so that what supervises the process (systemd,
// a container's restart policy) starts it again from scratch. A PostgreSQL that comes back after the pool's
// connections broke needs nothing more: the pools open new connections on the next query.
import type { PostgresProcess } from './postgres-process';

/** What GET /api/health reports of the database. */
type DatabaseState = 'up' | 'restarting' | 'down';

export interface DatabaseStatus {
  state: DatabaseState;
  /** While restarting: the try under way (or waited for), and how many there may be. */
  attempt?: number;
  attempts?: number;
}

export interface SupervisorOptions {
  /** Tries after a death before giving up (0: give up at once). */
  restarts: number;
  /** The pause before the first try; each next one waits twice as long, at most MAX_DELAY_MS. */
  delayMs: number;
  /** Starts PostgreSQL again on the same data (a stale postmaster.pid is the starter's to clear). */
  start(): Promise<PostgresProcess>;
  /** Every try failed: `line` says what happened and what comes next. */
  onGiveUp(line: string): void;
}

export interface Supervisor {
  status(): DatabaseStatus;
  /** Stops watching, then stops PostgreSQL (a death after this is not restarted). */
  stop(): Promise<void>;
}

const MAX_DELAY_MS = 30_000;

export function supervise(first: PostgresProcess, options: SupervisorOptions): Supervisor {
  let current = first;
  let stopping = false;
  let status: DatabaseStatus = { state: 'up' };
  let wake: (() => void) | undefined;

  const pause = (ms: number) =>
    new Promise<void>((done) => {
      const timer = setTimeout(done, ms);
      wake = () => (clearTimeout(timer), done());
    });

  const watch = (process: PostgresProcess) => {
    void process.exited.then((how) => {
      if (!stopping) void restart(how);
    });
  };

  const restart = async (how: string) => {
    console.error(`[db] The embedded PostgreSQL stopped (${how}); starting it again.`);
    let reason = 'no try was allowed (EMBEDDED_PG_RESTARTS=0)';
    for (let attempt = 1; attempt <= options.restarts; attempt++) {
      status = { state: 'restarting', attempt, attempts: options.restarts };
      await pause(Math.min(options.delayMs * 2 ** (attempt - 1), MAX_DELAY_MS));
      if (stopping) return;
      try {
        current = await options.start();
      } catch (error) {
        reason = error instanceof Error ? error.message : String(error);
        console.error(`[db] Try ${attempt} of ${options.restarts} failed: ${reason}`);
        continue;
      }
      if (stopping) return void (await current.stop());
      status = { state: 'up' };
      console.log(
        `[db] The embedded PostgreSQL runs again (pid ${current.pid}, try ${attempt} of ${options.restarts}).`,
      );
      watch(current);
      return;
    }
    status = { state: 'down' };
    options.onGiveUp(
      `The embedded PostgreSQL stopped (${how}) and did not start again after ${options.restarts} ` +
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
