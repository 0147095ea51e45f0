// One analytics store per database. Two servers on one PostgreSQL (each with its own DATA_DIR), or a server and
// `npm run analytics:rebuild`, would each apply the outbox and trim it for the other. So the process that runs the
// store holds a session-level advisory lock on a connection of its own for as long as it feeds the store, and draws an
// owner token that it writes into analytics_consumer when it registers: markApplied() records a position only for
// that owner (ConsumerTakenOver otherwise), which fences off a process whose lock went with a lost connection while
// another took the store over. The others answer figures_unavailable, and take the store over when the lock is free.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { TAG } from './open';

/** The advisory lock's keys (the two-int4 form): 'murm' and 1, the analytics store. */
const KEYS = [0x6d75726d, 1] as const;

export interface StoreLock {
  /** This holder's token (analytics_consumer.owner once it registers). */
  readonly owner: string;
  /** Whether the lock is still held (false once its connection is lost or it is released). */
  held(): boolean;
  /** Called once if the connection holding the lock is lost: the lock is gone with it. */
  onLost(listener: (error: Error) => void): void;
  release(): Promise<void>;
}

/** Who holds the lock, in words (its process id and application name), or null when nobody does. */
async function storeLockHolder(client: pg.ClientBase): Promise<string | null> {
  const { rows } = await client.query<{ pid: number; application_name: string }>(
    `SELECT a.pid, a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.classid = $1::int::oid AND l.objid = $2::int::oid AND l.objsubid = 2
        AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [...KEYS],
  );
  const row = rows[0];
  return row ? `PostgreSQL backend ${row.pid} (${row.application_name || 'no application name'})` : null;
}

/**
 * Takes the store's lock on a connection of its own made with the pool's settings; when another process holds it,
 * returns who does instead.
 */
export async function takeStoreLock(
  pool: pg.Pool,
  applicationName: string,
): Promise<{ lock: StoreLock } | { heldBy: string }> {
  const client = new pg.Client({ ...pool.options, application_name: applicationName });
  let held = false;
  let lostWith: Error | null = null;
  const listeners: Array<(error: Error) => void> = [];
  const lose = (error: Error) => {
    if (!held) return;
    held = false;
    lostWith = error;
    for (const listener of listeners.splice(0)) listener(error);
  };
  client.on('error', (error) => lose(error));
  client.on('end', () => lose(new Error('The connection holding the analytics store lock ended')));
  await client.connect();
  try {
    const { rows } = await client.query<{ got: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS got', [
      ...KEYS,
    ]);
    if (!rows[0]?.got) {
      const heldBy = (await storeLockHolder(client)) ?? 'a process that has just let it go';
      await client.end();
      return { heldBy };
    }
  } catch (error) {
    await client.end().catch(() => {});
    throw error;
  }
  held = true;
  const owner = randomUUID();
  return {
    lock: {
      owner,
      held: () => held,
      onLost(listener) {
        if (lostWith) listener(lostWith);
        else if (held) listeners.push(listener);
      },
      async release() {
        held = false;
        listeners.length = 0;
        await client.end().catch(() => {});
      },
    },
  };
}

/**
 * The store's lock, taken; while another process holds it (or it cannot be taken), `standingBy` is called, said once
 * in the log, and it is tried again every `retryMs`. Null once `stopped`.
 */
export async function standByForLock(
  pool: pg.Pool,
  options: { stopped(): boolean; standingBy(): void; retryMs: number; log(line: string): void },
): Promise<StoreLock | null> {
  let said = false;
  while (!options.stopped()) {
    const taken = await takeStoreLock(pool, 'murmur analytics store').catch((error: unknown) => ({
      failed: error instanceof Error ? error.message : String(error),
    }));
    if ('lock' in taken) {
      if (said) options.log(`${TAG} The analytics store's lock is free: this server runs the store now.`);
      return taken.lock;
    }
    options.standingBy();
    if (!said) {
      options.log(
        'heldBy' in taken
          ? `${TAG} Another process runs the analytics store of this database (${taken.heldBy}): this server ` +
              'answers figures_unavailable, and runs the store when that one stops.'
          : `${TAG} Could not take the analytics store's lock (${taken.failed}); trying again.`,
      );
      said = true;
    }
    await new Promise((resolve) => setTimeout(resolve, options.retryMs).unref());
  }
  return null;
}
