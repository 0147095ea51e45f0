// Members of a workspace: list, change privilege, remove, leave. Changes lock the workspace row so two owners cannot
// demote each other at the same moment and leave the workspace without one.
import { and, asc, eq } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import * as z from 'zod/mini';
import { memberships, users } from '@server/db/schema';
import {
  memberListResponseSchema,
  memberParamsSchema,
  memberResponseSchema,
  updateMemberBodySchema,
  workspaceParamsSchema,
  type MemberResponse,
} from '@contract/workspaces';
import { countOwners, toUnixSeconds, type Executor } from './access';
import { lockWorkspaceAccess, workspaceAccessOf, type WorkspaceRequirement } from './route-access';
import { checkLeave, checkPrivilegeChange, checkRemoval } from './permissions';
import { memberNotFound, membersDenied } from './errors';
import { bearer, errorResponses } from '@server/openapi';

const tags = ['members'];
const noContent = z.null();
const anyMember: WorkspaceRequirement = { from: 'params', minimum: 'viewer' };
const managers: WorkspaceRequirement = { from: 'params', minimum: 'manager', denied: membersDenied };

function selectMembers(db: Executor) {
  return db
    .select({
      userId: memberships.userId,
      email: users.email,
      firstName: users.firstName,
      lastName: users.lastName,
      privilege: memberships.privilege,
      joinedAt: memberships.createdAt,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .$dynamic();
}

type MemberRow = Awaited<ReturnType<typeof selectMembers>>[number];

const toMemberResponse = (row: MemberRow): MemberResponse => ({
  user_id: row.userId,
  email: row.email,
  first_name: row.firstName,
  last_name: row.lastName,
  privilege: row.privilege,
  joined_at: toUnixSeconds(row.joinedAt),
});

const isMembership = (workspaceId: string, userId: string) =>
  and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId));

async function findMember(db: Executor, workspaceId: string, userId: string) {
  const [row] = await selectMembers(db).where(isMembership(workspaceId, userId));
  if (!row) throw memberNotFound();
  return row;
}

export const memberRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config } = app.deps;

  app.get(
    '/workspaces/:id/members',
    {
      config: { workspace: anyMember },
      schema: {
        tags,
        security: bearer,
        summary: 'Members of a workspace, owners first (any member)',
        params: workspaceParamsSchema,
        response: { 200: memberListResponseSchema, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { workspace } = workspaceAccessOf(request);
      // The privilege enum is declared owner, manager, viewer, so it sorts by rank.
      const rows = await selectMembers(db)
        .where(eq(memberships.workspaceId, workspace.id))
        .orderBy(asc(memberships.privilege), asc(memberships.createdAt));
      return rows.map(toMemberResponse);
    },
  );

  app.patch(
    '/workspaces/:id/members/:userId',
    {
      config: { workspace: managers },
      schema: {
        tags,
        security: bearer,
        summary: "Change a member's privilege (owners; managers for non-owners)",
        params: memberParamsSchema,
        body: updateMemberBodySchema,
        response: { 200: memberResponseSchema, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request) => {
      const { userId } = request.params;
      const next = request.body.privilege;
      const member = await db.transaction(async (tx) => {
        const actor = await lockWorkspaceAccess(tx, config, request);
        const target = await findMember(tx, actor.workspace.id, userId);
        const refusal = checkPrivilegeChange(
          actor.privilege,
          target.privilege,
          next,
          await countOwners(tx, actor.workspace.id),
        );
        if (refusal) throw refusal;
        if (target.privilege === next) return target;
        await tx.update(memberships).set({ privilege: next }).where(isMembership(actor.workspace.id, userId));
        return { ...target, privilege: next };
      });
      return toMemberResponse(member);
    },
  );

  app.delete(
    '/workspaces/:id/members/:userId',
    {
      config: { workspace: managers },
      schema: {
        tags,
        security: bearer,
        summary: 'Remove a member (owners; managers for non-owners)',
        params: memberParamsSchema,
        response: { 204: noContent, ...errorResponses(403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { userId } = request.params;
      await db.transaction(async (tx) => {
        const actor = await lockWorkspaceAccess(tx, config, request);
        const target = await findMember(tx, actor.workspace.id, userId);
        const refusal = checkRemoval(
          actor.privilege,
          target.privilege,
          await countOwners(tx, actor.workspace.id),
        );
        if (refusal) throw refusal;
        await tx.delete(memberships).where(isMembership(actor.workspace.id, userId));
      });
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/workspaces/:id/leave',
    {
      config: { workspace: anyMember },
      schema: {
        tags,
        security: bearer,
        summary: 'Leave a workspace (anyone but its last owner)',
        params: workspaceParamsSchema,
        response: { 204: noContent, ...errorResponses(404, 409) },
      },
    },
    async (request, reply) => {
      await db.transaction(async (tx) => {
        const self = await lockWorkspaceAccess(tx, config, request);
        if (!self.isMember) throw memberNotFound();
        const refusal = checkLeave(self.privilege, await countOwners(tx, self.workspace.id));
        if (refusal) throw refusal;
        await tx.delete(memberships).where(isMembership(self.workspace.id, request.userId));
      });
      return reply.status(204).send(null);
    },
  );
};
