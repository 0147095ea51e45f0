// A workspace's categories, tags and tag rules (issue 55, item 3): every member reads them, owners and managers write
// them. A rule is a query in Murmur's language, checked like a saved query's against the workspace's lists; it is
// applied to past posts at once (in the background, from this process and the periodic job: apply.ts) and to new posts
// as they arrive. Changing a rule's query takes back what it set and applies it anew; deleting a rule, a tag or a
// category removes only what their rules set and the hand-set rows of their tags. Registered under /api.
import { and, eq, inArray, sql } from 'drizzle-orm';
import * as z from 'zod/mini';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  categoriesResponseSchema,
  categoryParamsSchema,
  categoryResponseSchema,
  ruleParamsSchema,
  tagNameBodySchema,
  tagParamsSchema,
  tagResponseSchema,
  tagRuleBodySchema,
  tagRuleResponseSchema,
} from '@contract/tags';
import { invalidQueryErrorSchema } from '@contract/social-query';
import { workspaceParamsSchema } from '@contract/workspaces';
import { tagCategories, tagRules, tags as tagsTable } from '@server/db/tags-schema';
import { errorResponseSchema } from '@contract/errors';
import { bearer, errorResponses } from '@server/openapi';
import { listsFor } from '@server/lists/store';
import { invalidQueryErrorHandler, parseOrThrow } from '@server/query/invalid-query';
import {
  lockWorkspaceAccess,
  workspaceAccessOf,
  type WorkspaceRequirement,
} from '@server/workspaces/route-access';
import type { Executor } from '@server/workspaces/access';
import type { AnalyticsService } from '@server/analytics/service';
import type { Db } from '@server/db/database';
import { applyTagRules, newestPostId } from './apply';
import { holdRules } from './hold';
import {
  categoriesOf,
  categoryNotFound,
  lockTag,
  nameTaken,
  ruleNotFound,
  ruleResponse,
  tagNotFound,
  tagsDenied,
  uniqueName,
} from './store';

const tags = ['tags'];
const anyMember: WorkspaceRequirement = { from: 'params', minimum: 'viewer' };
const editors: WorkspaceRequirement = { from: 'params', minimum: 'manager', denied: tagsDenied };
const badRequest = z.union([invalidQueryErrorSchema, errorResponseSchema]);

export interface TagRoutesOptions {
  /**
   * Writes a rule's past matches read from the analytics store (server/social/insights/rule-past.ts, given here by
   * server/routes.ts: the store's figures are another domain's); without it, or when it cannot, the live path
   * matches every past post one by one.
   */
  pastFromStore?(db: Db, analytics: AnalyticsService | undefined, ruleId: string): Promise<unknown>;
}

export const tagRoutes: FastifyPluginAsyncZod<TagRoutesOptions> = async (app, options) => {
  const { db, config } = app.deps;
  app.addHook('onRequest', app.requireUser);
  app.setErrorHandler(invalidQueryErrorHandler);

  // A rule created or changed is applied to past posts at once, here, in batches; closing waits for the batch.
  const running = new Set<Promise<unknown>>();
  const applyNow = (ruleId: string) => {
    // Its past matches from the analytics store when it can answer (server/social/insights/rule-past.ts), then the posts after them (and, when it
    // cannot, every post) by the live path.
    const run = Promise.resolve(options.pastFromStore?.(db, app.deps.analytics, ruleId))
      .catch((error: Error) =>
        app.log.warn(`Tag rule ${ruleId}, past posts from the store: ${error.message}`),
      )
      .then(() => applyTagRules(db, { ruleIds: [ruleId] }))
      .catch((error: Error) => app.log.warn(`Tag rule ${ruleId}: ${error.message}`))
      .finally(() => running.delete(run));
    running.add(run);
  };
  app.addHook('onClose', async () => {
    await Promise.all(running);
  });

  const checkedQuery = async (tx: Executor, workspaceId: string, text: string) => {
    parseOrThrow(text, await listsFor(tx, workspaceId, text));
    return text;
  };

  app.get(
    '/workspaces/:id/tag-categories',
    {
      config: { workspace: anyMember },
      schema: {
        tags,
        security: bearer,
        summary:
          "The workspace's categories, each with its tags and their rules (the posts carrying each tag are a " +
          'figure: POST /social/insights/tag-counts)',
        params: workspaceParamsSchema,
        response: { 200: categoriesResponseSchema, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { workspace } = workspaceAccessOf(request);
      return { categories: await categoriesOf(db, workspace.id, await newestPostId(db)) };
    },
  );

  app.post(
    '/workspaces/:id/tag-categories',
    {
      config: { workspace: editors },
      schema: {
        tags,
        security: bearer,
        summary: 'Create a category (owners and managers); names are unique in a workspace (409 name_taken)',
        params: workspaceParamsSchema,
        body: tagNameBodySchema,
        response: { 201: categoryResponseSchema, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { name } = request.body;
      const created = await db.transaction(async (tx) => {
        const access = await lockWorkspaceAccess(tx, config, request);
        const [row] = await tx
          .insert(tagCategories)
          .values({ workspaceId: access.workspace.id, name })
          .onConflictDoNothing()
          .returning();
        if (!row) throw nameTaken(name, 'This workspace');
        return row;
      });
      return reply.status(201).send({ id: created.id, name: created.name, tags: [] });
    },
  );

  app.patch(
    '/workspaces/:id/tag-categories/:categoryId',
    {
      config: { workspace: editors },
      schema: {
        tags,
        security: bearer,
        summary: 'Rename a category (owners and managers)',
        params: categoryParamsSchema,
        body: tagNameBodySchema,
        response: { 204: z.null(), ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { name } = request.body;
      const { workspace } = workspaceAccessOf(request);
      const renamed = await uniqueName(name, 'This workspace', () =>
        db
          .update(tagCategories)
          .set({ name })
          .where(
            and(eq(tagCategories.workspaceId, workspace.id), eq(tagCategories.id, request.params.categoryId)),
          )
          .returning({ id: tagCategories.id }),
      );
      if (!renamed.length) throw categoryNotFound();
      return reply.status(204).send(null);
    },
  );

  app.patch(
    '/workspaces/:id/tags/:tagId',
    {
      config: { workspace: editors },
      schema: {
        tags,
        security: bearer,
        summary: 'Rename a tag (owners and managers); names are unique in a category (409 name_taken)',
        params: tagParamsSchema,
        body: tagNameBodySchema,
        response: { 204: z.null(), ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { name } = request.body;
      const { workspace } = workspaceAccessOf(request);
      const renamed = await uniqueName(name, 'Its category', () =>
        db
          .update(tagsTable)
          .set({ name })
          .where(and(eq(tagsTable.workspaceId, workspace.id), eq(tagsTable.id, request.params.tagId)))
          .returning({ id: tagsTable.id }),
      );
      if (!renamed.length) throw tagNotFound();
      return reply.status(204).send(null);
    },
  );

  app.delete(
    '/workspaces/:id/tag-categories/:categoryId',
    {
      config: { workspace: editors },
      schema: {
        tags,
        security: bearer,
        summary:
          'Delete a category, its tags and their rules; posts no longer carry its tags (owners and managers)',
        params: categoryParamsSchema,
        response: { 204: z.null(), ...errorResponses(400, 403, 404) },
      },
    },
    async (request, reply) => {
      const { workspace } = workspaceAccessOf(request);
      const { categoryId } = request.params;
      const [deleted] = await db.transaction(async (tx) => {
        const ofCategory = tx
          .select({ id: tagsTable.id })
          .from(tagsTable)
          .where(eq(tagsTable.categoryId, categoryId));
        await holdRules(tx, and(eq(tagRules.workspaceId, workspace.id), inArray(tagRules.tagId, ofCategory)));
        return tx
          .delete(tagCategories)
          .where(and(eq(tagCategories.workspaceId, workspace.id), eq(tagCategories.id, categoryId)))
          .returning({ id: tagCategories.id });
      });
      if (!deleted) throw categoryNotFound();
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/workspaces/:id/tag-categories/:categoryId/tags',
    {
      config: { workspace: editors },
      schema: {
        tags,
        security: bearer,
        summary:
          'Add a tag to a category (owners and managers); names are unique in a category (409 name_taken)',
        params: categoryParamsSchema,
        body: tagNameBodySchema,
        response: { 201: tagResponseSchema, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { name } = request.body;
      const created = await db.transaction(async (tx) => {
        const access = await lockWorkspaceAccess(tx, config, request);
        const [category] = await tx
          .select()
          .from(tagCategories)
          .where(
            and(
              eq(tagCategories.workspaceId, access.workspace.id),
              eq(tagCategories.id, request.params.categoryId),
            ),
          );
        if (!category) throw categoryNotFound();
        const [row] = await tx
          .insert(tagsTable)
          .values({ workspaceId: access.workspace.id, categoryId: category.id, name })
          .onConflictDoNothing()
          .returning();
        if (!row) throw nameTaken(name, `The category ${category.name}`);
        return row;
      });
      return reply
        .status(201)
        .send({ id: created.id, category_id: created.categoryId, name: created.name, rules: [] });
    },
  );

  app.delete(
    '/workspaces/:id/tags/:tagId',
    {
      config: { workspace: editors },
      schema: {
        tags,
        security: bearer,
        summary: 'Delete a tag and its rules; posts no longer carry it (owners and managers)',
        params: tagParamsSchema,
        response: { 204: z.null(), ...errorResponses(400, 403, 404) },
      },
    },
    async (request, reply) => {
      const { workspace } = workspaceAccessOf(request);
      const { tagId } = request.params;
      const [deleted] = await db.transaction(async (tx) => {
        await holdRules(tx, and(eq(tagRules.workspaceId, workspace.id), eq(tagRules.tagId, tagId)));
        return tx
          .delete(tagsTable)
          .where(and(eq(tagsTable.workspaceId, workspace.id), eq(tagsTable.id, tagId)))
          .returning({ id: tagsTable.id });
      });
      if (!deleted) throw tagNotFound();
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/workspaces/:id/tags/:tagId/rules',
    {
      config: { workspace: editors },
      schema: {
        tags,
        security: bearer,
        summary:
          'Add a rule to a tag: a query whose matches carry it, past posts at once and new ones as they arrive',
        description:
          "The query is checked like a saved query, against the workspace's lists (400 invalid_query). Past posts " +
          'are tagged in the background: their ids read from the analytics store at once (past_from store), or, when ' +
          'it cannot answer, every post matched one by one (past_from matcher, past_note why); the rule says ' +
          'caught_up once every stored post has been looked at.',
        params: tagParamsSchema,
        body: tagRuleBodySchema,
        response: { 201: tagRuleResponseSchema, ...errorResponses(403, 404), 400: badRequest },
      },
    },
    async (request, reply) => {
      const { workspace } = workspaceAccessOf(request);
      const rule = await db.transaction(async (tx) => {
        const tag = await lockTag(tx, workspace.id, request.params.tagId);
        const query = await checkedQuery(tx, workspace.id, request.body.query);
        const [row] = await tx
          .insert(tagRules)
          .values({ workspaceId: workspace.id, tagId: tag.id, query, createdBy: request.userId })
          .returning();
        return row!;
      });
      applyNow(rule.id);
      return reply.status(201).send(ruleResponse(rule, false));
    },
  );

  app.put(
    '/workspaces/:id/tag-rules/:ruleId',
    {
      config: { workspace: editors },
      schema: {
        tags,
        security: bearer,
        summary:
          "Change a rule's query: what it set is taken back and it is applied anew (owners and managers)",
        params: ruleParamsSchema,
        body: tagRuleBodySchema,
        response: { 200: tagRuleResponseSchema, ...errorResponses(403, 404), 400: badRequest },
      },
    },
    async (request) => {
      const { workspace } = workspaceAccessOf(request);
      const rule = await db.transaction(async (tx) => {
        const where = and(eq(tagRules.workspaceId, workspace.id), eq(tagRules.id, request.params.ruleId));
        const [current] = await holdRules(tx, where);
        if (!current) throw ruleNotFound();
        const query = await checkedQuery(tx, workspace.id, request.body.query);
        await tx.execute(sql`DELETE FROM post_tags WHERE rule_id = ${current.id}`);
        await tx.execute(sql`DELETE FROM rule_post_ranges WHERE rule_id = ${current.id}`);
        const [row] = await tx
          .update(tagRules)
          .set({ query, cursor: 0, pastFrom: null, pastNote: null, updatedAt: sql`now()` })
          .where(where)
          .returning();
        return row!;
      });
      applyNow(rule.id);
      return ruleResponse(rule, false);
    },
  );

  app.delete(
    '/workspaces/:id/tag-rules/:ruleId',
    {
      config: { workspace: editors },
      schema: {
        tags,
        security: bearer,
        summary: 'Delete a rule: posts lose the tag where only this rule set it (owners and managers)',
        params: ruleParamsSchema,
        response: { 204: z.null(), ...errorResponses(400, 403, 404) },
      },
    },
    async (request, reply) => {
      const { workspace } = workspaceAccessOf(request);
      // Its rows go with it (post_tags's by a trigger, its ranges by their key), in the one statement.
      const where = and(eq(tagRules.workspaceId, workspace.id), eq(tagRules.id, request.params.ruleId));
      const [deleted] = await db.transaction(async (tx) => {
        await holdRules(tx, where);
        return tx.delete(tagRules).where(where).returning({ id: tagRules.id });
      });
      if (!deleted) throw ruleNotFound();
      return reply.status(204).send(null);
    },
  );
};
