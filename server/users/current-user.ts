// users/me in one round trip: the user and their workspaces through a join, as a named prepared statement, because
// every page load of the SPA asks for it.
import { asc, eq, sql } from 'drizzle-orm';
import { memberships, users, workspaces } from '../db/schema';
import type { Db } from '../db/database';
import type { ServerConfig } from '../config';
import type { CurrentUserResponse } from '../../src/contract/workspaces';
import { isInternalWorkspace, toWorkspaceResponse } from '../workspaces/access';

export function prepareCurrentUserQuery(db: Db, config: ServerConfig) {
  const statement = db
    .select({
      id: users.id,
      email: users.email,
      firstName: users.firstName,
      lastName: users.lastName,
      isStaff: users.isStaff,
      privilege: memberships.privilege,
      workspace: workspaces,
    })
    .from(users)
    .leftJoin(memberships, eq(memberships.userId, users.id))
    .leftJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
    .where(eq(users.id, sql.placeholder('userId')))
    // Oldest membership first: the SPA falls back to the "first workspace".
    .orderBy(asc(memberships.createdAt), asc(memberships.workspaceId))
    .prepare('current_user');

  /** Null when the account no longer exists. */
  return async function loadCurrentUser(userId: string): Promise<CurrentUserResponse | null> {
    const rows = await statement.execute({ userId });
    const first = rows[0];
    if (!first) return null;
    const memberOf = rows.flatMap(({ workspace, privilege }) =>
      workspace && privilege && (first.isStaff || !isInternalWorkspace(workspace, config))
        ? [toWorkspaceResponse(workspace, privilege)]
        : [],
    );
    return {
      id: first.id,
      email: first.email,
      first_name: first.firstName,
      last_name: first.lastName,
      workspaces: memberOf,
    };
  };
}
