// A workspace's named lists (issue 55): every member reads them, owners and managers write them. A query reads a
// list by name (`author:list(competitors)`, `site:list(press)`, `list(misspellings)`) and its current items each
// time it is evaluated, so editing a list changes every query that reads it. A list a saved query reads cannot be
// deleted (409 list_in_use), nor one a tag's rule reads. Registered under /api by server/routes.ts.
import { and, eq, sql } from 'drizzle-orm';
import * as z from 'zod/mini';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { queryLists } from '@server/db/lists-schema';
import { ApiError } from '@server/errors';
import { bearer, errorResponses } from '@server/openapi';
import {
  lockWorkspaceAccess,
  workspaceAccessOf,
  type WorkspaceRequirement,
} from '@server/workspaces/route-access';
import {
  createListBodySchema,
  listParamsSchema,
  listResponseSchema,
  listsResponseSchema,
  updateListBodySchema,
} from '@contract/lists';
import { workspaceParamsSchema } from '@contract/workspaces';
import {
  checkedItems,
  listNotFound,
  listRows,
  listsDenied,
  listUsers,
  tagsReadingList,
  toListResponse,
} from './store';

const tags = ['lists'];
const anyMember: WorkspaceRequirement = { from: 'params', minimum: 'viewer' };
const editors: WorkspaceRequirement = { from: 'params', minimum: 'manager', denied: listsDenied };
const ITEMS_DOC =
  'Items are trimmed and each must fit the kind (authors: a handle; sites: a domain or an address, kept as ' +
  'given and read as its registrable domain; words: a word or a phrase), else 400 invalid_list_item names the ' +
  'first that does not; at most 1,000, duplicates kept once.';

export interface ListRouteOptions {
  /**
   * Told a list's name once its items are replaced: the saved queries that read it match otherwise, and their matches
   * are found again (server/social/insights/prepared-sets.ts).
   */
  edited?(workspaceId: string, list: string): void;
}

export const listRoutes: FastifyPluginAsyncZod<ListRouteOptions> = async (app, options) => {
  const { db, config } = app.deps;

  app.addHook('onRequest', app.requireUser);

  app.get(
    '/workspaces/:id/lists',
    {
      config: { workspace: anyMember },
      schema: {
        tags,
        security: bearer,
        summary: "The workspace's lists by name, each with the saved queries that read it",
        params: workspaceParamsSchema,
        response: { 200: listsResponseSchema, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { workspace } = workspaceAccessOf(request);
      const [rows, users] = await Promise.all([listRows(db, workspace.id), listUsers(db, workspace.id)]);
      return { lists: rows.map((row) => toListResponse(row, users)) };
    },
  );

  app.post(
    '/workspaces/:id/lists',
    {
      config: { workspace: editors },
      schema: {
        tags,
        security: bearer,
        summary: 'Create a list of authors, sites or words (owners and managers)',
        description: `Names are unique in a workspace (409 name_taken). ${ITEMS_DOC}`,
        params: workspaceParamsSchema,
        body: createListBodySchema,
        response: { 201: listResponseSchema, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { name, kind } = request.body;
      const items = checkedItems(kind, request.body.items);
      const row = await db.transaction(async (tx) => {
        const access = await lockWorkspaceAccess(tx, config, request);
        const [created] = await tx
          .insert(queryLists)
          .values({ workspaceId: access.workspace.id, name, kind, items, updatedBy: request.userId })
          .onConflictDoNothing()
          .returning();
        if (!created)
          throw new ApiError(409, 'name_taken', `This workspace already has a list named ${name}.`);
        return created;
      });
      return reply.status(201).send(toListResponse(row, new Map()));
    },
  );

  app.put(
    '/workspaces/:id/lists/:name',
    {
      config: { workspace: editors },
      schema: {
        tags,
        security: bearer,
        summary: "Replace a list's items (owners and managers): every query that reads it reads them next",
        description: ITEMS_DOC,
        params: listParamsSchema,
        body: updateListBodySchema,
        response: { 200: listResponseSchema, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => {
      const { name } = request.params;
      const { workspace } = workspaceAccessOf(request);
      const { row, users } = await db.transaction(async (tx) => {
        const [current] = await tx
          .select({ kind: queryLists.kind })
          .from(queryLists)
          .where(and(eq(queryLists.workspaceId, workspace.id), eq(queryLists.name, name)))
          .for('update');
        if (!current) throw listNotFound(name);
        const items = checkedItems(current.kind as 'authors' | 'sites' | 'words', request.body.items);
        const [updated] = await tx
          .update(queryLists)
          .set({ items, updatedBy: request.userId, updatedAt: sql`now()` })
          .where(and(eq(queryLists.workspaceId, workspace.id), eq(queryLists.name, name)))
          .returning();
        return { row: updated!, users: await listUsers(tx, workspace.id) };
      });
      options.edited?.(workspace.id, name);
      return toListResponse(row, users);
    },
  );

  app.delete(
    '/workspaces/:id/lists/:name',
    {
      config: { workspace: editors },
      schema: {
        tags,
        security: bearer,
        summary:
          'Delete a list no saved query nor tag rule reads (owners and managers; 409 list_in_use names those that do)',
        params: listParamsSchema,
        response: { 204: z.null(), ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { name } = request.params;
      await db.transaction(async (tx) => {
        const access = await lockWorkspaceAccess(tx, config, request);
        const readers = [
          ...((await listUsers(tx, access.workspace.id)).get(name) ?? []).map((reader) => `"${reader}"`),
          ...(await tagsReadingList(tx, access.workspace.id, name)).map(
            (tag) => `the rules of the tag ${tag}`,
          ),
        ];
        if (readers.length) {
          throw new ApiError(
            409,
            'list_in_use',
            `The list ${name} is read by ${readers.join(', ')}: change those queries first.`,
          );
        }
        const [deleted] = await tx
          .delete(queryLists)
          .where(and(eq(queryLists.workspaceId, access.workspace.id), eq(queryLists.name, name)))
          .returning({ name: queryLists.name });
        if (!deleted) throw listNotFound(name);
      });
      return reply.status(204).send(null);
    },
  );
};
