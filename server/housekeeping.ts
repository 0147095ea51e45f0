// Periodic clean-up (an hourly job of server/scheduler.ts): rows nothing can use any more are deleted, so tables that
// grow with every sign-in stay proportional to what is live, and the posts' monthly partitions are made ahead and
// dropped past the retention. Each task is idempotent and safe to run at any time.
import type { Db } from './db/database';
import { purgeEndedFamilies } from './auth/refresh-tokens';
import { purgeOldMisses } from './invites/guessing';
import type { PeriodicJob } from './scheduler';
import { maintainPartitions } from './social/corpus/partitions';

interface HousekeepingOptions {
  log?: (message: string) => void;
  corpusRetentionDays?: number;
}

/** One round of every clean-up task. */
export async function runHousekeeping(db: Db, options: HousekeepingOptions = {}): Promise<void> {
  const { log = console.log, corpusRetentionDays = 0 } = options;
  const tokens = await purgeEndedFamilies(db);
  if (tokens > 0) log(`Housekeeping: deleted ${tokens} refresh tokens of ended sign-ins.`);
  const misses = await purgeOldMisses(db);
  if (misses > 0) log(`Housekeeping: deleted ${misses} wrong join codes older than a day.`);
  const partitions = await maintainPartitions(db, corpusRetentionDays);
  if (partitions.created > 0) log(`Housekeeping: made ${partitions.created} monthly partitions of posts ahead.`);
  if (partitions.dropped.length > 0) {
    log(`Housekeeping: retention dropped the posts of ${partitions.dropped.join(', ')}.`);
  }
}

/** Every hour, at five past. */
export const housekeepingJob = (db: Db, options: HousekeepingOptions = {}): PeriodicJob => ({
  name: 'housekeeping',
  cron: '5 * * * *',
  run: () => runHousekeeping(db, options),
});
