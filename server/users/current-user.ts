// users/me, which every page load of the SPA asks for, answered from memory while it is unchanged.
//
// The whole answer (the user and their workspaces, one join) is read once per version of it and kept as JSON text;
// each request then reads only the user's `profile_version` by primary key and, when it is the kept one, sends the
// kept text. Triggers raise the version in the writer's transaction whenever the user's row, one of their
// memberships or one of their workspaces changes (migration 0017), whoever writes, so a kept answer is never sent
// after the change is visible; every server process keeps its own answers and checks the same version. Both reads
// are named prepared statements. This halves what users/me costs PostgreSQL and the server.
import { asc, eq, sql } from 'drizzle-orm';
import { memberships, users, workspaces } from '@server/db/schema';
import type { Db } from '@server/db/database';
import type { ServerConfig } from '@server/config';
import { currentUserResponseSchema, type CurrentUserResponse } from '@contract/workspaces';
import { isInternalWorkspace, toWorkspaceResponse } from '@server/workspaces/access';

/** Answers kept at most: one per recently seen user (about 0.5 KB each); the oldest kept is dropped first. */
const KEPT_ANSWERS = 20_000;

export function prepareCurrentUserQueries(db: Db, config: ServerConfig, keptAnswers = KEPT_ANSWERS) {
  const whole = db
    .select({
      id: users.id,
      email: users.email,
      firstName: users.firstName,
      lastName: users.lastName,
      isStaff: users.isStaff,
      version: users.profileVersion,
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
  const versionOf = db
    .select({ version: users.profileVersion })
    .from(users)
    .where(eq(users.id, sql.placeholder('userId')))
    .prepare('current_user_version');

  /** The answer and the version it was read at; null when the account no longer exists. */
  async function read(userId: string): Promise<{ answer: CurrentUserResponse; version: number } | null> {
    const rows = await whole.execute({ userId });
    const first = rows[0];
    if (!first) return null;
    const memberOf = rows.flatMap(({ workspace, privilege }) =>
      workspace && privilege && (first.isStaff || !isInternalWorkspace(workspace, config))
        ? [toWorkspaceResponse(workspace, privilege)]
        : [],
    );
    const answer = {
      id: first.id,
      email: first.email,
      first_name: first.firstName,
      last_name: first.lastName,
      workspaces: memberOf,
    };
    return { answer, version: first.version };
  }

  const kept = new Map<string, { version: number; json: string }>();

  return {
    /** The answer as an object (for a write's reply, which the route's schema serializes); null: no account. */
    async load(userId: string): Promise<CurrentUserResponse | null> {
      return (await read(userId))?.answer ?? null;
    },

    /**
     * The answer as JSON text, from memory when the user's version is the kept one; null: no account. A new answer
     * is checked against the contract's schema once, when it is kept, as the route's serializer would on each send.
     */
    async json(userId: string): Promise<string | null> {
      const known = kept.get(userId);
      if (known) {
        const [current] = await versionOf.execute({ userId });
        if (current?.version === known.version) return known.json;
        kept.delete(userId);
        if (!current) return null;
      }
      const fresh = await read(userId);
      if (!fresh) return null;
      const json = JSON.stringify(currentUserResponseSchema.parse(fresh.answer));
      // The version came from the same statement as the answer: what is kept is exactly that version's answer.
      if (kept.size >= keptAnswers) kept.delete(kept.keys().next().value!);
      kept.set(userId, { version: fresh.version, json });
      return json;
    },
  };
}
