// Saved queries in the database: rows to responses, the plan limit and the per-workspace unique name.
import { and, count, desc, eq, sql } from 'drizzle-orm';
import { savedQueries } from '@server/db/social-schema';
import { ApiError } from '@server/errors';
import type { Executor } from '@server/workspaces/access';
import { toUnixSeconds } from '@server/workspaces/access';
import { listNames, printQuery } from '@server/query/index';
import { parseOrThrow } from '@server/query/invalid-query';
import type { SavedQuery, SavedQueryFilters } from '@contract/saved-queries';

type Row = typeof savedQueries.$inferSelect;

/** The unique index on (workspace_id, lower(name)): names are unique per workspace, regardless of case. */
const NAME_INDEX = 'saved_queries_workspace_name_idx';

export const savedQueryNotFound = () =>
  new ApiError(404, 'saved_query_not_found', 'This saved query does not exist in this workspace.');

/** Below the writing routes' minimum (managers; see server/workspaces/route-access.ts). */
export const savedQueriesDenied = () =>
  new ApiError(403, 'forbidden', 'Only owners and managers can change saved queries.');

const nameTaken = (name: string) =>
  new ApiError(409, 'name_taken', `This workspace already has a saved query named "${name}".`);

export function toSavedQueryResponse(row: Row): SavedQuery {
  // Stored text always parsed when it was saved; should the language ever tighten, the text is shown as it is.
  let normalized = row.query;
  let lists: string[] = [];
  try {
    const tree = parseOrThrow(row.query);
    normalized = printQuery(tree);
    lists = listNames(tree);
  } catch {
    // Keep the stored text.
  }
  return {
    id: row.id,
    workspace_id: row.workspaceId,
    name: row.name,
    query: row.query,
    normalized,
    lists,
    filters: row.filters as SavedQueryFilters,
    created_by: row.createdBy,
    created_at: toUnixSeconds(row.createdAt),
    updated_at: toUnixSeconds(row.updatedAt),
  };
}

/** PostgreSQL's unique_violation on the name index; drizzle wraps driver errors in `cause`. */
function isNameConflict(error: unknown): boolean {
  for (let current = error; current instanceof Error; current = current.cause) {
    const { code, constraint } = current as Error & { code?: unknown; constraint?: unknown };
    if (code === '23505' && constraint === NAME_INDEX) return true;
  }
  return false;
}

/** Runs a write, turning a clash on the unique name into 409 name_taken. */
export async function guardName<T>(name: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (name !== undefined && isNameConflict(error)) throw nameTaken(name);
    throw error;
  }
}

export async function countSavedQueries(db: Executor, workspaceId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(savedQueries)
    .where(eq(savedQueries.workspaceId, workspaceId));
  return row?.n ?? 0;
}

export function listSavedQueries(db: Executor, workspaceId: string) {
  return db
    .select()
    .from(savedQueries)
    .where(eq(savedQueries.workspaceId, workspaceId))
    .orderBy(desc(savedQueries.createdAt), desc(savedQueries.id));
}

export async function findSavedQuery(db: Executor, workspaceId: string, queryId: string): Promise<Row> {
  const [row] = await db
    .select()
    .from(savedQueries)
    .where(and(eq(savedQueries.workspaceId, workspaceId), eq(savedQueries.id, queryId)));
  if (!row) throw savedQueryNotFound();
  return row;
}

/**
 * The NOTIFY channel on which a change to what a saved query collects (its tracking turned on or off, its sources, its
 * text) is announced: the streams that collect for tracked queries (server/scraping/streams/bluesky-stream.ts) read
 * their queries again at once.
 */
export const TRACKING_CHANGED = 'murmur_tracking_changed';

/** Announces a change to what a saved query collects; in a transaction, PostgreSQL sends it when it commits. */
export async function announceTrackingChange(db: Executor, savedQueryId: string): Promise<void> {
  await db.execute(sql`SELECT pg_notify(${TRACKING_CHANGED}, ${savedQueryId})`);
}
