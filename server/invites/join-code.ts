// The workspace's join code: read (made on first use) and rotate, which invalidates the old code and lifts a lock that
// wrong guesses near it set (./guessing.ts). Owners and managers.
import { eq, sql } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { joinCodes } from '@server/db/schema';
import { formatJoinCode, joinCodeResponseSchema } from '@contract/invites';
import { workspaceParamsSchema } from '@contract/workspaces';
import type { Executor } from '@server/workspaces/access';
import { workspaceAccessOf, type WorkspaceRequirement } from '@server/workspaces/route-access';
import { bearer, errorResponses } from '@server/openapi';
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

type JoinCodeRow = typeof joinCodes.$inferSelect;

/** The answer: the code as shown, and whether misses near it locked it (./guessing.ts). */
const shown = (row: JoinCodeRow) => ({ code: formatJoinCode(row.code), locked: row.lockedAt !== null });

async function getOrCreateJoinCode(db: Executor, workspaceId: string): Promise<JoinCodeRow> {
  const [existing] = await db.select().from(joinCodes).where(eq(joinCodes.workspaceId, workspaceId));
  if (existing) return existing;
  return withFreshCode(async (code) => {
    // Two first reads at once: both insert, one wins, both answer the winner's code.
    await db
      .insert(joinCodes)
      .values({ workspaceId, code })
      .onConflictDoNothing({ target: joinCodes.workspaceId });
    const [row] = await db.select().from(joinCodes).where(eq(joinCodes.workspaceId, workspaceId));
    return row!;
  });
}

/** A new code, unlocked, whose near misses are counted from now (the old code's do not carry over). */
async function rotateJoinCode(db: Executor, workspaceId: string): Promise<JoinCodeRow> {
  return withFreshCode(async (code) => {
    const [row] = await db
      .insert(joinCodes)
      .values({ workspaceId, code })
      .onConflictDoUpdate({
        target: joinCodes.workspaceId,
        set: { code, createdAt: sql`now()`, lockedAt: null },
      })
      .returning();
    return row!;
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
        summary: "The workspace's join code, shown as ABCD-EFGH, and whether wrong guesses near it locked it",
        params: workspaceParamsSchema,
        response: { 200: joinCodeResponseSchema, ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { workspace } = workspaceAccessOf(request);
      return shown(await getOrCreateJoinCode(db, workspace.id));
    },
  );

  app.post(
    '/workspaces/:id/join-code/rotate',
    {
      config: { workspace: managers },
      schema: {
        tags,
        security: bearer,
        summary: 'Replace the join code (unlocked); the old one stops working at once',
        params: workspaceParamsSchema,
        response: { 200: joinCodeResponseSchema, ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { workspace } = workspaceAccessOf(request);
      return shown(await rotateJoinCode(db, workspace.id));
    },
  );
};
