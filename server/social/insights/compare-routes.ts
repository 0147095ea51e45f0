// Compare's route, registered by routes.ts inside the insights plugin: POST /social/insights/compare (compare.ts), 2
// to 5 saved queries, or 2 to 5 tags within one saved query or every post, side by side. Its hooks (signed in, admission, the
// dashboards' rate limit) and answers (the cache, the admission slot, where reads go) are the dashboards'. Not in
// INSIGHT_DASHBOARDS: its body names several columns. Any member of the workspace may read it; one call is one
// dashboard request of the month's volume, however many columns.
import * as z from 'zod/mini';
import { serializerCompiler, type FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  compareBodySchema,
  compareResponseSchema,
  COMPARE_MAX,
  COMPARE_MIN,
} from '@contract/insights-compare';
import { errorResponseSchema } from '@contract/errors';
import { invalidQueryErrorSchema } from '@contract/social-query';
import type { Db } from '@server/db/database';
import { bearer, errorResponses } from '@server/openapi';
import { consumeMonthly, historyStart, limitsOf } from '@server/billing/limits';
import { workspaceAccessOf, type WorkspaceRequirement } from '@server/workspaces/route-access';
import type { Catalogue } from '@server/billing/plans';
import { READ_HEADERS_DOC } from '../reads';
import { inLane, type Lane } from '../lane';
import type { dashboardAnswers } from './dashboard-answer';
import { compare, compareKey, resolveCompare } from './compare';

type App = Parameters<FastifyPluginAsyncZod>[0];

interface CompareRouteDeps {
  /** The light pool: the columns' look-ups and the month's volume. */
  lightDb: Db;
  catalogue: Catalogue;
  answers: ReturnType<typeof dashboardAnswers>;
  lane: Lane;
  workspace: WorkspaceRequirement;
}

const DESCRIPTION =
  'Two modes, exactly one per body. Saved queries: workspace_id and saved_query_ids (' +
  `${COMPARE_MIN} to ${COMPARE_MAX} saved queries of the workspace, each once, in the order shown). Tags: ` +
  `workspace_id, tag_ids (${COMPARE_MIN} to ${COMPARE_MAX} tags of the workspace's categories, each once, in the ` +
  'order shown) and optional saved_query_id (the saved query the tags are compared in; without it, every post of ' +
  "the workspace); each tag is a column whose posts are that scope's posts carrying it. Either: optional filters, " +
  "which override each saved query's key by key (default range: the last 30 days), and refine (the dashboards' " +
  "refinements, a tag's too, on every column). Every figure of a column is its own overview's for the same saved " +
  "query (or every post), filters and refine (a tag's column: with its tag as one more refinement); mode says " +
  "which; share = its mentions ÷ the sum of every column's; overlap = the posts of the range in two or more of the " +
  'columns (matching two or more queries, carrying two or more tags), and per pair. 400 for both modes or neither, ' +
  'saved_query_id with saved_query_ids, fewer or more columns, one named twice, a stored query that no longer ' +
  'parses, or saved queries keeping different date ranges that the filters do not override (invalid_range); 404 ' +
  'for a workspace the caller is not a member of, a saved query not in it (not_found) or a tag not in it ' +
  '(tag_not_found); 429 rate_limited past SOCIAL_RATE_LIMIT_PER_MINUTE dashboard calls a minute by one account; ' +
  '503 insights_timeout past 10 s a statement; 503 busy with Retry-After when too many heavy requests are queued. ' +
  'Within the plan as for the dashboards: history_clip, 409 history_limit, and one call counts once against the ' +
  "month's dashboard volume (409 dashboard_volume_limit). May be cached. " +
  READ_HEADERS_DOC;

export function compareRoute(
  app: App,
  { lightDb, catalogue, answers, lane, workspace: access }: CompareRouteDeps,
) {
  const url = '/insights/compare';
  const serialize = serializerCompiler({
    schema: compareResponseSchema,
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
        summary:
          'Compare: share of voice over time, mentions against the previous period, sentiment, platforms, top ' +
          'authors and overlap of saved queries, or of tags within one saved query, side by side',
        description: DESCRIPTION,
        body: compareBodySchema,
        response: {
          200: compareResponseSchema,
          ...errorResponses(404, 409, 429),
          400: z.union([invalidQueryErrorSchema, errorResponseSchema]),
          503: errorResponseSchema,
        },
      },
      onRequest: inLane(lane),
    },
    async (request, reply) => {
      const { workspace } = workspaceAccessOf(request);
      // On the light pool, as planScope: the columns' look-ups, then the month's volume counted once.
      const { limits, planName } = limitsOf(catalogue, workspace.plan);
      const contexts = await resolveCompare(lightDb, workspace, request.body, {
        start: historyStart(limits),
        historyDays: limits.history_days,
        planName,
      });
      const context = contexts[0]!;
      await consumeMonthly(
        lightDb,
        { ...workspace, timeZone: context.timeZone },
        catalogue,
        'dashboard_requests_per_month',
      );
      return answers.send(request, reply, {
        endpoint: url,
        workspaceId: workspace.id,
        context,
        extra: compareKey(contexts),
        compute: (db) => compare(db, contexts, app.deps.analytics),
        serialize,
      });
    },
  );
}
