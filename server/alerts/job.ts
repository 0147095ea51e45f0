// The alerts' jobs on the process's queue (server/scheduler.ts): evaluating the rules (every minute, for the rules
// whose window turns with the clock, and nudged after the analytics store applies a batch of new posts), sending
// the deliveries (every minute, for retries, and nudged after an evaluation fired), and the scheduled digests (every
// minute: server/digests/send.ts). Each is a 'stately' queue: one
// round runs at a time across every process on the database, and a nudge while one waits is dropped.
import type { PgBoss } from 'pg-boss';
import type { AnalyticsService } from '@server/analytics/service';
import type { Db } from '@server/db/database';
import type { PeriodicJob } from '@server/scheduler';
import { deliverDue, type DeliveryDeps } from './deliver';
import { evaluateAlerts } from './evaluate';
import { runDigests } from '@server/digests/send';

const EVALUATE_QUEUE = 'alerts-evaluate';
const DELIVER_QUEUE = 'alerts-deliver';
const DIGESTS_QUEUE = 'digests-send';
/** Nudges from applied batches at most this often: a steady import would otherwise queue one per round. */
const NUDGE_EVERY_MS = 5_000;

export interface AlertJobDeps extends Omit<DeliveryDeps, 'db'> {
  db: Db;
  /** The analytics pool's database (the dashboards' reads). */
  analyticsDb: Db;
  analytics: () => AnalyticsService | undefined;
  boss: () => PgBoss | undefined;
  /** Signs the digest e-mails' unsubscribe links. */
  digestUnsubscribeKey: Uint8Array;
  log?: (message: string) => void;
}

export function alertJobs(deps: AlertJobDeps): PeriodicJob[] {
  const log = deps.log ?? console.log;
  return [
    {
      name: EVALUATE_QUEUE,
      cron: '* * * * *',
      timeoutSeconds: 10 * 60,
      run: async () => {
        const result = await evaluateAlerts({ db: deps.analyticsDb, analytics: deps.analytics(), log });
        if (result.fired) {
          log(`Alerts: ${result.fired} rule${result.fired === 1 ? '' : 's'} fired.`);
          await deps.boss()?.send(DELIVER_QUEUE, null);
        }
      },
    },
    {
      // Scheduled digests (server/digests/send.ts): each period written once, then sent.
      name: DIGESTS_QUEUE,
      cron: '* * * * *',
      timeoutSeconds: 10 * 60,
      run: async () => {
        const round = await runDigests({
          db: deps.db,
          analyticsDb: deps.analyticsDb,
          analytics: deps.analytics(),
          mailer: deps.mailer,
          appUrl: deps.appUrl,
          unsubscribeKey: deps.digestUnsubscribeKey,
        });
        if (round.sent || round.failed) log(`Digests: ${round.sent} sent, ${round.failed} failed.`);
      },
    },
    {
      name: DELIVER_QUEUE,
      cron: '* * * * *',
      timeoutSeconds: 10 * 60,
      run: async () => {
        const round = await deliverDue(deps);
        if (round.failed) log(`Alerts: ${round.failed} deliveries failed (${round.gaveUp} given up).`);
      },
    },
  ];
}

/** Sends the evaluation job now (a nudge: dropped while one already waits). */
export const evaluateNow = async (boss: PgBoss): Promise<void> => {
  await boss.send(EVALUATE_QUEUE, null);
};

/**
 * Evaluates the rules after the store applies new posts: at once, or, within NUDGE_EVERY_MS of the last nudge, once
 * that time is up (the last batch of a burst is never left to the minute's round). Returns the unsubscription.
 */
export function evaluateAfterBatches(service: AnalyticsService, boss: PgBoss): () => void {
  let last = 0;
  let timer: NodeJS.Timeout | null = null;
  const nudge = () => {
    timer = null;
    last = Date.now();
    evaluateNow(boss).catch(() => {});
  };
  const off = service.onApplied(() => {
    if (timer) return;
    const wait = last + NUDGE_EVERY_MS - Date.now();
    if (wait <= 0) nudge();
    else timer = setTimeout(nudge, wait).unref();
  });
  return () => {
    off();
    if (timer) clearTimeout(timer);
  };
}
