// Resolves what the signed-in user may see of a workspace: their privilege in it, or a 404 that reveals nothing.
import { and, eq, sql } from 'drizzle-orm';
import type { PgDatabase } from 'drizzle-orm/pg-core';
import type { NodePgQueryResultHKT } from 'drizzle-orm/node-postgres';
import type * as schema from '@server/db/schema';
import { memberships, users, workspaces } from '@server/db/schema';
import type { ServerConfig } from '@server/config';
import type { Privilege, WorkspaceResponse } from '@contract/workspaces';
import { workspaceNotFound } from './errors';

/** The database or a transaction: queries here run in either. */
export type Executor = PgDatabase<NodePgQueryResultHKT, typeof schema>;

type WorkspaceRow = typeof workspaces.$inferSelect;

export interface WorkspaceAccess {
  workspace: WorkspaceRow;
  privilege: Privilege;
  /** False for staff looking at the internal workspace without a membership. */
  isMember: boolean;
}

export const toUnixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

export function toWorkspaceResponse(workspace: WorkspaceRow, privilege: Privilege): WorkspaceResponse {
  return {
    id: workspace.id,
    name: workspace.name,
    language: workspace.language,
    plan: workspace.plan,
    plan_expired_at: workspace.planExpiredAt ? toUnixSeconds(workspace.planExpiredAt) : null,
    privilege,
    time_zone: workspace.timeZone,
  };
}

export const isInternalWorkspace = (
  workspace: Pick<WorkspaceRow, 'id' | 'isInternal'>,
  config: ServerConfig,
) => workspace.isInternal || workspace.id === config.INTERNAL_WORKSPACE_ID;

function accessQuery(db: Executor, workspaceId: unknown, userId: unknown) {
  return db
    .select({ workspace: workspaces, privilege: memberships.privilege, isStaff: users.isStaff })
    .from(workspaces)
    .leftJoin(
      memberships,
      and(eq(memberships.workspaceId, workspaces.id), eq(memberships.userId, userId as string)),
    )
    .leftJoin(users, eq(users.id, userId as string))
    .where(eq(workspaces.id, workspaceId as string));
}

type AccessRow = { workspace: WorkspaceRow; privilege: Privilege | null; isStaff: boolean | null };

function toAccess(row: AccessRow | undefined, config: ServerConfig): WorkspaceAccess {
  if (!row) throw workspaceNotFound();
  if (isInternalWorkspace(row.workspace, config)) {
    // Staff only, members or not; a former staff member keeps no access through an old membership.
    if (!row.isStaff) throw workspaceNotFound();
    return {
      workspace: row.workspace,
      privilege: row.privilege ?? 'viewer',
      isMember: row.privilege !== null,
    };
  }
  if (!row.privilege) throw workspaceNotFound();
  return { workspace: row.workspace, privilege: row.privilege, isMember: true };
}

/**
 * The read-only access check of every workspace request, as a named prepared statement (parsed and planned once per
 * connection): it sits on the hottest path after users/me.
 */
export function prepareWorkspaceAccess(db: Executor, config: ServerConfig) {
  const statement = accessQuery(db, sql.placeholder('workspaceId'), sql.placeholder('userId')).prepare(
    'workspace_access',
  );
  return async (workspaceId: string, userId: string) =>
    toAccess((await statement.execute({ workspaceId, userId }))[0], config);
}

/**
 * One query for the workspace, the caller's membership and staff flag. With `lock`, the workspace row stays locked
 * until the transaction ends, which serialises membership changes (the last-owner rule depends on it).
 */
export async function resolveWorkspaceAccess(
  db: Executor,
  config: ServerConfig,
  workspaceId: string,
  userId: string,
  options: { lock?: boolean } = {},
): Promise<WorkspaceAccess> {
  const query = accessQuery(db, workspaceId, userId);
  const [row] = options.lock ? await query.for('update', { of: workspaces }) : await query;
  return toAccess(row, config);
}

/** Idempotent: the internal workspace exists from the first start on, with no plan expiry. */
export async function ensureInternalWorkspace(db: Executor, config: ServerConfig) {
  await db
    .insert(workspaces)
    .values({ id: config.INTERNAL_WORKSPACE_ID, name: 'Internal', plan: 'internal', isInternal: true })
    .onConflictDoNothing({ target: workspaces.id });
}

export async function countOwners(db: Executor, workspaceId: string): Promise<number> {
  const [row] = await db
    .select({ count: sql<number>`count(*)::int` })
    .from(memberships)
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.privilege, 'owner')));
  return row?.count ?? 0;
}
