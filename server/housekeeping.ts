// Periodic clean-up in the server process (npm start): rows nothing can use any more are deleted, so tables that
// grow with every sign-in stay proportional to what is live. Each task is idempotent and safe to run at any time,
// and several servers on one database may run them side by side.
import type { Db } from './db/database';
import { purgeEndedFamilies } from './auth/refresh-tokens';
import { purgeOldMisses } from './invites/guessing';
import { maintainPartitions } from './social/corpus/partitions';

const HOUSEKEEPING_EVERY_MS = 60 * 60 * 1000;

export interface Housekeeping {
  /** One round now (also what the timer runs); resolves when it is done. */
  run(): Promise<void>;
  stop(): void;
}

export function startHousekeeping(
  db: Db,
  options: { everyMs?: number; log?: (message: string) => void; corpusRetentionDays?: number } = {},
): Housekeeping {
  const { everyMs = HOUSEKEEPING_EVERY_MS, log = console.log, corpusRetentionDays = 0 } = options;
  let running: Promise<void> | null = null;
  const run = () => {
    running ??= (async () => {
      try {
        const tokens = await purgeEndedFamilies(db);
        if (tokens > 0) log(`Housekeeping: deleted ${tokens} refresh tokens of ended sign-ins.`);
        const misses = await purgeOldMisses(db);
        if (misses > 0) log(`Housekeeping: deleted ${misses} wrong join codes older than a day.`);
        const partitions = await maintainPartitions(db, corpusRetentionDays);
        if (partitions.created > 0)
          log(`Housekeeping: made ${partitions.created} monthly partitions of posts ahead.`);
        if (partitions.dropped.length > 0) {
          log(`Housekeeping: retention dropped the posts of ${partitions.dropped.join(', ')}.`);
        }
      } catch (error) {
        // A failed round (the database restarting, say) is retried at the next; it never stops the server.
        log(
          `Housekeeping failed, retrying in ${Math.round(everyMs / 60_000)} min: ${(error as Error).message}`,
        );
      } finally {
        running = null;
      }
    })();
    return running;
  };
  const timer = setInterval(() => void run(), everyMs);
  timer.unref();
  void run();
  return { run, stop: () => clearInterval(timer) };
}
