// Where the heavy requests run: the analytics pool (or the read replicas' pools: reads.ts), the
// admission control that bounds how many compute at once and how many wait (admission.ts), and the dashboards' answer
// cache (insights/answer-cache.ts). One per app (buildApp decorates it as `app.analytics`).
import type pg from 'pg';
import { dashboardPath } from '@contract/insights-dashboards';
import type { ServerConfig } from '@server/config';
import type { Db, ReadReplica } from '@server/db/database';
import { rescanStatusReader } from './corpus/rescan-status';
import { Admission } from './admission';
import { AnswerCache, corpusVersionOf } from './insights/answer-cache';
import { Lane } from './lane';
import { ReadRouter } from './reads';

/**
 * Dashboard requests worked on at once past the door (lane.ts): enough to keep the look-ups of cached answers
 * overlapping with the database's replies, few enough that a light request never waits behind many.
 */
const DASHBOARD_LANE = 4;

export interface Analytics {
  /** Runs a read of the corpus where it should run: a replica or the primary's analytics pool. */
  reads: ReadRouter;
  admission: Admission;
  cache: AnswerCache;
  /** The dashboards' requests worked on at once, up to their answer or their wait for a slot. */
  lane: Lane;
  /** Per dashboard address, what its answer says beside its figures, read per request (insights/dashboard-answer.ts). */
  notes: Record<string, () => Promise<Record<string, unknown> | null>>;
}

export function createAnalytics(
  deps: { db: Db; analyticsDb?: Db; readReplicas?: ReadReplica[]; config: ServerConfig },
  log?: (message: string) => void,
): Analytics {
  const { config } = deps;
  // The version is read on the light pool (the primary's): a cached answer is served while every analytics slot is
  // taken, and a replica's answer is compared with what the primary has.
  const primaryVersion = corpusVersionOf(deps.db);
  const rescans = rescanStatusReader((deps.db as unknown as { $client: pg.Pool }).$client);
  const rescanNote = async () => {
    const rescan = await rescans.running();
    return rescan && { sentiment_rescan: rescan };
  };
  return {
    reads: new ReadRouter({
      primary: deps.analyticsDb ?? deps.db,
      replicas: deps.readReplicas ?? [],
      maxLagMs: config.DATABASE_READ_MAX_LAG_SECONDS * 1000,
      primaryVersion,
      log,
    }),
    admission: new Admission({
      slots: config.ANALYTICS_SLOTS,
      queue: config.ANALYTICS_QUEUE,
      maxWaitMs: config.ANALYTICS_QUEUE_WAIT_MS,
    }),
    cache: new AnswerCache({
      maxBytes: config.ANSWER_CACHE_MB * 1024 * 1024,
      readVersion: primaryVersion,
    }),
    lane: new Lane(DASHBOARD_LANE),
    notes: {
      // While the corpus is rescanned to a new sentiment model, the overview and the conversation (its words'
      // sentiment) say which model(s) counted it and how far the rescan is (corpus/rescan-status.ts), shared too.
      [`/${dashboardPath('overview')}`]: rescanNote,
      [`/${dashboardPath('conversation')}`]: rescanNote,
      '/shared/overview': rescanNote,
      '/shared/conversation': rescanNote,
    },
  };
}
