// The posts' monthly partitions over time (migration 0016): the coming months made ahead, so that the ingestion path
// rarely makes one itself (creating a partition locks the posts table briefly), and, with CORPUS_RETENTION_DAYS, the
// months wholly older than the retention dropped with their rollups and keys. Run by the server's housekeeping.
import { sql } from 'drizzle-orm';
import type { Db } from '@server/db/database';
import type { Catalogue } from '@server/billing/plans';

/** Months made ahead of the current one. */
const MONTHS_AHEAD = 2;
/** A partition's creation or detachment waits at most this long for the dashboards reading posts; else next round. */
const LOCK_TIMEOUT = '2s';

export interface PartitionRound {
  created: number;
  dropped: string[];
}

/** One round: the coming months' partitions, then retention (days; 0 keeps every month). */
export async function maintainPartitions(
  db: Db,
  retentionDays: number,
  now = new Date(),
): Promise<PartitionRound> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`SELECT set_config('lock_timeout', ${LOCK_TIMEOUT}, true)`);
    const made = await tx.execute<{ created: boolean }>(
      sql`SELECT posts_partition_ensure(date_add(${now.toISOString()}::timestamptz, make_interval(months => n), 'UTC'))
            AS created FROM generate_series(0, ${MONTHS_AHEAD}::int) n`,
    );
    let dropped: string[] = [];
    if (retentionDays > 0) {
      const cutoff = new Date(now.getTime() - retentionDays * 86_400_000);
      const result = await tx.execute<{ name: string }>(
        sql`SELECT posts_partitions_drop_before(${cutoff.toISOString()}::timestamptz) AS name`,
      );
      dropped = result.rows.map((row) => row.name);
    }
    return { created: made.rows.filter((row) => row.created).length, dropped };
  });
}

/**
 * CORPUS_RETENTION_DAYS must keep every day a plan shows (its history_days): a shorter retention would leave a
 * paying workspace's history with a hole. Returns why it is refused, or null.
 */
export function retentionProblem(retentionDays: number, catalogue: Catalogue): string | null {
  if (retentionDays === 0) return null;
  const plans = [catalogue.trial, ...catalogue.paid];
  const longest = plans.reduce((best, plan) =>
    (plan.limits.history_days ?? Infinity) > (best.limits.history_days ?? Infinity) ? plan : best,
  );
  const days = longest.limits.history_days ?? Infinity;
  if (retentionDays >= days) return null;
  return (
    `CORPUS_RETENTION_DAYS=${retentionDays} is shorter than the ${longest.name} plan's history ` +
    `(${Number.isFinite(days) ? `${days} days` : 'unlimited'}): set it to at least that, or 0 to keep every month.`
  );
}
