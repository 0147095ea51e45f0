// Saved queries of a workspace: every member reads them, owners and managers write them, at most
// SAVED_QUERY_LIMIT per workspace. Registered under /api by server/routes.ts. Names are unique per workspace
// regardless of case (a unique index on lower(name); 409 name_taken).
import { and, eq, sql } from 'drizzle-orm';
import * as z from 'zod/mini';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { savedQueries } from '@server/db/social-schema';
import {
  lockWorkspaceAccess,
  workspaceAccessOf,
  type WorkspaceRequirement,
} from '@server/workspaces/route-access';
import { limitReached, limitsOf } from '@server/billing/limits';
import { bearer, errorResponses } from '@server/openapi';
import { invalidQueryErrorHandler, parseOrThrow } from '@server/query/invalid-query';
import { listsFor } from '@server/lists/store';
import {
  createSavedQueryBodySchema,
  savedQueryListResponseSchema,
  savedQueryParamsSchema,
  savedQueryResponseSchema,
  updateSavedQueryBodySchema,
} from '@contract/saved-queries';
import { errorResponseSchema } from '@contract/errors';
import { invalidQueryErrorSchema } from '@contract/social-query';
import { workspaceParamsSchema } from '@contract/workspaces';
import {
  announceTrackingChange,
  countSavedQueries,
  findSavedQuery,
  guardName,
  listSavedQueries,
  savedQueriesDenied,
  savedQueryNotFound,
  toSavedQueryResponse,
} from './store';

const tags = ['saved queries'];
const noContent = z.null();
/** A 400 is either a query that does not parse (with positions) or an invalid request body. */
const badRequest = z.union([invalidQueryErrorSchema, errorResponseSchema]);
const anyMember: WorkspaceRequirement = { from: 'params', minimum: 'viewer' };
const editors: WorkspaceRequirement = { from: 'params', minimum: 'manager', denied: savedQueriesDenied };

export interface SavedQueryRouteOptions {
  /** Told a saved query's text once it is saved or changed: a long query's matches are found then (prepared-sets.ts). */
  saved?(workspaceId: string, text: string): void;
}

export const savedQueryRoutes: FastifyPluginAsyncZod<SavedQueryRouteOptions> = async (app, options) => {
  const { db, config } = app.deps;

  app.addHook('onRequest', app.requireUser);
  app.setErrorHandler(invalidQueryErrorHandler);

  app.get(
    '/workspaces/:id/saved-queries',
    {
      config: { workspace: anyMember },
      schema: {
        tags,
        security: bearer,
        summary: "The workspace's saved queries, newest first, with their number against the plan's limit",
        params: workspaceParamsSchema,
        response: { 200: savedQueryListResponseSchema, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { workspace } = workspaceAccessOf(request);
      const rows = await listSavedQueries(db, workspace.id);
      return {
        saved_queries: rows.map(toSavedQueryResponse),
        usage: {
          count: rows.length,
          limit: limitsOf(app.billing.catalogue, workspace.plan).limits.saved_queries,
        },
      };
    },
  );

  app.get(
    '/workspaces/:id/saved-queries/:queryId',
    {
      config: { workspace: anyMember },
      schema: {
        tags,
        security: bearer,
        summary: 'One saved query',
        params: savedQueryParamsSchema,
        response: { 200: savedQueryResponseSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      const { workspace } = workspaceAccessOf(request);
      return toSavedQueryResponse(await findSavedQuery(db, workspace.id, request.params.queryId));
    },
  );

  app.post(
    '/workspaces/:id/saved-queries',
    {
      config: { workspace: editors },
      schema: {
        tags,
        security: bearer,
        summary:
          'Save a query (owners and managers); "Save as query" in discover posts its query and filters here',
        description:
          'The query must parse (400 invalid_query lists each error with its 1-based column); it is stored as ' +
          "typed and answered with its canonical text. A workspace holds at most its plan's number of saved " +
          'queries (409 saved_query_limit); names are unique in a workspace regardless of case (409 name_taken).',
        params: workspaceParamsSchema,
        body: createSavedQueryBodySchema,
        response: { 201: savedQueryResponseSchema, ...errorResponses(403, 404, 409), 400: badRequest },
      },
    },
    async (request, reply) => {
      const { name, query, filters } = request.body;
      const row = await db.transaction(async (tx) => {
        // The workspace row stays locked until commit: concurrent creates count one after another.
        const access = await lockWorkspaceAccess(tx, config, request);
        parseOrThrow(query, await listsFor(tx, access.workspace.id, query));
        const { limits, planName } = limitsOf(app.billing.catalogue, access.workspace.plan);
        if (
          limits.saved_queries !== null &&
          (await countSavedQueries(tx, access.workspace.id)) >= limits.saved_queries
        ) {
          throw limitReached('saved_queries', limits.saved_queries, planName);
        }
        return guardName(name, async () => {
          const [created] = await tx
            .insert(savedQueries)
            .values({ workspaceId: access.workspace.id, name, query, filters, createdBy: request.userId })
            .returning();
          return created!;
        });
      });
      options.saved?.(row.workspaceId, row.query);
      return reply.status(201).send(toSavedQueryResponse(row));
    },
  );

  app.patch(
    '/workspaces/:id/saved-queries/:queryId',
    {
      config: { workspace: editors },
      schema: {
        tags,
        security: bearer,
        summary: 'Rename a saved query or change its query or filters (owners and managers)',
        params: savedQueryParamsSchema,
        body: updateSavedQueryBodySchema,
        response: { 200: savedQueryResponseSchema, ...errorResponses(403, 404, 409), 400: badRequest },
      },
    },
    async (request) => {
      const { queryId } = request.params;
      const access = workspaceAccessOf(request);
      const { name, query, filters } = request.body;
      if (query !== undefined) parseOrThrow(query, await listsFor(db, access.workspace.id, query));
      if (name === undefined && query === undefined && filters === undefined) {
        return toSavedQueryResponse(await findSavedQuery(db, access.workspace.id, queryId));
      }
      const [updated] = await guardName(name, () =>
        db
          .update(savedQueries)
          .set({
            ...(name !== undefined && { name }),
            ...(query !== undefined && { query }),
            ...(filters !== undefined && { filters }),
            updatedAt: sql`now()`,
          })
          .where(and(eq(savedQueries.workspaceId, access.workspace.id), eq(savedQueries.id, queryId)))
          .returning(),
      );
      if (!updated) throw savedQueryNotFound();
      // A tracked query collects what its new text matches from now on.
      if (query !== undefined) {
        await announceTrackingChange(db, updated.id);
        options.saved?.(updated.workspaceId, updated.query);
      }
      return toSavedQueryResponse(updated);
    },
  );

  app.delete(
    '/workspaces/:id/saved-queries/:queryId',
    {
      config: { workspace: editors },
      schema: {
        tags,
        security: bearer,
        summary: 'Delete a saved query (owners and managers)',
        params: savedQueryParamsSchema,
        response: { 204: noContent, ...errorResponses(400, 403, 404) },
      },
    },
    async (request, reply) => {
      const { queryId } = request.params;
      const access = workspaceAccessOf(request);
      const [deleted] = await db
        .delete(savedQueries)
        .where(and(eq(savedQueries.workspaceId, access.workspace.id), eq(savedQueries.id, queryId)))
        .returning({ id: savedQueries.id });
      if (!deleted) throw savedQueryNotFound();
      return reply.status(204).send(null);
    },
  );
};
