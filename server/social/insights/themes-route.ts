// POST /social/insights/themes (themes of a range), registered by routes.ts inside the insights plugin: its hooks
// (signed in, admission, the dashboards' rate limit) and its answers (the cache, the admission slot, where reads go)
// are the dashboards'. explainRoutes registers it with POST /social/insights/drivers. Any member of the workspace may read it; it counts as one dashboard request of the month.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { serializerCompiler } from 'fastify-type-provider-zod';
import * as z from 'zod/mini';
import { themesBodySchema, themesResponseSchema } from '@contract/insights-themes';
import { errorResponseSchema } from '@contract/errors';
import { invalidQueryErrorSchema } from '@contract/social-query';
import { bearer, errorResponses } from '@server/openapi';
import { workspaceAccessOf, type WorkspaceRequirement } from '@server/workspaces/route-access';
import type { InsightScope } from './request';
import type { dashboardAnswers } from './dashboard-answer';
import { driversRoute } from './drivers-route';
import { MIN_PAIR_POSTS } from './theme-graph';
import { themes, THEME_WORDS } from './themes';
import { READ_HEADERS_DOC } from '../reads';
import { inLane } from '../lane';
import type { Lane } from '../lane';

type App = Parameters<FastifyPluginAsyncZod>[0];

interface ThemesRouteDeps {
  planScope: (
    workspace: ReturnType<typeof workspaceAccessOf>['workspace'],
    body: z.output<typeof themesBodySchema>,
    metric: 'dashboard_requests_per_month',
  ) => Promise<InsightScope>;
  answers: ReturnType<typeof dashboardAnswers>;
  lane: Lane;
  workspace: WorkspaceRequirement;
}

function themesRoute(app: App, { planScope, answers, lane, workspace: access }: ThemesRouteDeps) {
  const url = '/insights/themes';
  const serialize = serializerCompiler({
    schema: themesResponseSchema,
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
        summary: 'Themes of a range: its frequent words grouped by how they occur together, by exact counts',
        description:
          "Body: the overview's (workspace_id, saved_query_id or query, filters, refine) and limit (themes listed, " +
          `default 8, at most 20). The range's ${THEME_WORDS} most frequent words (as the conversation counts them, ` +
          `each in at least ${MIN_PAIR_POSTS} posts), linked when they occur together beyond chance (weighted by ` +
          'the Jaccard index of their posts), grouped by a deterministic Louvain community detection. Each theme: ' +
          'its words, its posts (any of its words: the `term` refinement with them), their volume per bucket, ' +
          'sentiment, top posts, and its posts in the range before with the ratio. Errors, limits and caching as ' +
          "the dashboards'. " +
          READ_HEADERS_DOC,
        body: themesBodySchema,
        response: {
          200: themesResponseSchema,
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
        compute: (db) => themes(db, context, body.limit, app.deps.analytics),
        serialize,
      });
    },
  );
}

/** The explanations' routes: why a spike (drivers-route.ts) and the themes of a range. */
export function explainRoutes(app: App, deps: ThemesRouteDeps & Parameters<typeof driversRoute>[1]) {
  driversRoute(app, deps);
  themesRoute(app, deps);
}
