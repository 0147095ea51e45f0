// Shared set-up for the workspace-domain tests: a workspace with one person per privilege, made straight in the
// database so each test starts from a fresh team cheaply.
import { randomBytes } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { memberships, workspaces } from '@server/db/schema';
import type { Privilege } from '@contract/workspaces';
import type { TestServer } from './server-harness';

export type Person = Awaited<ReturnType<TestServer['createUser']>>;

export interface Team {
  workspaceId: string;
  owner: Person;
  coOwner: Person;
  manager: Person;
  viewer: Person;
  /** A second viewer, the target of member changes. */
  otherViewer: Person;
  outsider: Person;
}

export async function addMember(
  server: TestServer,
  workspaceId: string,
  person: Person,
  privilege: Privilege,
) {
  await server.db.insert(memberships).values({ workspaceId, userId: person.id, privilege });
}

export async function createWorkspace(
  server: TestServer,
  members: Array<[Person, Privilege]>,
  fields: Partial<typeof workspaces.$inferInsert> = {},
) {
  const [workspace] = await server.db
    .insert(workspaces)
    .values({ name: `Team ${randomBytes(3).toString('hex')}`, ...fields })
    .returning();
  for (const [person, privilege] of members) await addMember(server, workspace!.id, person, privilege);
  return workspace!;
}

export async function createTeam(server: TestServer, options: { coOwner?: boolean } = {}): Promise<Team> {
  const [owner, coOwner, manager, viewer, otherViewer, outsider] = await Promise.all(
    Array.from({ length: 6 }, () => server.createUser()),
  );
  const members: Array<[Person, Privilege]> = [
    [owner!, 'owner'],
    [manager!, 'manager'],
    [viewer!, 'viewer'],
    [otherViewer!, 'viewer'],
  ];
  if (options.coOwner) members.push([coOwner!, 'owner']);
  const workspace = await createWorkspace(server, members);
  return {
    workspaceId: workspace.id,
    owner: owner!,
    coOwner: coOwner!,
    manager: manager!,
    viewer: viewer!,
    otherViewer: otherViewer!,
    outsider: outsider!,
  };
}

/** app.inject as a person (or signed out with null). */
export function as(server: TestServer, person: Person | null, options: InjectOptions) {
  return server.app.inject({
    ...options,
    headers: { ...options.headers, ...(person && { authorization: `Bearer ${person.token}` }) },
  });
}
