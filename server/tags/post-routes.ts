// Tags on posts by hand (issue 55, item 3): every member reads the tags a post carries in the workspace; owners and
// managers set a tag on one post or many at once, or remove it. A removal is kept (a manual row, removed), so a rule
// matching the post later does not set the tag again: manual tags win over rules. Registered under /api.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  postTagsParamsSchema,
  postTagsResponseSchema,
  tagParamsSchema,
  tagPostsBodySchema,
  tagPostsResponseSchema,
} from '@contract/tags';
import { bearer, errorResponses } from '@server/openapi';
import { workspaceAccessOf, type WorkspaceRequirement } from '@server/workspaces/route-access';
import { lockTag, setManualTag, tagsDenied, tagsOfPosts } from './store';

const tags = ['tags'];
const anyMember: WorkspaceRequirement = { from: 'params', minimum: 'viewer' };
const editors: WorkspaceRequirement = { from: 'params', minimum: 'manager', denied: tagsDenied };

export const postTagRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.deps;
  app.addHook('onRequest', app.requireUser);

  app.get(
    '/workspaces/:id/posts/:postId/tags',
    {
      config: { workspace: anyMember },
      schema: {
        tags,
        security: bearer,
        summary:
          'The tags a post carries in the workspace, each set by hand (manual) or only by rules (rule)',
        params: postTagsParamsSchema,
        response: { 200: postTagsResponseSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      const { workspace } = workspaceAccessOf(request);
      const { postId } = request.params;
      return { post_id: postId, tags: (await tagsOfPosts(db, workspace.id, [postId])).get(postId) ?? [] };
    },
  );

  app.post(
    '/workspaces/:id/tags/:tagId/posts',
    {
      config: { workspace: editors },
      schema: {
        tags,
        security: bearer,
        summary:
          'Set a tag on posts by hand, or remove it (tagged false), one or many at once (owners and managers)',
        description:
          'At most 1,000 posts a request, all or none (404 post_not_found names the first that is not stored). A ' +
          'removal by hand sticks: rules matching the post do not set the tag again. changed counts the posts whose ' +
          'hand-set state changed.',
        params: tagParamsSchema,
        body: tagPostsBodySchema,
        response: { 200: tagPostsResponseSchema, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => {
      const { workspace } = workspaceAccessOf(request);
      const changed = await db.transaction(async (tx) => {
        const tag = await lockTag(tx, workspace.id, request.params.tagId);
        return setManualTag(tx, {
          workspaceId: workspace.id,
          tagId: tag.id,
          postIds: request.body.post_ids,
          tagged: request.body.tagged,
          userId: request.userId,
        });
      });
      return { changed };
    },
  );
};
