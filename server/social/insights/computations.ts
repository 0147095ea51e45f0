// Each dashboard's answer from its resolved scope and body: what its route computes (routes.ts) and what a shared
// view of it computes (server/sharing). The analytics store is read as it is when asked: it is started after the app
// is built (server/main.ts).
import type { FastifyInstance } from 'fastify';
import type * as z from 'zod/mini';
import type { Dashboard, INSIGHT_DASHBOARDS } from '@contract/insights-dashboards';
import type { Db } from '@server/db/database';
import { conversation } from './conversation';
import { overview } from './overview';
import { people, profileList } from './people';
import { performance } from './performance';
import { postList } from './posts';
import type { InsightScope } from './request';

export type DashboardBody<D extends Dashboard> = z.output<(typeof INSIGHT_DASHBOARDS)[D]['body']>;
export type DashboardAnswer<D extends Dashboard> = z.output<(typeof INSIGHT_DASHBOARDS)[D]['response']>;

export type DashboardComputations = {
  [D in Dashboard]: (db: Db, context: InsightScope, body: DashboardBody<D>) => Promise<DashboardAnswer<D>>;
};

/** What the body holds beyond the scope (sort, limit, the opened cursor): part of the answer cache's key. */
export function extraOf(body: Record<string, unknown>): Record<string, unknown> {
  const { workspace_id: _w, saved_query_id: _s, query: _q, filters: _f, refine: _r, ...extra } = body;
  return extra;
}

export function dashboardComputations(app: FastifyInstance): DashboardComputations {
  const store = () => app.deps.analytics;
  return {
    overview: (db, context) => overview(db, context, store()),
    posts: (db, context, body) => postList(db, context, body, store()),
    people: (db, context, body) => people(db, context, body.limit, store()),
    performance: (db, context) => performance(db, context, store()),
    conversation: (db, context, body) => conversation(db, context, body.limit, undefined, store()),
    'filtered-posts': (db, context, body) => postList(db, context, body, store()),
    'filtered-profiles': (db, context, body) => profileList(db, context, body, store()),
  };
}
