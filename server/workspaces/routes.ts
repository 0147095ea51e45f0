// The workspaces domain's routes; registered under /api by server/routes.ts. Members live in ./members.ts.
import { and, count, eq, gt, sql } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { memberships, users, workspaces } from '@server/db/schema';
import { subscriptions } from '@server/db/billing-schema';
import { unauthorized } from '@server/errors';
import {
  TRIAL_WORKSPACES_PER_PERSON,
  createWorkspaceBodySchema,
  updateWorkspaceBodySchema,
  workspaceParamsSchema,
  workspaceResponseSchema,
} from '@contract/workspaces';
import { ensureInternalWorkspace, toWorkspaceResponse } from './access';
import { lockWorkspaceAccess, workspaceAccessOf } from './route-access';
import { postgresKnowsTimeZone, unknownTimeZone } from './time-zone';
import { settingsDenied, trialLimit } from './errors';
import { bearer, errorResponses } from '@server/openapi';
import { memberRoutes } from './members';

const DAY_MS = 24 * 60 * 60 * 1000;
const tags = ['workspaces'];

export const workspaceRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config } = app.deps;

  app.addHook('onReady', () => ensureInternalWorkspace(db, config));
  // onRequest rather than preHandler: a signed-out caller learns nothing, not even that their body was invalid.
  app.addHook('onRequest', app.requireUser);

  app.post(
    '/workspaces',
    {
      schema: {
        tags,
        security: bearer,
        summary: 'Create a workspace on a trial, with the caller as its owner',
        description: `Refused (409 trial_limit) while the caller owns ${TRIAL_WORKSPACES_PER_PERSON} workspaces on a running trial.`,
        body: createWorkspaceBodySchema,
        response: { 201: workspaceResponseSchema, ...errorResponses(400, 409) },
      },
    },
    async (request, reply) => {
      const { name, language, first_name, last_name } = request.body;
      const workspace = await db.transaction(async (tx) => {
        // The caller's row, locked: proves the account exists before it becomes an owner, and makes two creations at
        // once count their trials one after the other.
        const [caller] = await tx
          .select({ id: users.id })
          .from(users)
          .where(eq(users.id, request.userId))
          .for('update');
        if (!caller) throw unauthorized();
        const [owned] = await tx
          .select({ trials: count() })
          .from(memberships)
          .innerJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
          .where(
            and(
              eq(memberships.userId, caller.id),
              eq(memberships.privilege, 'owner'),
              eq(workspaces.plan, 'trial'),
              gt(workspaces.planExpiredAt, sql`now()`),
            ),
          );
        if (owned!.trials >= TRIAL_WORKSPACES_PER_PERSON) throw trialLimit();
        const [created] = await tx
          .insert(workspaces)
          .values({
            name,
            language,
            plan: 'trial',
            planExpiredAt: new Date(Date.now() + config.TRIAL_DAYS * DAY_MS),
          })
          .returning();
        const names = {
          ...(first_name !== undefined && { firstName: first_name }),
          ...(last_name !== undefined && { lastName: last_name }),
        };
        if (Object.keys(names).length > 0) await tx.update(users).set(names).where(eq(users.id, caller.id));
        await tx
          .insert(memberships)
          .values({ workspaceId: created!.id, userId: caller.id, privilege: 'owner' });
        // The trial's subscription: the billing job ends it at plan_expired_at (server/billing/job.ts).
        await tx.insert(subscriptions).values({
          workspaceId: created!.id,
          planId: 'trial',
          status: 'trialing',
          periodStart: created!.createdAt,
          periodEnd: created!.planExpiredAt,
          nextRunAt: created!.planExpiredAt,
        });
        return created!;
      });
      return reply.status(201).send(toWorkspaceResponse(workspace, 'owner'));
    },
  );

  app.get(
    '/workspaces/:id',
    {
      config: { workspace: { from: 'params', minimum: 'viewer' } },
      schema: {
        tags,
        security: bearer,
        summary: "A workspace with the caller's privilege in it",
        params: workspaceParamsSchema,
        response: { 200: workspaceResponseSchema, ...errorResponses(404) },
      },
    },
    async (request) => {
      const access = workspaceAccessOf(request);
      return toWorkspaceResponse(access.workspace, access.privilege);
    },
  );

  app.patch(
    '/workspaces/:id',
    {
      config: { workspace: { from: 'params', minimum: 'manager', denied: settingsDenied } },
      schema: {
        tags,
        security: bearer,
        summary: 'Rename a workspace, or change its language or its time zone (owners and managers)',
        params: workspaceParamsSchema,
        body: updateWorkspaceBodySchema,
        response: { 200: workspaceResponseSchema, ...errorResponses(400, 403, 404) },
      },
    },
    async (request, reply) => {
      const { name, language, time_zone: timeZone } = request.body;
      if (name === undefined && language === undefined && timeZone === undefined) {
        const access = workspaceAccessOf(request);
        return toWorkspaceResponse(access.workspace, access.privilege);
      }
      if (timeZone !== undefined && !(await postgresKnowsTimeZone(db, timeZone))) {
        return reply.status(400).send(unknownTimeZone());
      }
      return db.transaction(async (tx) => {
        // Read again under the workspace's lock: a demotion committed meanwhile refuses the change.
        const access = await lockWorkspaceAccess(tx, config, request);
        const [updated] = await tx
          .update(workspaces)
          .set({
            ...(name !== undefined && { name }),
            ...(language !== undefined && { language }),
            ...(timeZone !== undefined && { timeZone }),
          })
          .where(eq(workspaces.id, access.workspace.id))
          .returning();
        return toWorkspaceResponse(updated!, access.privilege);
      });
    },
  );

  await app.register(memberRoutes);
};
