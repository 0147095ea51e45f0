// Answers of the internal API in the contract's own types, so a test's fake backend cannot drift from the server.
import type { CurrentUserResponse, Privilege, WorkspaceResponse } from '../../src/contract/workspaces';

/** A workspace as GET workspaces/{id} (and users/me's list) gives it: open (no expiry), the caller an owner. */
export function workspaceFixture(id: string, overrides: Partial<WorkspaceResponse> = {}): WorkspaceResponse {
  return {
    id,
    name: `Workspace ${id}`,
    language: 'en',
    plan: 'trial',
    plan_expired_at: null,
    privilege: 'owner' satisfies Privilege,
    ...overrides,
  };
}

/** users/me for a user who belongs to the given workspaces (each as workspaceFixture makes it). */
export function currentUserFixture(
  id: string,
  workspaces: Array<string | WorkspaceResponse>,
  overrides: Partial<Omit<CurrentUserResponse, 'workspaces'>> = {},
): CurrentUserResponse {
  return {
    id,
    email: `${id}@example.test`,
    first_name: 'Test',
    last_name: null,
    workspaces: workspaces.map((workspace) =>
      typeof workspace === 'string' ? workspaceFixture(workspace) : workspace,
    ),
    ...overrides,
  };
}
