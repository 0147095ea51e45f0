// Invite links of a workspace: create (the token is shown once), list the active ones, revoke. Owners and managers.
import { and, desc, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import * as z from 'zod/mini';
import { invites } from '@server/db/schema';
import {
  createdInviteResponseSchema,
  createInviteBodySchema,
  inviteListResponseSchema,
  inviteParamsSchema,
} from '@contract/invites';
import { workspaceParamsSchema } from '@contract/workspaces';
import { toUnixSeconds } from '@server/workspaces/access';
import { workspaceAccessOf, type WorkspaceRequirement } from '@server/workspaces/route-access';
import { invitablePrivileges } from '@server/workspaces/permissions';
import { denied } from '@server/workspaces/errors';
import { bearer, errorResponses } from '@server/openapi';
import { hashInviteToken, newInviteToken } from './secrets';
import { inviteNotFound, invitesDenied } from './errors';

const tags = ['invites'];
const HOUR_MS = 60 * 60 * 1000;
const managers: WorkspaceRequirement = { from: 'params', minimum: 'manager', denied: invitesDenied };

export const inviteManagementRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.deps;

  app.post(
    '/workspaces/:id/invites',
    {
      config: { workspace: managers },
      schema: {
        tags,
        security: bearer,
        summary: 'Create an invite link; its token is returned this once only',
        params: workspaceParamsSchema,
        body: createInviteBodySchema,
        response: { 201: createdInviteResponseSchema, ...errorResponses(400, 403, 404) },
      },
    },
    async (request, reply) => {
      const access = workspaceAccessOf(request);
      const { privilege, expires_in_hours, max_uses } = request.body;
      if (!invitablePrivileges(access.privilege).includes(privilege)) {
        throw denied(
          'invite_privilege_forbidden',
          `A ${access.privilege} cannot create ${privilege} invites.`,
        );
      }
      const token = newInviteToken();
      const [invite] = await db
        .insert(invites)
        .values({
          workspaceId: access.workspace.id,
          tokenHash: hashInviteToken(token),
          createdBy: request.userId,
          privilege,
          expiresAt: new Date(Date.now() + expires_in_hours * HOUR_MS),
          maxUses: max_uses ?? null,
        })
        .returning();
      return reply.status(201).send({
        id: invite!.id,
        token,
        url_path: `/invite?token=${token}`,
        privilege: invite!.privilege,
        expires_at: toUnixSeconds(invite!.expiresAt),
        max_uses: invite!.maxUses,
        uses: invite!.uses,
      });
    },
  );

  app.get(
    '/workspaces/:id/invites',
    {
      config: { workspace: managers },
      schema: {
        tags,
        security: bearer,
        summary: 'Invite links that can still be used (never their tokens)',
        params: workspaceParamsSchema,
        response: { 200: inviteListResponseSchema, ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const access = workspaceAccessOf(request);
      const rows = await db
        .select()
        .from(invites)
        .where(
          and(
            eq(invites.workspaceId, access.workspace.id),
            isNull(invites.revokedAt),
            gt(invites.expiresAt, sql`now()`),
            or(isNull(invites.maxUses), lt(invites.uses, invites.maxUses)),
          ),
        )
        .orderBy(desc(invites.createdAt));
      return rows.map((invite) => ({
        id: invite.id,
        privilege: invite.privilege,
        created_at: toUnixSeconds(invite.createdAt),
        created_by: invite.createdBy,
        expires_at: toUnixSeconds(invite.expiresAt),
        max_uses: invite.maxUses,
        uses: invite.uses,
      }));
    },
  );

  app.delete(
    '/workspaces/:id/invites/:inviteId',
    {
      config: { workspace: managers },
      schema: {
        tags,
        security: bearer,
        summary: 'Revoke an invite link (revoking twice is harmless)',
        params: inviteParamsSchema,
        response: { 204: z.null(), ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => {
      const access = workspaceAccessOf(request);
      const isThisInvite = and(
        eq(invites.id, request.params.inviteId),
        eq(invites.workspaceId, access.workspace.id),
      );
      // coalesce keeps the first revocation time when it is revoked again.
      const [revoked] = await db
        .update(invites)
        .set({ revokedAt: sql`coalesce(${invites.revokedAt}, now())` })
        .where(isThisInvite)
        .returning({ id: invites.id });
      if (!revoked) throw inviteNotFound();
      return reply.status(204).send(null);
    },
  );
};
