// The workspace's join code: read (made on first use) and rotate, which invalidates the old code. Owners and managers.
import { eq, sql } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { joinCodes } from '../db/schema';
import { formatJoinCode, joinCodeResponseSchema } from '../../src/contract/invites';
import { workspaceParamsSchema } from '../../src/contract/workspaces';
import type { Executor } from '../workspaces/access';
import { workspaceAccessOf, type WorkspaceRequirement } from '../workspaces/route-access';
import { bearer, errorResponses } from '../workspaces/openapi';
import { isUniqueViolation, newJoinCode } from './secrets';
import { joinCodeDenied } from './errors';

const tags = ['join codes'];
/** A clash needs two equal draws from 31^8 codes; a few retries make a failure practically impossible. */
const ATTEMPTS = 5;
const managers: WorkspaceRequirement = { from: 'params', minimum: 'manager', denied: joinCodeDenied };

async function withFreshCode<T>(write: (code: string) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await write(newJoinCode());
    } catch (error) {
      if (!isUniqueViolation(error) || attempt >= ATTEMPTS) throw error;
    }
  }
}

async function getOrCreateJoinCode(db: Executor, workspaceId: string): Promise<string> {
  const [existing] = await db.select().from(joinCodes).where(eq(joinCodes.workspaceId, workspaceId));
  if (existing) return existing.code;
  return withFreshCode(async (code) => {
    // Two first reads at once: both insert, one wins, both answer the winner's code.
    await db
      .insert(joinCodes)
      .values({ workspaceId, code })
      .onConflictDoNothing({ target: joinCodes.workspaceId });
    const [row] = await db.select().from(joinCodes).where(eq(joinCodes.workspaceId, workspaceId));
    return row!.code;
  });
}

async function rotateJoinCode(db: Executor, workspaceId: string): Promise<string> {
  return withFreshCode(async (code) => {
    const [row] = await db
      .insert(joinCodes)
      .values({ workspaceId, code })
      .onConflictDoUpdate({ target: joinCodes.workspaceId, set: { code, createdAt: sql`now()` } })
      .returning();
    return row!.code;
  });
}

export const joinCodeRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.deps;

  app.get(
    '/workspaces/:id/join-code',
    {
      config: { workspace: managers },
      schema: {
        tags,
        security: bearer,
        summary: "The workspace's join code, shown as ABCD-EFGH",
        params: workspaceParamsSchema,
        response: { 200: joinCodeResponseSchema, ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { workspace } = workspaceAccessOf(request);
      return { code: formatJoinCode(await getOrCreateJoinCode(db, workspace.id)) };
    },
  );

  app.post(
    '/workspaces/:id/join-code/rotate',
    {
      config: { workspace: managers },
      schema: {
        tags,
        security: bearer,
        summary: 'Replace the join code; the old one stops working at once',
        params: workspaceParamsSchema,
        response: { 200: joinCodeResponseSchema, ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { workspace } = workspaceAccessOf(request);
      return { code: formatJoinCode(await rotateJoinCode(db, workspace.id)) };
    },
  );
};
