// POST /social/insights/drivers ("Why this spike"), registered by routes.ts inside the insights plugin: its hooks
// (signed in, admission, the dashboards' rate limit) and its answers (the cache, the admission slot, where reads go)
// are the dashboards'. Any member of the workspace may read it; it counts as one dashboard request of the month.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { serializerCompiler } from 'fastify-type-provider-zod';
import * as z from 'zod/mini';
import { driversBodySchema, driversResponseSchema } from '@contract/insights-drivers';
import { errorResponseSchema } from '@contract/errors';
import { invalidQueryErrorSchema } from '@contract/social-query';
import { bearer, errorResponses } from '@server/openapi';
import { workspaceAccessOf, type WorkspaceRequirement } from '@server/workspaces/route-access';
import type { InsightScope } from './request';
import type { dashboardAnswers } from './dashboard-answer';
import { drivers, DRIVER_MIN_POSTS, BASELINE_DAYS } from './drivers';
import { READ_HEADERS_DOC } from '../reads';
import { inLane } from '../lane';
import type { Lane } from '../lane';

type App = Parameters<FastifyPluginAsyncZod>[0];

interface DriversRouteDeps {
  planScope: (
    workspace: ReturnType<typeof workspaceAccessOf>['workspace'],
    body: z.output<typeof driversBodySchema>,
    metric: 'dashboard_requests_per_month',
  ) => Promise<InsightScope>;
  answers: ReturnType<typeof dashboardAnswers>;
  lane: Lane;
  workspace: WorkspaceRequirement;
}

export function driversRoute(app: App, { planScope, answers, lane, workspace: access }: DriversRouteDeps) {
  const url = '/insights/drivers';
  const serialize = serializerCompiler({
    schema: driversResponseSchema,
    method: 'POST',
    url,
    httpStatus: '200',
  });
  app.post(
    url,
    {
      config: { workspace: access },
      schema: {
        tags: ['social', 'insights'],
        security: bearer,
        summary: 'Why this spike: what accounts for a window’s posts beyond its baseline, by exact counts',
        description:
          "Body: the overview's (workspace_id, saved_query_id or query, filters, refine), its filters' from and to " +
          'naming the window (a spike’s bucket or a selected range), and limit (drivers listed, default 10). The ' +
          `baseline is the same hours of the ${BASELINE_DAYS} days before a window of a day or less, else the range ` +
          'of equal length before it. Drivers: words, hashtags, mentions, authors, link domains, platforms, ' +
          `languages and sentiment labels in at least ${DRIVER_MIN_POSTS} posts of the window and over-represented ` +
          'in it, each with its posts, baseline posts, expected posts, lift, share of the excess and G², ranked by ' +
          "G²; and the first driver's top posts. Errors, limits and caching as the dashboards'. " +
          READ_HEADERS_DOC,
        body: driversBodySchema,
        response: {
          200: driversResponseSchema,
          ...errorResponses(404, 409, 429),
          400: z.union([invalidQueryErrorSchema, errorResponseSchema]),
          503: errorResponseSchema,
        },
      },
      onRequest: inLane(lane),
    },
    async (request, reply) => {
      const { workspace } = workspaceAccessOf(request);
      const body = request.body;
      const context = await planScope(workspace, body, 'dashboard_requests_per_month');
      return answers.send(request, reply, {
        endpoint: url,
        workspaceId: workspace.id,
        context,
        extra: { limit: body.limit },
        compute: (db) => drivers(db, context, body.limit, app.deps.analytics),
        serialize,
      });
    },
  );
}
