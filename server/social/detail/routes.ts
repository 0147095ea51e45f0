// The social API's post and profile pages; registered under /social by server/routes.ts. Any member of the workspace
// (viewer and up) may read them, under the dashboards' rules: a scope resolved as theirs (a saved query of the
// workspace or an ad-hoc query, filters, refinements), the plan's history (an older post is not found; a profile's
// range is clipped), a per-account rate limit and an admission slot on the analytics pool or a read replica. Neither
// counts against the month's dashboard volume: a post is one row, and the profile's posts list is filtered-posts,
// which does.
import rateLimit from '@fastify/rate-limit';
import * as z from 'zod/mini';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  postDetailBodySchema,
  postDetailResponseSchema,
  profileDetailBodySchema,
  profileDetailResponseSchema,
  type PostDetailResponse,
  type ProfileDetailResponse,
} from '@contract/social-detail';
import { invalidQueryErrorSchema } from '@contract/social-query';
import { errorResponseSchema } from '@contract/errors';
import { historyStart, limitsOf } from '@server/billing/limits';
import { bearer, errorResponses } from '@server/openapi';
import { workspaceAccessOf, type WorkspaceRequirement } from '@server/workspaces/route-access';
import { clientGone } from '../admission';
import { loadCorrections } from '../corrections';
import { clipToHistory, resolveInsightScope } from '../insights/request';
import { invalidQueryErrorHandler } from '@server/query/invalid-query';
import { perAccountLimit } from '../rate-limit';
import { READ_HEADERS_DOC, sayWhereRead } from '../reads';
import { usableTimeZone } from '@contract/zoned-time';
import { readPost } from './post';
import { readProfile } from './profile';

const tags = ['social'];
const anyMember: WorkspaceRequirement = { from: 'body', minimum: 'viewer' };
const responses = <T>(ok: T) => ({
  200: ok,
  ...errorResponses(404, 409, 429),
  400: z.union([invalidQueryErrorSchema, errorResponseSchema]),
  503: errorResponseSchema,
});
const ACCESS =
  '404 for a workspace the caller is not a member of; 429 rate_limited past SOCIAL_RATE_LIMIT_PER_MINUTE calls a ' +
  'minute by one account (a budget of its own); 503 busy with Retry-After when too many heavy requests are queued; ' +
  '503 figures_preparing with Retry-After while the analytics store prepares the figures (or has yet to hold the ' +
  'post), figures_unavailable when it cannot answer. ';

export const detailRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db: lightDb, config } = app.deps;
  const { reads, admission } = app.analytics;
  const { catalogue } = app.billing;

  // onRequest: a signed-out caller learns nothing, not even that their body was invalid.
  app.addHook('onRequest', app.requireUser);
  app.setErrorHandler(invalidQueryErrorHandler);
  await app.register(rateLimit, {
    global: true,
    ...perAccountLimit('detail', config.SOCIAL_RATE_LIMIT_PER_MINUTE).rateLimit,
  });

  app.post(
    '/posts/detail',
    {
      config: { workspace: anyMember },
      schema: {
        tags,
        security: bearer,
        summary: "One post: its text, metrics and author, and which of the view's query terms it matches",
        description:
          "Body: workspace_id, post_id, and the view's saved_query_id or query (optional). `matched` lists the " +
          "query's terms (each word, phrase, wildcard, hashtag, mention, field and NEAR, once; negated under a NOT) " +
          'and whether the post matches each and the whole query, evaluated as the search evaluates them. Which post ' +
          'a reply answers is not recorded in the corpus. 404 not_found for a post that does not exist or was posted ' +
          "before the oldest day of the plan's history; 400 for a malformed id or a query that does not parse. " +
          ACCESS +
          READ_HEADERS_DOC,
        body: postDetailBodySchema,
        response: responses(postDetailResponseSchema),
      },
    },
    async (request, reply): Promise<PostDetailResponse> => {
      const { workspace } = workspaceAccessOf(request);
      const body = request.body;
      const timeZone = usableTimeZone(workspace.timeZone);
      // The view's query resolved as a dashboard's (its saved query is the workspace's, its text parses).
      const withQuery = body.saved_query_id !== undefined || body.query !== undefined;
      const context = withQuery
        ? await resolveInsightScope(lightDb, workspace, {
            workspace_id: body.workspace_id,
            saved_query_id: body.saved_query_id,
            query: body.saved_query_id === undefined ? body.query : undefined,
          })
        : null;
      const { limits } = limitsOf(catalogue, workspace.plan);
      const corrections =
        context?.corrections ?? (await loadCorrections(lightDb, workspace.id, [body.post_id]));
      const read = await admission.run(
        () =>
          reads.read((db) =>
            readPost(
              db,
              {
                postId: body.post_id,
                since: historyStart(limits),
                query: context?.scope.query ?? null,
                timeZone,
                corrections,
              },
              app.deps.analytics,
            ),
          ),
        clientGone(reply.raw),
      );
      sayWhereRead(reads, reply, read);
      return { ...read.value, time_zone: timeZone };
    },
  );

  app.post(
    '/profiles/detail',
    {
      config: { workspace: anyMember },
      schema: {
        tags,
        security: bearer,
        summary: "One profile: who it is, and its posts and their engagement per day in the view's scope",
        description:
          "Body: a dashboard's (workspace_id, saved_query_id or query, filters, refine; default range: the last " +
          "30 days) and profile_id. days: every day of the range in the workspace's time zone, zero-filled; " +
          "totals: their sums. The profile's posts themselves are the filtered-posts list with an author " +
          "refinement. Within the plan's history as the dashboards (history_clip; 409 history_limit). 404 " +
          'not_found for a profile that does not exist; 400 for a malformed id, a query that does not parse or a ' +
          'bad refinement. ' +
          ACCESS +
          READ_HEADERS_DOC,
        body: profileDetailBodySchema,
        response: responses(profileDetailResponseSchema),
      },
    },
    async (request, reply): Promise<ProfileDetailResponse> => {
      const { workspace } = workspaceAccessOf(request);
      const { limits, planName } = limitsOf(catalogue, workspace.plan);
      const context = clipToHistory(
        await resolveInsightScope(lightDb, workspace, request.body),
        historyStart(limits),
        limits.history_days,
        planName,
      );
      const read = await admission.run(
        () => reads.read((db) => readProfile(db, context, request.body.profile_id, app.deps.analytics)),
        clientGone(reply.raw),
      );
      sayWhereRead(reads, reply, read);
      return { ...read.value, history_clip: context.historyClip ?? null };
    },
  );
};
