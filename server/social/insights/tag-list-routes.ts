// Every post of a list tagged or untagged by hand (issue 55, item 3), for owners and managers: POST
// /social/insights/tag-posts takes the list's request (a dashboard's body) with the tag, reads the ids of the list's
// posts from the analytics store at one version and writes the tag on them in PostgreSQL a batch a transaction
// (tag-list.ts), answering with its progress as NDJSON lines. Registered under /social by server/routes.ts.
import { PassThrough } from 'node:stream';
import rateLimit from '@fastify/rate-limit';
import * as z from 'zod/mini';
import type { FastifyTypeProviderDefault } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponseSchema } from '@contract/errors';
import { invalidQueryErrorSchema } from '@contract/social-query';
import { TAG_LIST_BATCH, TAG_LIST_MAX_POSTS, tagListBodySchema } from '@contract/tags';
import { historyStart, limitsOf } from '@server/billing/limits';
import { logFailure } from '@server/errors';
import { bearer, errorResponses } from '@server/openapi';
import { invalidQueryErrorHandler } from '@server/query/invalid-query';
import { clientGone } from '../admission';
import { clipToHistory, resolveInsightScope } from './request';
import { perAccountLimit } from '../rate-limit';
import { workspaceAccessOf, type WorkspaceRequirement } from '@server/workspaces/route-access';
import { tagsDenied } from '@server/tags/store';
import { checkTag, listPostIds, tagListPosts } from './tag-list';

const editors: WorkspaceRequirement = { from: 'body', minimum: 'manager', denied: tagsDenied };

const DESCRIPTION =
  "Body: the list's request as for the dashboards (workspace_id, saved_query_id or query, filters, refine; a " +
  "list's sort, cursor and limit are ignored), tag_id (a tag of the workspace) and tagged (true sets the tag by " +
  'hand, false removes it, a removal that rules cannot undo, as POST /api/workspaces/{id}/tags/{tagId}/posts). The ' +
  'ids of every post the list holds are read from the analytics store in one statement, then the tag is written in ' +
  `PostgreSQL ${TAG_LIST_BATCH.toLocaleString('en-US')} posts a transaction; a post deleted meanwhile is left out. ` +
  'The answer (application/x-ndjson) is a line {"done", "total", "changed"} before the first batch and after each: ' +
  'done of total posts written, changed of them whose hand-set state changed; the last has done = total. Batches ' +
  'written stay when a later one fails (the answer then breaks off): asking again finishes the list. Owners and ' +
  'managers only (403 forbidden for viewers); 404 tag_not_found for a tag not in the workspace; 409 too_many_posts ' +
  `for a list of more than ${TAG_LIST_MAX_POSTS.toLocaleString('en-US')} posts (tag them with a rule); 400 for a ` +
  'request a dashboard would refuse; 503 while the analytics store cannot answer, as for the dashboards.';

export const tagListRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config } = app.deps;
  const { admission } = app.analytics;
  const { catalogue } = app.billing;

  app.addHook('onRequest', app.requireUser);
  app.setErrorHandler(invalidQueryErrorHandler);
  await app.register(rateLimit, {
    global: true,
    ...perAccountLimit('tag-posts', config.SOCIAL_RATE_LIMIT_PER_MINUTE).rateLimit,
  });

  // The default provider: the answer is a stream, not the JSON its schema documents (as the CSV exports').
  app.withTypeProvider<FastifyTypeProviderDefault>().post(
    '/insights/tag-posts',
    {
      config: { workspace: editors },
      // Each progress line goes as it is written: a compressor would hold the lines back (x-ndjson is not among
      // @fastify/compress's types today; this keeps it so whatever they become).
      compress: false,
      schema: {
        tags: ['social', 'tags'],
        security: bearer,
        summary: 'Set a tag by hand on every post of a list, or remove it from them (owners and managers)',
        description: DESCRIPTION,
        body: tagListBodySchema,
        response: {
          200: {
            description: 'The progress, a JSON object a line, streamed',
            content: { 'application/x-ndjson': { schema: z.string() } },
          },
          ...errorResponses(403, 404, 409, 429),
          400: z.union([invalidQueryErrorSchema, errorResponseSchema]),
          503: errorResponseSchema,
        },
      },
    },
    async (request, reply) => {
      const { workspace } = workspaceAccessOf(request);
      const { tag_id: tagId, tagged, ...list } = request.body as z.output<typeof tagListBodySchema>;
      // Resolved as the list resolved it (its saved query, lists and tags the workspace's), within the plan's history.
      const { limits, planName } = limitsOf(catalogue, workspace.plan);
      const context = clipToHistory(
        await resolveInsightScope(db, workspace, list),
        historyStart(limits),
        limits.history_days,
        planName,
      );
      await checkTag(db, workspace.id, tagId);
      const ids = await admission.run(
        () => listPostIds(db, context, app.deps.analytics),
        clientGone(reply.raw),
      );
      // Written to the end even when the client goes away: a batch is small, and the person asked for the list.
      const out = new PassThrough();
      const progress = tagListPosts(db, {
        workspaceId: workspace.id,
        tagId,
        tagged,
        userId: request.userId,
        ids,
      });
      void (async () => {
        try {
          for await (const line of progress) if (!out.destroyed) out.write(`${JSON.stringify(line)}\n`);
          if (!out.destroyed) out.end();
        } catch (error) {
          const errorId = logFailure(request, error);
          out.destroy(new Error(`Tagging the list failed after its first batches (error ${errorId}).`));
        }
      })();
      return reply.type('application/x-ndjson; charset=utf-8').send(out);
    },
  );
};
