// The explanations' routes, registered by routes.ts inside the insights plugin: POST /social/insights/drivers (why
// this spike) and POST /social/insights/themes (themes of a range). Their hooks (signed in, admission, the dashboards'
// rate limit) and answers (the cache, the admission slot, where reads go) are the dashboards'. Any member of the
// workspace may read them; each call counts as one dashboard request of the month.
import type { FastifyTypeProviderDefault } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { serializerCompiler } from 'fastify-type-provider-zod';
import * as z from 'zod/mini';
import { driversBodySchema, driversResponseSchema } from '@contract/insights-drivers';
import { themesBodySchema, themesResponseSchema } from '@contract/insights-themes';
import { categoryBreakdownBodySchema, categoryBreakdownResponseSchema } from '@contract/insights-categories';
import { insightsBodySchema } from '@contract/insights';
import { errorResponseSchema } from '@contract/errors';
import { invalidQueryErrorSchema } from '@contract/social-query';
import type { Db } from '@server/db/database';
import { bearer, errorResponses } from '@server/openapi';
import { workspaceAccessOf, type WorkspaceRequirement } from '@server/workspaces/route-access';
import type { InsightScope } from './request';
import type { dashboardAnswers } from './dashboard-answer';
import { BASELINE_DAYS, DRIVER_MIN_POSTS, drivers } from './drivers';
import { categoryBreakdown } from './categories';
import { MIN_PAIR_POSTS } from './theme-graph';
import { themes, THEME_WORDS } from './themes';
import { READ_HEADERS_DOC } from '../reads';
import { inLane, type Lane } from '../lane';

type App = Parameters<FastifyPluginAsyncZod>[0];

interface ExplainRouteDeps {
  planScope: (
    workspace: ReturnType<typeof workspaceAccessOf>['workspace'],
    body: z.output<typeof insightsBodySchema>,
    metric: 'dashboard_requests_per_month',
  ) => Promise<InsightScope>;
  answers: ReturnType<typeof dashboardAnswers>;
  lane: Lane;
  workspace: WorkspaceRequirement;
}

/** One explanation: a dashboard's body with a limit, its answer computed as a dashboard's is. */
function explainRoute<B extends z.ZodMiniType<z.output<typeof insightsBodySchema> & { limit: number }>, R>(
  app: App,
  { planScope, answers, lane, workspace: access }: ExplainRouteDeps,
  route: {
    url: string;
    summary: string;
    description: string;
    body: B;
    response: z.ZodMiniType<R>;
    compute: (db: Db, context: InsightScope, body: z.output<B>) => Promise<R>;
    /** What of the body besides the scope the answer depends on (the answer cache's key): its limit by default. */
    extra?: (body: z.output<B>) => Record<string, unknown>;
  },
) {
  const { url } = route;
  const serialize = serializerCompiler({ schema: route.response, method: 'POST', url, httpStatus: '200' });
  // The body's type is the route's B, which Fastify's inference cannot follow through a generic schema.
  app.withTypeProvider<FastifyTypeProviderDefault>().post(
    url,
    {
      config: { workspace: access },
      schema: {
        tags: ['social', 'insights'],
        security: bearer,
        summary: route.summary,
        description: `${route.description} Errors, limits and caching as the dashboards'. ${READ_HEADERS_DOC}`,
        body: route.body,
        response: {
          200: route.response,
          ...errorResponses(404, 409, 429),
          400: z.union([invalidQueryErrorSchema, errorResponseSchema]),
          503: errorResponseSchema,
        },
      },
      onRequest: inLane(lane),
    },
    async (request, reply) => {
      const { workspace } = workspaceAccessOf(request);
      const body = request.body as z.output<B>;
      const context = await planScope(workspace, body, 'dashboard_requests_per_month');
      return answers.send(request, reply, {
        endpoint: url,
        workspaceId: workspace.id,
        context,
        extra: route.extra?.(body) ?? { limit: body.limit },
        compute: (db) => route.compute(db, context, body),
        serialize,
      });
    },
  );
}

/** Why this spike (drivers.ts) and the themes of a range (themes.ts). */
export function explainRoutes(app: App, deps: ExplainRouteDeps) {
  explainRoute(app, deps, {
    url: '/insights/drivers',
    summary: 'Why this spike: what accounts for a window’s posts beyond its baseline, by exact counts',
    description:
      "Body: the overview's (workspace_id, saved_query_id or query, filters, refine), its filters' from and to " +
      'naming the window (a spike’s bucket or a selected range), and limit (drivers listed, default 10). The ' +
      `baseline is the same wall-clock hours (in the workspace's time zone) of the ${BASELINE_DAYS} days before a ` +
      'window of a day or less on the clock, else the range of equal length before it. Drivers: words, hashtags, mentions, authors, link domains, platforms, ' +
      `languages and sentiment labels in at least ${DRIVER_MIN_POSTS} posts of the window and over-represented ` +
      'in it, each with its posts, baseline posts, expected posts, lift, share of the excess and G², ranked by ' +
      "G²; and the first driver's top posts.",
    body: driversBodySchema,
    response: driversResponseSchema,
    compute: (db, context, { limit }) => drivers(db, context, limit, app.deps.analytics),
  });
  explainRoute(app, deps, {
    url: '/insights/themes',
    summary: 'Themes of a range: its frequent words grouped by how they occur together, by exact counts',
    description:
      "Body: the overview's (workspace_id, saved_query_id or query, filters, refine) and limit (themes listed, " +
      `default 8, at most 20). The range's ${THEME_WORDS} most frequent words (as the conversation counts them, ` +
      `each in at least ${MIN_PAIR_POSTS} posts), linked when they occur together beyond chance (weighted by ` +
      'the Jaccard index of their posts), grouped by a deterministic Louvain community detection. Each theme: ' +
      'its words, its posts (any of its words: the `term` refinement with them), their volume per bucket, ' +
      'sentiment, top posts, and its posts in the range before with the ratio.',
    body: themesBodySchema,
    response: themesResponseSchema,
    compute: (db, context, { limit }) => themes(db, context, limit, app.deps.analytics),
  });
  explainRoute(app, deps, {
    url: '/insights/categories',
    summary:
      "A dashboard broken down by a category: the scope's posts per tag of the category, and the untagged",
    description:
      "Body: the overview's (workspace_id, saved_query_id or query, filters, refine), category_id (one of the " +
      "workspace's categories: 404 category_not_found otherwise) and limit (tags listed, default and most 100). Each " +
      'tag: the posts of the scope that carry it now (by a person, or by a rule and not removed by a person) and its ' +
      "share of the scope's posts; a post is counted under each of its tags. Then the scope's posts, those with " +
      'any of the tags and those with none. Each tag is a drill-down: the `tag` refinement with its id.',
    body: categoryBreakdownBodySchema,
    response: categoryBreakdownResponseSchema,
    extra: ({ category_id, limit }) => ({ category_id, limit }),
    compute: (db, context, body) =>
      categoryBreakdown(db, context, body.workspace_id, body.category_id, body.limit, app.deps.analytics),
  });
}
