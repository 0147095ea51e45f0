// Joining a workspace with an invite link's token or a join code. Joining again is harmless: no error, no second
// membership, and the invite's use is not counted twice; the answer says the person already belonged.
import { and, eq, sql } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { invites, joinCodes, memberships, users, workspaces } from '@server/db/schema';
import { unauthorized } from '@server/errors';
import type { ServerConfig } from '@server/config';
import {
  joinedWorkspaceResponseSchema,
  joinWithCodeBodySchema,
  redeemInviteBodySchema,
} from '@contract/invites';
import type { Privilege } from '@contract/workspaces';
import { isInternalWorkspace, type Executor } from '@server/workspaces/access';
import { bearer, errorResponses } from '@server/openapi';
import { recordMiss, secondsUntilAccountMayTry } from './guessing';
import { assertSeatFree } from '@server/billing/limits';
import { hashInviteToken } from './secrets';
import {
  inviteExpired,
  inviteInvalid,
  inviteRevoked,
  inviteUsedUp,
  joinCodeInvalid,
  joinCodeLocked,
  joinCodeMissesSpent,
  rateLimited,
  staffOnly,
} from './errors';

const tags = ['invites'];

/** Enough for a person with a typo or two; far too few to guess a code among 31^8. */
export const JOIN_ATTEMPTS_PER_MINUTE = 10;

/** True when the user was already a member. Throws when they may not join at all. */
async function alreadyMember(db: Executor, config: ServerConfig, workspaceId: string, userId: string) {
  const [row] = await db
    .select({ workspace: workspaces, isStaff: users.isStaff, privilege: memberships.privilege })
    .from(users)
    .innerJoin(workspaces, eq(workspaces.id, workspaceId))
    .leftJoin(memberships, and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, users.id)))
    .where(eq(users.id, userId));
  if (!row) throw unauthorized();
  if (isInternalWorkspace(row.workspace, config) && !row.isStaff) throw staffOnly();
  return row.privilege !== null;
}

/** False when a concurrent request made the membership first. */
async function addMember(db: Executor, workspaceId: string, userId: string, privilege: Privilege) {
  const inserted = await db
    .insert(memberships)
    .values({ workspaceId, userId, privilege })
    .onConflictDoNothing()
    .returning({ userId: memberships.userId });
  return inserted.length > 0;
}

export const redeemRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config } = app.deps;
  const rateLimit = {
    max: JOIN_ATTEMPTS_PER_MINUTE,
    timeWindow: '1 minute',
    // requireUser has run (an onRequest hook of this plugin, before the route's own): the key is IP and account.
    keyGenerator: (request: { ip: string; userId: string }) => `${request.ip}|${request.userId}`,
    errorResponseBuilder: (_request: unknown, context: { after: string }) => rateLimited(context.after),
  };

  app.post(
    '/user/me/invite',
    {
      config: { rateLimit },
      schema: {
        tags,
        security: bearer,
        summary: "Join a workspace with an invite link's token",
        body: redeemInviteBodySchema,
        response: { 200: joinedWorkspaceResponseSchema, ...errorResponses(400, 403, 404, 409, 410, 429) },
      },
    },
    async (request) => {
      const tokenHash = hashInviteToken(request.body.token);
      return db.transaction(async (tx) => {
        // The row lock makes concurrent joins on one invite take turns, so `uses` never passes `max_uses`.
        const [invite] = await tx
          .select()
          .from(invites)
          .where(eq(invites.tokenHash, tokenHash))
          .for('update');
        if (!invite) throw inviteInvalid();
        if (invite.revokedAt) throw inviteRevoked();
        if (invite.expiresAt.getTime() <= Date.now()) throw inviteExpired();
        const id = invite.workspaceId;
        if (await alreadyMember(tx, config, id, request.userId)) return { id, already_member: true };
        if (invite.maxUses !== null && invite.uses >= invite.maxUses) throw inviteUsedUp();
        await assertSeatFree(tx, app.billing.catalogue, id);
        const added = await addMember(tx, id, request.userId, invite.privilege);
        if (added) {
          await tx
            .update(invites)
            .set({ uses: sql`${invites.uses} + 1` })
            .where(eq(invites.id, invite.id));
        }
        return { id, already_member: !added };
      });
    },
  );

  app.post(
    '/user/me/join',
    {
      config: { rateLimit },
      schema: {
        tags,
        security: bearer,
        summary: 'Join a workspace as a viewer with its join code (ABCD-EFGH, any case, dash optional)',
        body: joinWithCodeBodySchema,
        response: { 200: joinedWorkspaceResponseSchema, ...errorResponses(400, 403, 404, 409, 410, 429) },
      },
    },
    async (request, reply) => {
      const { code } = request.body;
      // Guessing (./guessing.ts): the account's misses of the day first, so that a hit and a miss are answered alike
      // once they are spent; then the code, refused when too many misses near it locked it.
      const wait = await secondsUntilAccountMayTry(db, request.userId);
      if (wait > 0) {
        reply.header('retry-after', String(wait));
        throw joinCodeMissesSpent(wait);
      }
      const [joinCode] = await db.select().from(joinCodes).where(eq(joinCodes.code, code));
      if (!joinCode) {
        await recordMiss(db, request.userId, code);
        throw joinCodeInvalid();
      }
      if (joinCode.lockedAt) throw joinCodeLocked();
      const { workspaceId } = joinCode;
      return db.transaction(async (tx) => {
        if (await alreadyMember(tx, config, workspaceId, request.userId)) {
          return { id: workspaceId, already_member: true };
        }
        await assertSeatFree(tx, app.billing.catalogue, workspaceId);
        const added = await addMember(tx, workspaceId, request.userId, 'viewer');
        return { id: workspaceId, already_member: !added };
      });
    },
  );
};
