// Where the heavy requests run (issue 17 item 9): the analytics pool, the admission control that bounds how many
// compute at once and how many wait (admission.ts), and the dashboards' answer cache (insights/answer-cache.ts).
// One per app (buildApp decorates it as `app.analytics`).
import type { AppDeps } from '../app';
import type { Db } from '../db/database';
import { Admission } from './admission';
import { AnswerCache, corpusVersionOf } from './insights/answer-cache';

export interface Analytics {
  db: Db;
  admission: Admission;
  cache: AnswerCache;
}

export function createAnalytics(deps: Pick<AppDeps, 'db' | 'analyticsDb' | 'config'>): Analytics {
  const { config } = deps;
  return {
    db: deps.analyticsDb ?? deps.db,
    admission: new Admission({
      slots: config.ANALYTICS_SLOTS,
      queue: config.ANALYTICS_QUEUE,
      maxWaitMs: config.ANALYTICS_QUEUE_WAIT_MS,
    }),
    // The version is read on the light pool: a cached answer is served while every analytics slot is taken.
    cache: new AnswerCache({
      maxBytes: config.ANSWER_CACHE_MB * 1024 * 1024,
      readVersion: corpusVersionOf(deps.db),
    }),
  };
}
